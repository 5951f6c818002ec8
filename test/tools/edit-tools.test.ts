import { promises as fs, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createEditAfterAnchorTool } from "../../src/tools/edit-after-anchor";
import { createEditApplyBatchTool } from "../../src/tools/edit-apply-batch";
import { createEditBeforeAnchorTool } from "../../src/tools/edit-before-anchor";
import { createEditByAnchorTool } from "../../src/tools/edit-by-anchor";
import { createEditCreateFileTool } from "../../src/tools/edit-create-file";
import { createEditInsertAtLineTool } from "../../src/tools/edit-insert-at-line";
import { createEditReplaceBlockTool } from "../../src/tools/edit-replace-block";
import { createEditReplaceExactTool } from "../../src/tools/edit-replace-exact";
import type {
    AnyToolDefinition,
    PreparedWrite,
    ToolContext,
    ToolResult,
} from "../../src/tools/types";
import { isPreparedWrite } from "../../src/tools/types";
import { inputSchema } from "../../src/tools/tool-input";

const roots: string[] = [];

async function repo(files: Record<string, string> = {}): Promise<string> {
    const root = realpathSync(await fs.mkdtemp(path.join(tmpdir(), "north-edit-")));
    roots.push(root);
    for (const [name, content] of Object.entries(files)) {
        await fs.mkdir(path.dirname(path.join(root, name)), { recursive: true });
        await fs.writeFile(path.join(root, name), content);
    }
    return root;
}

afterEach(async () => {
    for (const root of roots.splice(0)) await fs.rm(root, { recursive: true, force: true });
});

function context(root: string): ToolContext {
    return { repoRoot: root, signal: new AbortController().signal };
}

async function run(tool: AnyToolDefinition, root: string, input: unknown): Promise<ToolResult> {
    const parsed = inputSchema(tool.input).safeParse(input);
    expect(parsed.success).toBe(true);
    return tool.execute(parsed.data, context(root));
}

async function prepared(
    tool: AnyToolDefinition,
    root: string,
    input: unknown
): Promise<PreparedWrite> {
    const result = await run(tool, root, input);
    if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
    expect(isPreparedWrite(result.data)).toBe(true);
    return result.data as PreparedWrite;
}

async function applied(tool: AnyToolDefinition, root: string, input: unknown): Promise<unknown> {
    const change = await prepared(tool, root, input);
    const result = await change.apply();
    if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
    return result.data;
}

async function failure(tool: AnyToolDefinition, root: string, input: unknown) {
    const result = await run(tool, root, input);
    if (result.ok) throw new Error("expected a failure");
    return result.error;
}

const read = (root: string, name: string) => fs.readFile(path.join(root, name), "utf8");

const SOURCE = "function setupApp() {\n    init();\n}\n\nfunction other() {\n    init();\n}\n";

describe("tool contract", () => {
    const tools = [
        createEditReplaceExactTool(),
        createEditInsertAtLineTool(),
        createEditAfterAnchorTool(),
        createEditBeforeAnchorTool(),
        createEditReplaceBlockTool(),
        createEditByAnchorTool(),
        createEditCreateFileTool(),
    ];
    it("declares write approval and is not read-only", () => {
        for (const tool of tools) {
            expect(tool.approvalPolicy).toBe("write");
            expect(tool.readOnly).toBe(false);
            expect(tool.name).toMatch(/^edit_/);
            expect(tool.description.length).toBeLessThan(600);
        }
    });

    it("prepares without writing", async () => {
        const root = await repo({ "a.ts": SOURCE });
        const change = await prepared(createEditReplaceExactTool(), root, {
            path: "a.ts",
            old_text: "function setupApp() {",
            new_text: "function setupApp(): void {",
        });
        expect(await read(root, "a.ts")).toBe(SOURCE);
        expect(change.summary).toBe("Editing a.ts");
        expect(change.diffs[0]).toMatchObject({
            path: "a.ts",
            linesAdded: 1,
            linesRemoved: 1,
            isNewFile: false,
        });
        expect(change.diffs[0]?.diff).toContain(
            "-function setupApp() {\n+function setupApp(): void {"
        );
        const result = await change.apply();
        expect(result).toEqual({
            ok: true,
            data: { applied: true, files: [{ path: "a.ts", linesAdded: 1, linesRemoved: 1 }] },
        });
        expect(await read(root, "a.ts")).toBe(SOURCE.replace("setupApp() {", "setupApp(): void {"));
    });
});

