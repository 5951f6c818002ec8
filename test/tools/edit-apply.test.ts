import { promises as fs, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createEditApplyBatchTool } from "../../src/tools/edit-apply-batch";
import { createEditInsertAtLineTool } from "../../src/tools/edit-insert-at-line";
import { createEditReplaceExactTool } from "../../src/tools/edit-replace-exact";
import type { EditOperations } from "../../src/tools/editing/files";
import { localEditOperations } from "../../src/tools/editing/files";
import type { AnyToolDefinition, PreparedWrite, ToolResult } from "../../src/tools/types";
import { inputSchema } from "../../src/tools/tool-input";

const roots: string[] = [];

async function repo(files: Record<string, string | Buffer> = {}): Promise<string> {
    const root = realpathSync(await fs.mkdtemp(path.join(tmpdir(), "north-apply-")));
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

async function run(tool: AnyToolDefinition, root: string, input: unknown): Promise<ToolResult> {
    const parsed = inputSchema(tool.input).safeParse(input);
    if (!parsed.success) throw new Error(parsed.error.message);
    return tool.execute(parsed.data, { repoRoot: root, signal: new AbortController().signal });
}

async function prepare(
    tool: AnyToolDefinition,
    root: string,
    input: unknown
): Promise<PreparedWrite> {
    const result = await run(tool, root, input);
    if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
    return result.data as PreparedWrite;
}

async function applyOk(change: PreparedWrite): Promise<unknown> {
    const result = await change.apply();
    if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
    return result.data;
}

const bytes = (root: string, name: string) => fs.readFile(path.join(root, name));
const text = (root: string, name: string) => fs.readFile(path.join(root, name), "utf8");

function enospc(): Error {
    return Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
}

describe("apply", () => {
    const replace = createEditReplaceExactTool();

    it("writes nothing when the file changed on disk since prepare", async () => {
        const root = await repo({ "a.ts": "const a = 1;\n" });
        const change = await prepare(replace, root, { path: "a.ts", old_text: "1", new_text: "2" });
        await fs.writeFile(path.join(root, "a.ts"), "const a = 1; // user edit\n");
        const result = await change.apply();
        expect(result.ok).toBe(false);
        if (result.ok) return;
        expect(result.error.code).toBe("file_changed");
        expect(result.error.message).toContain("Re-read it");
        expect(await text(root, "a.ts")).toBe("const a = 1; // user edit\n");
    });

    it("notices a same-size change and a deleted file", async () => {
        const root = await repo({ "a.ts": "aaaa\n", "b.ts": "bbbb\n" });
        const a = await prepare(replace, root, { path: "a.ts", old_text: "aaaa", new_text: "x" });
        await fs.writeFile(path.join(root, "a.ts"), "zzzz\n");
        expect((await a.apply()).ok).toBe(false);
        const b = await prepare(replace, root, { path: "b.ts", old_text: "bbbb", new_text: "x" });
        await fs.unlink(path.join(root, "b.ts"));
        const result = await b.apply();
        expect(result.ok ? null : result.error.code).toBe("file_changed");
        await expect(fs.stat(path.join(root, "b.ts"))).rejects.toThrow();
    });

    it("cannot be applied twice", async () => {
        const root = await repo({ "a.ts": "one\n" });
        const change = await prepare(replace, root, {
            path: "a.ts",
            old_text: "one",
            new_text: "two",
        });
        await applyOk(change);
        expect((await change.apply()).ok).toBe(false);
        expect(await text(root, "a.ts")).toBe("two\n");
    });

    it("keeps the original intact when the disk is full (ENOSPC)", async () => {
        const root = await repo({ "a.ts": "original\n" });
        const ops: Partial<EditOperations> = {
            writeFile: async () => {
                throw enospc();
            },
        };
        const tool = createEditReplaceExactTool({ ops });
        const change = await prepare(tool, root, {
            path: "a.ts",
            old_text: "original",
            new_text: "changed",
        });
        const result = await change.apply();
        expect(result.ok).toBe(false);
        if (result.ok) return;
        expect(result.error.code).toBe("io_error");
        expect(result.error.message).toContain("ENOSPC");
        expect(result.error.message).toContain("the disk is full");
        expect(result.error.message).toContain("The file was not changed.");
        expect(await text(root, "a.ts")).toBe("original\n");
        expect(await fs.readdir(root)).toEqual(["a.ts"]);
    });

    it("preserves the file mode", async () => {
        const root = await repo({ "run.sh": "#!/bin/sh\necho hi\n" });
        await fs.chmod(path.join(root, "run.sh"), 0o755);
        await applyOk(
            await prepare(replace, root, {
                path: "run.sh",
                old_text: "echo hi",
                new_text: "echo bye",
            })
        );
        expect((await fs.stat(path.join(root, "run.sh"))).mode & 0o777).toBe(0o755);
    });

    it("refuses a read-only file (no write bit) at prepare and at apply", async () => {
        const root = await repo({ "ro.txt": "keep\n", "rw.txt": "keep\n" });
        await fs.chmod(path.join(root, "ro.txt"), 0o444);
        const error = await run(replace, root, {
            path: "ro.txt",
            old_text: "keep",
            new_text: "lose",
        });
        expect(error.ok ? null : error.error.code).toBe("read_only");
        const change = await prepare(replace, root, {
            path: "rw.txt",
            old_text: "keep",
            new_text: "lose",
        });
        await fs.chmod(path.join(root, "rw.txt"), 0o444);
        const result = await change.apply();
        expect(result.ok ? null : result.error.code).toBe("read_only");
        expect(await text(root, "ro.txt")).toBe("keep\n");
        expect(await text(root, "rw.txt")).toBe("keep\n");
    });

    it("keeps CRLF line endings, a BOM and a missing final newline", async () => {
        const bom = Buffer.from([0xef, 0xbb, 0xbf]);
        const root = await repo({
            "crlf.txt": "a\r\nb\r\nc\r\n",
            "bom.txt": Buffer.concat([bom, Buffer.from("x\ny\n")]),
            "nofinal.txt": "one\ntwo",
        });
        await applyOk(
            await prepare(replace, root, { path: "crlf.txt", old_text: "b", new_text: "b1\nb2" })
        );
        expect(await text(root, "crlf.txt")).toBe("a\r\nb1\r\nb2\r\nc\r\n");
        await applyOk(
            await prepare(replace, root, { path: "bom.txt", old_text: "x", new_text: "z" })
        );
        expect(await bytes(root, "bom.txt")).toEqual(Buffer.concat([bom, Buffer.from("z\ny\n")]));
        const insert = createEditInsertAtLineTool();
        await applyOk(
            await prepare(insert, root, { path: "nofinal.txt", line: 3, content: "three\n" })
        );
        expect(await text(root, "nofinal.txt")).toBe("one\ntwo\nthree");
        await applyOk(
            await prepare(replace, root, {
                path: "nofinal.txt",
                old_text: "three",
                new_text: "3\n",
            })
        );
        expect(await text(root, "nofinal.txt")).toBe("one\ntwo\n3");
    });

    it("does not let a replacement drop the final newline", async () => {
        const root = await repo({ "a.txt": "a\nb\n" });
        await applyOk(
            await prepare(replace, root, { path: "a.txt", old_text: "b\n", new_text: "c" })
        );
        expect(await text(root, "a.txt")).toBe("a\nc\n");
    });

    it("edits a 10 MB file quickly with a small diff", async () => {
        const line = "export const value = computeSomething(alpha, beta, gamma); // filler text\n";
        const lines = Array.from({ length: Math.ceil((10 * 1024 * 1024) / line.length) }, (_, i) =>
            i === 70_000 ? "export const target = 1;\n" : line
        );
        const root = await repo({ "big.ts": lines.join("") });
        const started = performance.now();
        const change = await prepare(replace, root, {
            path: "big.ts",
            old_text: "export const target = 1;",
            new_text: "export const target = 2;",
        });
        expect(change.diffs[0]?.diff.length).toBeLessThan(2000);
        expect(change.diffs[0]?.diff).toContain("@@ -69998,7 +69998,7 @@");
        await applyOk(change);
        expect(performance.now() - started).toBeLessThan(3000);
        const after = await text(root, "big.ts");
        expect(after.length).toBe(lines.join("").length);
        expect(after).toContain("export const target = 2;\n");
    });

    it("gives a not-found report on a 10 MB file in reasonable time", async () => {
        const line = "export const value = computeSomething(alpha, beta, gamma); // filler text\n";
        const root = await repo({ "big.ts": line.repeat(140_000) });
        const started = performance.now();
        const result = await run(replace, root, {
            path: "big.ts",
            old_text: "const missing = nothing;",
            new_text: "x",
        });
        expect(result.ok ? null : result.error.code).toBe("no_match");
        expect(performance.now() - started).toBeLessThan(5000);
    });
});

describe("edit_apply_batch", () => {
    const batch = createEditApplyBatchTool();

    it("applies edits in order across files as one change", async () => {
        const root = await repo({ "a.ts": "one\ntwo\n", "b.ts": "alpha\n" });
        const change = await prepare(batch, root, {
            edits: [
                { tool: "edit_replace_exact", path: "a.ts", old_text: "one", new_text: "uno" },
                {
                    tool: "edit_after_anchor",
                    path: "a.ts",
                    anchor: "uno",
                    content: "one-and-a-half",
                },
                { tool: "edit_replace_exact", path: "b.ts", old_text: "alpha", new_text: "beta" },
                { tool: "edit_create_file", path: "c/new.ts", content: "first\n" },
                { tool: "edit_insert_at_line", path: "c/new.ts", line: 2, content: "second" },
            ],
        });
        expect(change.summary).toBe("Editing 3 files");
        expect(change.diffs.map((d) => d.path)).toEqual(["a.ts", "b.ts", "c/new.ts"]);
        const result = await applyOk(change);
        expect(result).toMatchObject({
            applied: true,
            files: [{ path: "a.ts" }, { path: "b.ts" }, { path: "c/new.ts" }],
        });
        expect(await text(root, "a.ts")).toBe("uno\none-and-a-half\ntwo\n");
        expect(await text(root, "b.ts")).toBe("beta\n");
        expect(await text(root, "c/new.ts")).toBe("first\nsecond\n");
    });

    it("changes no file when the third edit fails, and names it", async () => {
        const root = await repo({ "a.ts": "one\n", "b.ts": "two\n", "c.ts": "three\n" });
        const result = await run(batch, root, {
            edits: [
                { tool: "edit_replace_exact", path: "a.ts", old_text: "one", new_text: "1" },
                { tool: "edit_replace_exact", path: "b.ts", old_text: "two", new_text: "2" },
                { tool: "edit_replace_exact", path: "c.ts", old_text: "four", new_text: "4" },
            ],
        });
        expect(result.ok).toBe(false);
        if (result.ok) return;
        expect(result.error.code).toBe("no_match");
        expect(result.error.message).toMatch(
            /^Edit 3 of 3 \(edit_replace_exact on c\.ts\) failed; no file was changed\./
        );
        expect(await text(root, "a.ts")).toBe("one\n");
        expect(await text(root, "b.ts")).toBe("two\n");
        expect(await text(root, "c.ts")).toBe("three\n");
    });

    it("restores files already written when a later write fails", async () => {
        const root = await repo({ "a.ts": "one\n", "b.ts": "two\n" });
        let writes = 0;
        const ops: Partial<EditOperations> = {
            writeFile: async (file, data, options) => {
                writes++;
                if (writes === 3) throw enospc(); // a.ts ok, new dir file ok, b.ts fails
                return localEditOperations.writeFile(file, data, options);
            },
        };
        const tool = createEditApplyBatchTool({ ops });
        const change = await prepare(tool, root, {
            edits: [
                { tool: "edit_replace_exact", path: "a.ts", old_text: "one", new_text: "1" },
                { tool: "edit_create_file", path: "made/new.ts", content: "new\n" },
                { tool: "edit_replace_exact", path: "b.ts", old_text: "two", new_text: "2" },
            ],
        });
        const result = await change.apply();
        expect(result.ok).toBe(false);
        if (result.ok) return;
        expect(result.error.message).toContain("Could not write b.ts");
        expect(result.error.message).toContain("No file was changed.");
        expect(await text(root, "a.ts")).toBe("one\n");
        expect(await text(root, "b.ts")).toBe("two\n");
        await expect(fs.stat(path.join(root, "made"))).rejects.toThrow();
    });

    it("checks every file before writing any", async () => {
        const root = await repo({ "a.ts": "one\n", "b.ts": "two\n" });
        const change = await prepare(batch, root, {
            edits: [
                { tool: "edit_replace_exact", path: "a.ts", old_text: "one", new_text: "1" },
                { tool: "edit_replace_exact", path: "b.ts", old_text: "two", new_text: "2" },
            ],
        });
        await fs.writeFile(path.join(root, "b.ts"), "two!\n");
        expect((await change.apply()).ok).toBe(false);
        expect(await text(root, "a.ts")).toBe("one\n");
    });

    it("rejects an unknown tool name in an item", () => {
        const parsed = inputSchema(batch.input).safeParse({
            edits: [{ tool: "shell_run", path: "a", command: "rm" }],
        });
        expect(parsed.success).toBe(false);
    });
});
