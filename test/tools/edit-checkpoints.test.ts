import { promises as fs, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createCheckpointStore } from "../../src/storage/checkpoints";
import { createEditApplyBatchTool } from "../../src/tools/edit-apply-batch";
import { createEditCreateFileTool } from "../../src/tools/edit-create-file";
import { createEditReplaceExactTool } from "../../src/tools/edit-replace-exact";
import { FileWriteSession } from "../../src/tools/north-file/writer";
import type {
    AnyToolDefinition,
    FileChange,
    FileCheckpointer,
    PreparedWrite,
    ToolResult,
} from "../../src/tools/types";
import { inputSchema } from "../../src/tools/tool-input";

const roots: string[] = [];
afterEach(async () => {
    for (const root of roots.splice(0)) await fs.rm(root, { recursive: true, force: true });
});

async function temp(files: Record<string, string | Buffer> = {}): Promise<string> {
    const root = realpathSync(await fs.mkdtemp(path.join(tmpdir(), "north-edit-cp-")));
    roots.push(root);
    for (const [name, content] of Object.entries(files)) {
        await fs.mkdir(path.dirname(path.join(root, name)), { recursive: true });
        await fs.writeFile(path.join(root, name), content);
    }
    return root;
}

const read = (root: string, name: string) => fs.readFile(path.join(root, name));
const exists = (root: string, name: string) =>
    fs.stat(path.join(root, name)).then(
        () => true,
        () => false
    );

/** Records what it is told, and what each file held at that moment. */
function spy(outcome: { ok: true } | { ok: false; error: string } = { ok: true }) {
    const calls: Array<{ changes: FileChange[]; onDisk: Array<Buffer | null> }> = [];
    const checkpoint: FileCheckpointer = {
        async record(changes) {
            const onDisk = await Promise.all(
                changes.map((c) => fs.readFile(c.path).catch(() => null))
            );
            calls.push({ changes: [...changes], onDisk });
            return outcome;
        },
    };
    return { checkpoint, calls };
}

async function prepare(
    tool: AnyToolDefinition,
    root: string,
    input: unknown,
    checkpoint?: FileCheckpointer
): Promise<PreparedWrite> {
    const parsed = inputSchema(tool.input).safeParse(input);
    if (!parsed.success) throw new Error(parsed.error.message);
    const result = (await tool.execute(parsed.data, {
        repoRoot: root,
        signal: new AbortController().signal,
        checkpoint,
    })) as ToolResult<PreparedWrite>;
    if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
    return result.data;
}

const replace = createEditReplaceExactTool();
const batch = createEditApplyBatchTool();
const create = createEditCreateFileTool();