describe("edit_replace_exact", () => {
    const tool = createEditReplaceExactTool();

    it("refuses ambiguous text with candidates, then honours occurrence", async () => {
        const root = await repo({ "a.ts": SOURCE });
        const error = await failure(tool, root, {
            path: "a.ts",
            old_text: "    init();",
            new_text: "    start();",
        });
        expect(error.code).toBe("ambiguous_match");
        expect(error.message).toContain("Pass occurrence (1-2)");
        expect(error.message).toContain('1. Line 2: "init();"');
        expect(error.message).toContain('2. Line 6: "init();"');
        await applied(tool, root, {
            path: "a.ts",
            old_text: "    init();",
            new_text: "    start();",
            occurrence: 2,
        });
        expect(await read(root, "a.ts")).toBe(SOURCE.replace(/init\(\);\n}\n$/, "start();\n}\n"));
    });

    it("lists every candidate of a text found hundreds of times, with the count", async () => {
        const root = await repo({ "a.txt": "value = 1\n".repeat(500) });
        const error = await failure(tool, root, {
            path: "a.txt",
            old_text: "value = 1",
            new_text: "value = 2",
        });
        expect(error.code).toBe("ambiguous_match");
        expect(error.message).toContain("matches 500 places");
        expect(error.message).toContain('20. Line 20: "value = 1"');
        expect(error.message).toContain("21-500. Lines 21, 22, 23");
        expect(error.message).toContain("220 and 280 more");
    });

    it("names the count when occurrence is out of range", async () => {
        const root = await repo({ "a.ts": SOURCE });
        const error = await failure(tool, root, {
            path: "a.ts",
            old_text: "init();",
            new_text: "x();",
            occurrence: 3,
        });
        expect(error.code).toBe("out_of_range");
        expect(error.message).toContain("occurs 2 times");
        const zero = await failure(tool, root, {
            path: "a.ts",
            old_text: "init();",
            new_text: "x();",
            occurrence: 0,
        });
        expect(zero.code).toBe("out_of_range");
    });

    it("rejects empty search text and no-op edits", async () => {
        const root = await repo({ "a.ts": SOURCE });
        expect(
            (await failure(tool, root, { path: "a.ts", old_text: "", new_text: "x" })).code
        ).toBe("invalid_args");
        const same = await failure(tool, root, {
            path: "a.ts",
            old_text: "init();",
            new_text: "init();",
        });
        expect(same.code).toBe("no_change");
    });

    it("explains a missing text with near matches and the hint", async () => {
        const root = await repo({ "a.ts": SOURCE });
        const error = await failure(tool, root, {
            path: "a.ts",
            old_text: "function setupAp() {",
            new_text: "x",
        });
        expect(error.code).toBe("no_match");
        expect(error.message).toMatch(/^Text not found in file\./);
        expect(error.message).toContain('Line 1: "function setupApp() {"');
        expect(error.message).toContain("Hint: Use read_around");
    });

    it("reports the tolerance it used", async () => {
        const root = await repo({ "a.ts": SOURCE });
        const result = await applied(tool, root, {
            path: "a.ts",
            old_text: "function other() {\n\tinit();\n}",
            new_text: "function other() {\n\tinit();\n\tdone();\n}",
        });
        expect(result).toMatchObject({
            tolerance: [{ path: "a.ts", line: 5, kind: "indentation" }],
        });
        expect(await read(root, "a.ts")).toContain(
            "function other() {\n    init();\n    done();\n}\n"
        );
    });

    it("fails clearly for a missing file, a directory and a path outside the project", async () => {
        const root = await repo({ "src/a.ts": "x\n" });
        const missing = await failure(tool, root, {
            path: "src/nope.ts",
            old_text: "x",
            new_text: "y",
        });
        expect(missing.code).toBe("not_found");
        const dir = await failure(tool, root, { path: "src", old_text: "x", new_text: "y" });
        expect(dir.code).toBe("not_a_file");
        expect(dir.message).toContain("is a directory");
        const outside = await failure(tool, root, {
            path: "../x.ts",
            old_text: "x",
            new_text: "y",
        });
        expect(outside.code).toBe("path_outside_repo");
    });

    it("refuses a symlink that leads out of the project and leaves its target alone", async () => {
        const outsideDir = await repo({ "secret.txt": "secret\n" });
        const root = await repo({});
        await fs.symlink(path.join(outsideDir, "secret.txt"), path.join(root, "link.txt"));
        const error = await failure(tool, root, {
            path: "link.txt",
            old_text: "secret",
            new_text: "owned",
        });
        expect(error.code).toBe("path_outside_repo");
        expect(await read(outsideDir, "secret.txt")).toBe("secret\n");
    });

    it("edits through a symlink inside the project without replacing the link", async () => {
        const root = await repo({ "real.ts": "a\n" });
        await fs.symlink("real.ts", path.join(root, "link.ts"));
        await applied(tool, root, { path: "link.ts", old_text: "a", new_text: "b" });
        expect((await fs.lstat(path.join(root, "link.ts"))).isSymbolicLink()).toBe(true);
        expect(await read(root, "real.ts")).toBe("b\n");
    });

    it("refuses binary files", async () => {
        const root = await repo({});
        await fs.writeFile(path.join(root, "b.bin"), Buffer.from([1, 0, 2, 3]));
        expect(
            (await failure(tool, root, { path: "b.bin", old_text: "a", new_text: "b" })).code
        ).toBe("binary_file");
    });
});

