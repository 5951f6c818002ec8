import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
    CONTEXT_CAP_BYTES,
    loadProjectContext,
    splitFrontmatter,
} from "../../src/project/instruction-files";

const dirs: string[] = [];
function tree(files: Record<string, string>): string {
    const root = mkdtempSync(join(tmpdir(), "north-ctx-"));
    dirs.push(root);
    for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), text);
    }
    return root;
}
afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("project context files", () => {
    it("loads .cursor/rules sorted by path with frontmatter removed, then AGENTS.md and CLAUDE.md", () => {
        const root = tree({
            ".cursor/rules/z-last.mdc": "---\ndescription: z\nglobs: *.ts\n---\nZ body",
            ".cursor/rules/a/first.mdc": "A body",
            ".cursor/rules/notes.txt": "ignored",
            "repo/AGENTS.md": "Use pnpm.",
            "repo/CLAUDE.md": "Be brief.",
            "AGENTS.md": "Parent rules.",
        });
        const repo = join(root, "repo");
        mkdirSync(join(repo, ".cursor", "rules"), { recursive: true });
        writeFileSync(join(repo, ".cursor", "rules", "b.mdc"), "---\na: 1\n---\nB body");
        const context = loadProjectContext(repo);
        expect(context.files.map((f) => f.label)).toEqual([
            "b.mdc".replace(/^/, ".cursor/rules/"),
            join(root, "AGENTS.md"),
            "AGENTS.md",
            "CLAUDE.md",
        ]);
        expect(context.text).toContain(
            "# Cursor Project Rules (.cursor/rules)\n\n## .cursor/rules/b.mdc\n\nB body"
        );
        expect(context.text!.indexOf("Parent rules.")).toBeLessThan(
            context.text!.indexOf("Use pnpm.")
        );
        expect(context.warnings).toEqual([]);

        const rootContext = loadProjectContext(root);
        expect(rootContext.files.slice(0, 2).map((f) => f.label)).toEqual([
            ".cursor/rules/a/first.mdc",
            ".cursor/rules/z-last.mdc",
        ]);
        expect(rootContext.text).toContain("Z body");
        expect(rootContext.text).not.toContain("globs");
    });

    it("keeps the body of a rule whose frontmatter is broken, with a warning", () => {
        const root = tree({
            ".cursor/rules/bad.mdc": "---\ndescription: never closed\nThe rule text",
        });
        const context = loadProjectContext(root);
        expect(context.text).toContain("The rule text");
        expect(context.warnings.join()).toContain("bad.mdc");
        expect(splitFrontmatter("---\nx\n---\nbody").body).toBe("body");
    });

    it("caps a 1 MB AGENTS.md and marks it truncated", () => {
        const root = tree({ "AGENTS.md": "line of guidance\n".repeat(70_000) });
        const context = loadProjectContext(root);
        const file = context.files.find((f) => f.label === "AGENTS.md")!;
        expect(file.truncated).toBe(true);
        expect(Buffer.byteLength(file.body)).toBeLessThanOrEqual(CONTEXT_CAP_BYTES + 20);
        expect(file.body.endsWith("[truncated]")).toBe(true);
        expect(context.warnings.join()).toContain("AGENTS.md");
    });

    it("caps all cursor rules together at 30 KB", () => {
        const big = "r".repeat(20 * 1024);
        const root = tree({
            ".cursor/rules/1.mdc": big,
            ".cursor/rules/2.mdc": big,
            ".cursor/rules/3.mdc": big,
        });
        const context = loadProjectContext(root);
        const total = context.files
            .filter((f) => f.kind === "cursor_rule")
            .reduce((n, f) => n + f.body.length, 0);
        expect(total).toBeLessThan(CONTEXT_CAP_BYTES + 100);
        expect(context.text).toContain("[truncated]");
    });

    it("returns nothing for a project without rules or context files", () => {
        const root = tree({ "src/a.ts": "x" });
        const context = loadProjectContext(root);
        expect(
            context.files.filter((f) => f.label.startsWith(".cursor") || f.label === "AGENTS.md")
        ).toEqual([]);
    });
});