describe("edit tools record a checkpoint before writing", () => {
    it("an edit records real path, relative path and the exact bytes before and after, while the file still holds the old ones", async () => {
        const original = Buffer.from("\uFEFFa = 1\r\nb = 2\r\n", "utf8");
        const root = await temp({ "src/app.ts": original });
        const { checkpoint, calls } = spy();
        const change = await prepare(
            replace,
            root,
            { path: "src/app.ts", old_text: "b = 2", new_text: "b = 3" },
            checkpoint
        );
        expect((await change.apply()).ok).toBe(true);
        expect(calls).toHaveLength(1);
        const [c] = calls[0]!.changes;
        expect(c!.path).toBe(path.join(root, "src/app.ts"));
        expect(c!.relPath).toBe("src/app.ts");
        expect(c!.before!.equals(original)).toBe(true);
        expect(c!.after!.equals(await read(root, "src/app.ts"))).toBe(true);
        expect(calls[0]!.onDisk[0]!.equals(original)).toBe(true);
    });

    it("a batch over 3 files is one record with all of them; a new file's before is null", async () => {
        const root = await temp({ "a.ts": "a\n", "b.ts": "b\n" });
        const { checkpoint, calls } = spy();
        const change = await prepare(
            batch,
            root,
            {
                edits: [
                    { tool: "edit_replace_exact", path: "a.ts", old_text: "a", new_text: "A" },
                    { tool: "edit_replace_exact", path: "b.ts", old_text: "b", new_text: "B" },
                    { tool: "edit_create_file", path: "dir/c.ts", content: "c\n" },
                ],
            },
            checkpoint
        );
        expect((await change.apply()).ok).toBe(true);
        expect(calls).toHaveLength(1);
        expect(calls[0]!.changes.map((c) => [c.relPath, c.before?.toString() ?? null])).toEqual([
            ["a.ts", "a\n"],
            ["b.ts", "b\n"],
            ["dir/c.ts", null],
        ]);
    });

    it("a file changed since prepare is refused before anything is recorded", async () => {
        const root = await temp({ "a.ts": "a\n" });
        const { checkpoint, calls } = spy();
        const change = await prepare(
            replace,
            root,
            { path: "a.ts", old_text: "a", new_text: "A" },
            checkpoint
        );
        await fs.writeFile(path.join(root, "a.ts"), "someone else\n");
        const result = await change.apply();
        expect(result.ok || result.error.code).toBe("file_changed");
        expect(calls).toHaveLength(0);
    });

    it("when the checkpoint cannot be saved, the edit is refused and the file unchanged", async () => {
        const root = await temp({ "a.ts": "a\n" });
        const { checkpoint } = spy({ ok: false, error: "the disk is full: ENOSPC" });
        const change = await prepare(
            replace,
            root,
            { path: "a.ts", old_text: "a", new_text: "A" },
            checkpoint
        );
        const result = await change.apply();
        expect(result.ok).toBe(false);
        if (!result.ok) {
            expect(result.error.code).toBe("checkpoint_failed");
            expect(result.error.message).toMatch(
                /^Could not save a checkpoint of a\.ts \(the disk is full: ENOSPC\); nothing was changed: North does not change a file it could not restore\./
            );
        }
        expect((await read(root, "a.ts")).toString()).toBe("a\n");
    });

    it("a refused checkpoint stops a file creation too: nothing is created", async () => {
        const root = await temp();
        const { checkpoint } = spy({ ok: false, error: "read-only file system" });
        const change = await prepare(
            create,
            root,
            { path: "new/x.ts", content: "x\n" },
            checkpoint
        );
        expect((await change.apply()).ok).toBe(false);
        expect(await exists(root, "new")).toBe(false);
    });

    it("through a real store on a full disk: refused, unchanged, and the message says why", async () => {
        const root = await temp({ "a.ts": "a\n" });
        const data = await temp();
        const store = createCheckpointStore(path.join(data, "checkpoints"), {
            autoPrune: false,
            fs: {
                writeFile: async () => {
                    throw Object.assign(new Error("ENOSPC: no space left on device"), {
                        code: "ENOSPC",
                    });
                },
            },
        });
        const checkpoint = store.forConversation("abc123").checkpointer(() => "p1");
        const change = await prepare(
            replace,
            root,
            { path: "a.ts", old_text: "a", new_text: "A" },
            checkpoint
        );
        const result = await change.apply();
        expect(!result.ok && result.error.message).toMatch(/the disk is full/);
        expect((await read(root, "a.ts")).toString()).toBe("a\n");
    });

    it("edit, create and batch through a real store rewind to the exact bytes", async () => {
        const crlf = Buffer.from("one\r\ntwo\r\n");
        const root = await temp({ "crlf.txt": crlf, "b.ts": "b\n", "c.ts": "c\n" });
        const data = await temp();
        const conv = createCheckpointStore(path.join(data, "checkpoints"), {
            autoPrune: false,
        }).forConversation("abc123");
        let prompt = "p1";
        const checkpoint = conv.checkpointer(() => prompt);
        const apply = async (tool: AnyToolDefinition, input: unknown) =>
            expect((await (await prepare(tool, root, input, checkpoint)).apply()).ok).toBe(true);
        await apply(replace, { path: "crlf.txt", old_text: "two", new_text: "2" });
        prompt = "p2";
        await apply(create, { path: "new.ts", content: "new\n" });
        await apply(batch, {
            edits: [
                { tool: "edit_replace_exact", path: "crlf.txt", old_text: "one", new_text: "1" },
                { tool: "edit_replace_exact", path: "b.ts", old_text: "b", new_text: "B" },
                { tool: "edit_replace_exact", path: "c.ts", old_text: "c", new_text: "C" },
            ],
        });
        const planned = await conv.planRestore(["p1", "p2"], root);
        if (!planned.ok) throw new Error(planned.error);
        const outcome = await conv.applyRestore(planned.plan, { includeChanged: false });
        expect(outcome.ok && outcome.report.skipped).toEqual([]);
        expect((await read(root, "crlf.txt")).equals(crlf)).toBe(true);
        expect((await read(root, "b.ts")).toString()).toBe("b\n");
        expect((await read(root, "c.ts")).toString()).toBe("c\n");
        expect(await exists(root, "new.ts")).toBe(false);
    });
});

describe("NORTH_FILE records a checkpoint before the rename", () => {
    async function block(root: string, file: string, text: string, checkpoint: FileCheckpointer) {
        const started = await FileWriteSession.start(root, file, "create", { checkpoint });
        if (!started.ok) throw new Error(started.error.message);
        started.data.write(text);
        const completed = await started.data.complete();
        if (!completed.ok) throw new Error(completed.error.message);
        return completed.data;
    }

    it("records the target's bytes and the sidecar's final bytes, then renames", async () => {
        const root = await temp({ "big.txt": "old\r\n" });
        const { checkpoint, calls } = spy();
        const change = await block(root, "big.txt", "new 1\nnew 2\n", checkpoint);
        expect((await change.apply()).ok).toBe(true);
        const [c] = calls[0]!.changes;
        expect(c!.before!.toString()).toBe("old\r\n");
        expect(c!.after!.toString()).toBe("new 1\r\nnew 2\r\n");
        expect(c!.after!.equals(await read(root, "big.txt"))).toBe(true);
        expect(calls[0]!.onDisk[0]!.toString()).toBe("old\r\n");
    });

    it("when the checkpoint fails, the target keeps its bytes and the sidecar is removed", async () => {
        const root = await temp({ "big.txt": "old\n" });
        const { checkpoint } = spy({ ok: false, error: "the disk is full: ENOSPC" });
        const change = await block(root, "big.txt", "new\n", checkpoint);
        const result = await change.apply();
        expect(!result.ok && result.error.message).toMatch(
            /^Could not save a checkpoint of big\.txt \(the disk is full: ENOSPC\); nothing was changed/
        );
        expect((await read(root, "big.txt")).toString()).toBe("old\n");
        expect(await fs.readdir(root)).toEqual(["big.txt"]);
    });
});