describe("edit_insert_at_line", () => {
    const tool = createEditInsertAtLineTool();

    it("inserts before a line and appends at line count + 1", async () => {
        const root = await repo({ "a.txt": "one\ntwo\n" });
        await applied(tool, root, { path: "a.txt", line: 2, content: "inserted" });
        await applied(tool, root, { path: "a.txt", line: 4, content: "last\n" });
        expect(await read(root, "a.txt")).toBe("one\ninserted\ntwo\nlast\n");
    });

    it("rejects line 0 and lines past the end", async () => {
        const root = await repo({ "a.txt": "one\ntwo\n" });
        const zero = await failure(tool, root, { path: "a.txt", line: 0, content: "x" });
        expect(zero.code).toBe("out_of_range");
        expect(zero.message).toContain("lines count from 1");
        const past = await failure(tool, root, { path: "a.txt", line: 4, content: "x" });
        expect(past.code).toBe("out_of_range");
        expect(past.message).toContain("the file has 2 lines");
    });

    it("rejects empty content", async () => {
        const root = await repo({ "a.txt": "one\n" });
        expect((await failure(tool, root, { path: "a.txt", line: 1, content: "" })).code).toBe(
            "invalid_args"
        );
    });
});

describe("anchor tools", () => {
    it("inserts after and before an anchor line", async () => {
        const root = await repo({ "a.ts": SOURCE });
        await applied(createEditAfterAnchorTool(), root, {
            path: "a.ts",
            anchor: "function setupApp() {",
            content: "    // first",
        });
        await applied(createEditBeforeAnchorTool(), root, {
            path: "a.ts",
            anchor: "function other",
            content: "// other\n",
        });
        expect(await read(root, "a.ts")).toBe(
            "function setupApp() {\n    // first\n    init();\n}\n\n// other\nfunction other() {\n    init();\n}\n"
        );
    });

    it("lists candidates for an ambiguous anchor and treats two hits on one line as one", async () => {
        const root = await repo({ "a.ts": "init(); init();\nother\ninit();\n" });
        const error = await failure(createEditAfterAnchorTool(), root, {
            path: "a.ts",
            anchor: "init",
            content: "x",
        });
        expect(error.code).toBe("ambiguous_match");
        expect(error.message).toContain("matches 2 places");
        expect(error.message).toContain("Line 1:");
        expect(error.message).toContain("Line 3:");
    });

    it("never guesses between an underline and part of a longer rule, whichever anchor tool", async () => {
        const rst = `Title\n${"-".repeat(24)}\n\nText.\n\n${"-".repeat(40)}\nFooter\n`;
        const root = await repo({ "doc.rst": rst });
        const anchor = "-".repeat(24);
        const calls: Array<[AnyToolDefinition, Record<string, unknown>]> = [
            [createEditAfterAnchorTool(), { anchor, content: "x" }],
            [createEditBeforeAnchorTool(), { anchor, content: "x" }],
            [createEditByAnchorTool(), { anchor, mode: "replace_line", content: "x" }],
            [
                createEditReplaceBlockTool(),
                { start_anchor: anchor, end_anchor: "Footer", content: "x" },
            ],
            [
                createEditApplyBatchTool(),
                {
                    edits: [
                        {
                            tool: "edit_by_anchor",
                            path: "doc.rst",
                            anchor,
                            mode: "insert_after",
                            content: "x",
                        },
                    ],
                },
            ],
        ];
        for (const [tool, input] of calls) {
            const error = await failure(tool, root, { path: "doc.rst", ...input });
            expect(error.code, tool.name).toBe("ambiguous_match");
            expect(error.message).toContain("Line 2:");
            expect(error.message).toContain("Line 6:");
        }
        expect(await read(root, "doc.rst")).toBe(rst);
    });

    it("refuses a repeated anchor of under three visible characters, even with occurrence", async () => {
        const root = await repo({ "a.ts": "f() {\n}\ng() {\n}\n" });
        const error = await failure(createEditByAnchorTool(), root, {
            path: "a.ts",
            anchor: "}",
            mode: "insert_after",
            content: "// end",
            occurrence: 1,
        });
        expect(error.code).toBe("ambiguous_match");
        expect(error.message).toContain("Give a longer anchor");
    });

    it("reports an absent anchor", async () => {
        const root = await repo({ "a.ts": SOURCE });
        const error = await failure(createEditBeforeAnchorTool(), root, {
            path: "a.ts",
            anchor: "setupAppp",
            content: "x",
        });
        expect(error.code).toBe("no_match");
        expect(error.message).toMatch(/^Anchor not found in file\./);
    });

    it("edit_replace_block replaces between anchors, exclusive by default", async () => {
        const root = await repo({ "a.css": "a {\n  color: red;\n  margin: 0;\n}\nb {\n}\n" });
        await applied(createEditReplaceBlockTool(), root, {
            path: "a.css",
            start_anchor: "a {",
            end_anchor: "}",
            content: "  color: blue;",
        });
        expect(await read(root, "a.css")).toBe("a {\n  color: blue;\n}\nb {\n}\n");
        await applied(createEditReplaceBlockTool(), root, {
            path: "a.css",
            start_anchor: "b {",
            end_anchor: "}",
            content: "",
            inclusive: true,
        });
        expect(await read(root, "a.css")).toBe("a {\n  color: blue;\n}\n");
    });

    it("edit_by_anchor supports all four modes", async () => {
        const tool = createEditByAnchorTool();
        const root = await repo({ "a.py": "def f():\n    a = 1\n    b = 2\n    return a\n" });
        await applied(tool, root, {
            path: "a.py",
            mode: "replace_line",
            anchor: "b = 2",
            content: "    b = 3",
        });
        await applied(tool, root, {
            path: "a.py",
            mode: "insert_before",
            anchor: "def f",
            content: "import os",
        });
        await applied(tool, root, {
            path: "a.py",
            mode: "insert_after",
            anchor: "return a",
            content: "# end",
        });
        expect(await read(root, "a.py")).toBe(
            "import os\ndef f():\n    a = 1\n    b = 3\n    return a\n# end\n"
        );
        await applied(tool, root, {
            path: "a.py",
            mode: "replace_between",
            anchor: "def f():",
            anchor_end: "return a",
            content: "    a = 0",
        });
        expect(await read(root, "a.py")).toBe(
            "import os\ndef f():\n    a = 0\n    return a\n# end\n"
        );
        await applied(tool, root, {
            path: "a.py",
            mode: "replace_line",
            anchor: "# end",
            content: "",
        });
        expect(await read(root, "a.py")).toBe("import os\ndef f():\n    a = 0\n    return a\n");
    });

    it("replace_between needs anchor_end and an end anchor after the start", async () => {
        const tool = createEditByAnchorTool();
        const root = await repo({ "a.txt": "end\nstart\nmiddle\n" });
        const noEnd = await failure(tool, root, {
            path: "a.txt",
            mode: "replace_between",
            anchor: "start",
            content: "x",
        });
        expect(noEnd.code).toBe("invalid_args");
        const before = await failure(tool, root, {
            path: "a.txt",
            mode: "replace_between",
            anchor: "start",
            anchor_end: "end",
            content: "x",
        });
        expect(before.code).toBe("no_match");
        expect(before.message).toContain("End anchor not found after the start anchor (line 2)");
    });

    it("a replace that changes nothing is a no-op error", async () => {
        const root = await repo({ "a.txt": "a\nb\n" });
        const error = await failure(createEditByAnchorTool(), root, {
            path: "a.txt",
            mode: "replace_line",
            anchor: "b",
            content: "b",
        });
        expect(error.code).toBe("no_change");
    });
});

