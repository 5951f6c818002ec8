import { spawnSync } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEditApplyBatchTool } from "../../src/tools/edit-apply-batch";
import { createEditCreateFileTool } from "../../src/tools/edit-create-file";
import { createEditReplaceExactTool } from "../../src/tools/edit-replace-exact";
import { acquireApplyLocks, applyLockPath } from "../../src/tools/editing/apply-lock";
import type { EditOperations } from "../../src/tools/editing/files";
import { localEditOperations } from "../../src/tools/editing/files";
import type { AnyToolDefinition, PreparedWrite, ToolResult } from "../../src/tools/types";
import { type TempRepo, expectError, expectOk, makeOutsideDir, makeRepo } from "./fixtures";
import { inputSchema } from "../../src/tools/tool-input";

let repo: TempRepo;
let outside: { dir: string; cleanup: () => Promise<void> };
const locks: string[] = [];

beforeEach(async () => {
    repo = await makeRepo({ "sub/a.txt": "alpha\n", "b.txt": "bravo\n", "plain.json": "{}\n" });
    outside = await makeOutsideDir();
});
afterEach(async () => {
    for (const lock of locks.splice(0)) await fs.rm(lock, { force: true });
    await repo.cleanup();
    await outside.cleanup();
});

async function prepare(tool: AnyToolDefinition, input: unknown): Promise<PreparedWrite> {
    const parsed = inputSchema(tool.input).safeParse(input);
    if (!parsed.success) throw new Error(parsed.error.message);
    return expectOk((await tool.execute(parsed.data, repo.ctx())) as ToolResult<PreparedWrite>);
}

const read = (rel: string) => fs.readFile(path.join(repo.root, rel), "utf8");
const listOutside = async () => (await fs.readdir(outside.dir)).sort();

/** Replaces the project folder `rel` by a symlink to `target` (the old folder is kept aside). */
async function swapForLink(rel: string, target: string): Promise<void> {
    await fs.rename(path.join(repo.root, rel), path.join(repo.root, `${rel}-old`));
    await fs.symlink(target, path.join(repo.root, rel));
}

describe("apply re-resolves the target", () => {
    const replace = createEditReplaceExactTool();

    it("refuses when a folder became a symlink out of the project after prepare; nothing lands outside", async () => {
        await fs.writeFile(path.join(outside.dir, "a.txt"), "alpha\n");
        const change = await prepare(replace, {
            path: "sub/a.txt",
            old_text: "alpha",
            new_text: "omega",
        });
        await swapForLink("sub", outside.dir);
        const error = expectError(await change.apply());
        expect(error.code).toBe("path_outside_repo");
        expect(error.message).toContain("Nothing was written");
        expect(await fs.readFile(path.join(outside.dir, "a.txt"), "utf8")).toBe("alpha\n");
        expect(await listOutside()).toEqual(["a.txt"]);
        expect(await read("sub-old/a.txt")).toBe("alpha\n");
    });

    it("refuses when the swap happens during the write, right before the rename", async () => {
        await fs.writeFile(path.join(outside.dir, "a.txt"), "alpha\n");
        let swapped = false;
        const ops: Partial<EditOperations> = {
            writeFile: async (file, data, options) => {
                if (!swapped && file.endsWith("a.txt")) {
                    swapped = true;
                    await swapForLink("sub", outside.dir);
                }
                return localEditOperations.writeFile(file, data, options);
            },
        };
        const change = await prepare(createEditReplaceExactTool({ ops }), {
            path: "sub/a.txt",
            old_text: "alpha",
            new_text: "omega",
        });
        expect(expectError(await change.apply()).code).toBe("path_outside_repo");
        expect(swapped).toBe(true);
        expect(await fs.readFile(path.join(outside.dir, "a.txt"), "utf8")).toBe("alpha\n");
        expect(await listOutside()).toEqual(["a.txt"]); // the temp file was removed too
    });

    it("refuses a new file whose folder was swapped for an outside link", async () => {
        const create = createEditCreateFileTool();
        const change = await prepare(create, { path: "sub/deep/new.txt", content: "new\n" });
        await swapForLink("sub", outside.dir);
        expect(expectError(await change.apply()).code).toBe("path_outside_repo");
        expect(await listOutside()).toEqual([]);
    });

    it("refuses when a link now leads to protected configuration (or elsewhere in the project)", async () => {
        await repo.write(".mcp.json", "{}\n");
        await fs.symlink(path.join(repo.root, "plain.json"), path.join(repo.root, "link.json"));
        const change = await prepare(replace, {
            path: "link.json",
            old_text: "{}",
            new_text: '{"mcpServers":{"x":{"command":"touch"}}}',
        });
        await fs.rm(path.join(repo.root, "link.json"));
        await fs.symlink(path.join(repo.root, ".mcp.json"), path.join(repo.root, "link.json"));
        const error = expectError(await change.apply());
        expect(error.code).toBe("file_changed");
        expect(error.message).toContain("leads somewhere else");
        expect(await read(".mcp.json")).toBe("{}\n");
        expect(await read("plain.json")).toBe("{}\n");
    });

    it("refuses when a link now leads into .git", async () => {
        await repo.write("sub/.git/config", "alpha\n");
        await fs.symlink(path.join(repo.root, "b.txt"), path.join(repo.root, "cfg"));
        await fs.writeFile(path.join(repo.root, "b.txt"), "alpha\n");
        const change = await prepare(replace, { path: "cfg", old_text: "alpha", new_text: "x" });
        await fs.rm(path.join(repo.root, "cfg"));
        await fs.symlink(path.join(repo.root, "sub/.git/config"), path.join(repo.root, "cfg"));
        expect(expectError(await change.apply()).code).toBe("path_outside_repo");
        expect(await read("sub/.git/config")).toBe("alpha\n");
    });
});

