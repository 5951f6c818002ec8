import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadAttachments, previewOf, renderAttachedFiles } from "../../src/project/attachments";
import { createFileIndex } from "../../src/project/file-index";
import { MATCH_TIERS, fuzzyFilter, scorePath } from "../../src/project/fuzzy";

describe("fuzzy file matching", () => {
    it("ranks exact name > prefix > contains > subsequence", () => {
        const paths = [
            "src/ui/xcomposer-helpers.ts",
            "src/ui/cmpsr.ts",
            "docs/composer.md",
            "src/ui/composer.tsx",
            "src/composer",
            "lib/c-o-m-p-o-s-e-r.ts",
        ];
        expect(fuzzyFilter("composer", paths)).toEqual([
            "src/composer",
            // both prefixes: the shorter path first
            "docs/composer.md",
            "src/ui/composer.tsx",
            "src/ui/xcomposer-helpers.ts",
            "lib/c-o-m-p-o-s-e-r.ts",
        ]);
        expect(scorePath("composer", "src/composer")! >= MATCH_TIERS.exact).toBe(true);
        expect(scorePath("zzz", "src/a.ts")).toBeNull();
    });

    it("an @ query matching nothing gives no suggestions", () => {
        expect(fuzzyFilter("zzqq", ["src/a.ts", "README.md", "lib/util.js"])).toEqual([]);
    });

    it("is case-insensitive, matches paths, and limits results", () => {
        expect(fuzzyFilter("UI/COMP", ["src/ui/composer.tsx", "x.ts"])).toEqual([
            "src/ui/composer.tsx",
        ]);
        const many = Array.from({ length: 50 }, (_, i) => `f${i}.ts`);
        expect(fuzzyFilter("f", many, 10)).toHaveLength(10);
    });

    it("builds the index lazily, respecting .gitignore", async () => {
        const root = mkdtempSync(join(tmpdir(), "north-index-"));
        mkdirSync(join(root, "src"));
        mkdirSync(join(root, "build"));
        writeFileSync(join(root, ".gitignore"), "build/\n");
        writeFileSync(join(root, "src", "retry.ts"), "x");
        writeFileSync(join(root, "build", "retry.js"), "x");
        const index = createFileIndex(root);
        expect(index.search("retry")).toBeNull();
        await index.ready();
        expect(index.search("retry")).toEqual(["src/retry.ts"]);
    });
});

describe("attached files", () => {
    it("previews the first 30 lines and says how many are left", () => {
        const text = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join("\n");
        const { preview, moreLines } = previewOf(text);
        expect(preview.split("\n")).toHaveLength(30);
        expect(moreLines).toBe(10);
        const big = "x".repeat(500).concat("\n").repeat(10);
        expect(Buffer.byteLength(previewOf(big).preview)).toBeLessThanOrEqual(2048);
    });

    it("renders the context block with a fence, a preview and an outline", () => {
        const block = renderAttachedFiles([
            {
                path: "src/a.ts",
                text: "export function a() {}\n",
                outline: ["function a (line 1)"],
            },
        ]);
        expect(block).toBe(
            "# Attached Files\n\n## src/a.ts\n\n```typescript\nexport function a() {}\n```\n\nOutline (a.ts):\n\n- function a (line 1)"
        );
    });

    it("reads only files inside the project", async () => {
        const root = mkdtempSync(join(tmpdir(), "north-attach-"));
        writeFileSync(join(root, "a.ts"), "const a = 1;\n");
        const files = await loadAttachments(root, ["a.ts", "../etc/passwd", "missing.ts"], () => [
            "x",
        ]);
        expect(files).toEqual([{ path: "a.ts", text: "const a = 1;\n", outline: ["x"] }]);
    });
});