describe("edit_create_file", () => {
    const tool = createEditCreateFileTool();

    it("creates parent directories on apply, not before", async () => {
        const root = await repo({});
        const change = await prepared(tool, root, {
            path: "deep/nested/dir/new.ts",
            content: "export {};\n",
        });
        expect(change.summary).toBe("Creating deep/nested/dir/new.ts");
        expect(change.diffs[0]).toMatchObject({ isNewFile: true, linesAdded: 1, linesRemoved: 0 });
        await expect(fs.stat(path.join(root, "deep"))).rejects.toThrow();
        await change.apply();
        expect(await read(root, "deep/nested/dir/new.ts")).toBe("export {};\n");
    });

    it("refuses a path that names a directory", async () => {
        const root = await repo({});
        expect((await failure(tool, root, { path: "newdir/", content: "x" })).code).toBe(
            "invalid_path"
        );
    });

    it("refuses to overwrite unless asked, and keeps CRLF when overwriting", async () => {
        const root = await repo({ "a.txt": "old\r\n" });
        expect((await failure(tool, root, { path: "a.txt", content: "new\n" })).code).toBe(
            "already_exists"
        );
        await applied(tool, root, { path: "a.txt", content: "new\nlines\n", overwrite: true });
        expect(await read(root, "a.txt")).toBe("new\r\nlines\r\n");
    });

    it("refuses to create a file through a symlinked directory that leaves the project", async () => {
        const outsideDir = await repo({});
        const root = await repo({});
        await fs.symlink(outsideDir, path.join(root, "out"));
        const error = await failure(tool, root, { path: "out/evil.ts", content: "x" });
        expect(error.code).toBe("path_outside_repo");
        expect(await fs.readdir(outsideDir)).toEqual([]);
    });
});