describe("apply checks the content right before the rename", () => {
    it("refuses when another writer changes the file while the new content is being written", async () => {
        const ops: Partial<EditOperations> = {
            writeFile: async (file, data, options) => {
                // Another program saves the file after the first check, before our rename.
                await fs.writeFile(file, "alpha, edited elsewhere\n");
                return localEditOperations.writeFile(file, data, options);
            },
        };
        const change = await prepare(createEditReplaceExactTool({ ops }), {
            path: "sub/a.txt",
            old_text: "alpha",
            new_text: "omega",
        });
        const error = expectError(await change.apply());
        expect(error.code).toBe("file_changed");
        expect(await read("sub/a.txt")).toBe("alpha, edited elsewhere\n");
        expect(await fs.readdir(path.join(repo.root, "sub"))).toEqual(["a.txt"]);
    });

    it("in a batch, restores the files already written when a later one fails its last check", async () => {
        const ops: Partial<EditOperations> = {
            writeFile: async (file, data, options) => {
                if (file.endsWith("b.txt") && options.beforeRename) {
                    await fs.writeFile(file, "bravo, edited elsewhere\n");
                }
                return localEditOperations.writeFile(file, data, options);
            },
        };
        const change = await prepare(createEditApplyBatchTool({ ops }), {
            edits: [
                { tool: "edit_replace_exact", path: "sub/a.txt", old_text: "alpha", new_text: "1" },
                { tool: "edit_replace_exact", path: "b.txt", old_text: "bravo", new_text: "2" },
            ],
        });
        const error = expectError(await change.apply());
        expect(error.code).toBe("file_changed");
        expect(error.message).toContain("b.txt");
        expect(error.message).toContain("No file was changed.");
        expect(await read("sub/a.txt")).toBe("alpha\n");
        expect(await read("b.txt")).toBe("bravo, edited elsewhere\n");
    });
});

describe("two applies to one file", () => {
    const replace = createEditReplaceExactTool();

    it("prepared from the same content: applied together, exactly one lands, the other is file_changed", async () => {
        for (let round = 0; round < 5; round++) {
            await repo.write("b.txt", "one two\n");
            const first = await prepare(replace, {
                path: "b.txt",
                old_text: "one",
                new_text: "ONE",
            });
            const second = await prepare(replace, {
                path: "b.txt",
                old_text: "two",
                new_text: "TWO",
            });
            const results = await Promise.all([first.apply(), second.apply()]);
            const ok = results.filter((r) => r.ok);
            expect(ok).toHaveLength(1);
            const failed = results.find((r) => !r.ok);
            expect(failed && !failed.ok ? failed.error.code : null).toBe("file_changed");
            // The applied edit is on disk, not overwritten by the refused one.
            expect(await read("b.txt")).toBe(results[0]!.ok ? "ONE two\n" : "one TWO\n");
        }
    });

    it("batches locking the same files in opposite orders both finish (no deadlock)", async () => {
        const batch = createEditApplyBatchTool();
        const ab = await prepare(batch, {
            edits: [
                { tool: "edit_replace_exact", path: "sub/a.txt", old_text: "alpha", new_text: "A" },
                { tool: "edit_replace_exact", path: "b.txt", old_text: "bravo", new_text: "B" },
            ],
        });
        const ba = await prepare(batch, {
            edits: [
                { tool: "edit_replace_exact", path: "b.txt", old_text: "bravo", new_text: "b" },
                { tool: "edit_replace_exact", path: "sub/a.txt", old_text: "alpha", new_text: "a" },
            ],
        });
        const results = await Promise.all([ab.apply(), ba.apply()]);
        expect(results.filter((r) => r.ok)).toHaveLength(1);
        const both = (await read("sub/a.txt")) + (await read("b.txt"));
        expect(["A\nB\n", "a\nb\n"]).toContain(both);
    });

    it("waits for another process's lock and gives up with file_changed, writing nothing", async () => {
        const real = path.join(repo.root, "b.txt");
        const lock = applyLockPath(real);
        locks.push(lock);
        await acquireApplyLocks([]); // creates the lock folder
        // The parent process (vitest) is alive: this plays a North process mid-apply.
        await fs.writeFile(lock, JSON.stringify({ pid: process.ppid, token: "other" }));
        const ops: Partial<EditOperations> = {
            lock: (paths) => acquireApplyLocks(paths, { timeoutMs: 150 }),
        };
        const change = await prepare(createEditReplaceExactTool({ ops }), {
            path: "b.txt",
            old_text: "bravo",
            new_text: "B",
        });
        const error = expectError(await change.apply());
        expect(error.code).toBe("file_changed");
        expect(error.message).toContain("Another North process kept b.txt busy");
        expect(await read("b.txt")).toBe("bravo\n");
        expect(JSON.parse(await fs.readFile(lock, "utf8")).token).toBe("other");
    });

    it("takes over the lock of a process that died, and removes its own lock after", async () => {
        const real = path.join(repo.root, "b.txt");
        const lock = applyLockPath(real);
        locks.push(lock);
        await acquireApplyLocks([]);
        const dead = spawnSync(process.execPath, ["-e", ""]).pid;
        await fs.writeFile(lock, JSON.stringify({ pid: dead, token: "dead" }));
        const change = await prepare(createEditReplaceExactTool(), {
            path: "b.txt",
            old_text: "bravo",
            new_text: "B",
        });
        expect((await change.apply()).ok).toBe(true);
        expect(await read("b.txt")).toBe("B\n");
        await expect(fs.stat(lock)).rejects.toThrow();
    });
});
