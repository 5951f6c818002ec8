import { promises as fs, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createCheckpointStore } from "../../src/storage/checkpoints";
import type { ClientFiles } from "../../src/tools/client-workspace";
import { createEditTools, createReadTools } from "../../src/tools/index";
import { CLIENT_FILE_MAX_BYTES } from "../../src/tools/limits";
import { FileWriteSession } from "../../src/tools/north-file/writer";
import { inputSchema } from "../../src/tools/tool-input";
import type {
    AnyToolDefinition,
    FileChange,
    FileCheckpointer,
    PreparedWrite,
    ToolContext,
    ToolResult,
} from "../../src/tools/types";

const roots: string[] = [];
afterEach(async () => {
    for (const root of roots.splice(0)) await fs.rm(root, { recursive: true, force: true });
});

async function temp(files: Record<string, string | Buffer> = {}): Promise<string> {
    const root = realpathSync(await fs.mkdtemp(path.join(tmpdir(), "north-client-files-")));
    roots.push(root);
    for (const [name, content] of Object.entries(files)) {
        await fs.mkdir(path.dirname(path.join(root, name)), { recursive: true });
        await fs.writeFile(path.join(root, name), content);
    }
    return root;
}

/**
 * An editor: open buffers (unsaved text) by absolute path, else the disk; a
 * write replaces the buffer and saves it, as Zed does. Every call is logged.
 */
function fakeEditor(buffers: Record<string, string> = {}, failWith?: string) {
    const open = new Map(Object.entries(buffers));
    const calls: Array<{ op: "read" | "write"; path: string; text?: string }> = [];
    const files: ClientFiles = {
        async read(absPath) {
            calls.push({ op: "read", path: absPath });
            if (failWith) throw new Error(failWith);
            return open.get(absPath) ?? (await fs.readFile(absPath, "utf8"));
        },
        async write(absPath, text) {
            calls.push({ op: "write", path: absPath, text });
            if (failWith) throw new Error(failWith);
            open.set(absPath, text);
            await fs.writeFile(absPath, text);
        },
    };
    return { files, calls, open };
}

function tool(tools: AnyToolDefinition[], name: string): AnyToolDefinition {
    const found = tools.find((t) => t.name === name);
    if (!found) throw new Error(`no tool ${name}`);
    return found;
}

async function call<T>(
    definition: AnyToolDefinition,
    root: string,
    input: unknown,
    extra: Partial<ToolContext> = {}
): Promise<ToolResult<T>> {
    const parsed = inputSchema(definition.input).safeParse(input);
    if (!parsed.success) throw new Error(parsed.error.message);
    return (await definition.execute(parsed.data, {
        repoRoot: root,
        signal: new AbortController().signal,
        ...extra,
    })) as ToolResult<T>;
}

async function prepared(
    definition: AnyToolDefinition,
    root: string,
    input: unknown,
    checkpoint?: FileCheckpointer
): Promise<PreparedWrite> {
    const result = await call<PreparedWrite>(definition, root, input, { checkpoint });
    if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
    return result.data;
}

describe("reading through the editor", () => {
    it("read_file and read_around show the editor's unsaved buffer, not the disk", async () => {
        const root = await temp({ "src/a.ts": "const saved = 1;\n" });
        const editor = fakeEditor({
            [path.join(root, "src/a.ts")]: "const unsaved = 2;\nline two\n",
        });
        const tools = createReadTools({ files: editor.files });
        const read = await call<{ content: string; totalLines: number }>(
            tool(tools, "read_file"),
            root,
            { path: "src/a.ts" }
        );
        expect(read.ok && read.data.content).toContain("const unsaved = 2;");
        expect(read.ok && read.data.totalLines).toBe(2);
        const around = await call<{ content: string }>(tool(tools, "read_around"), root, {
            path: "src/a.ts",
            anchor: "line two",
        });
        expect(around.ok && JSON.stringify(around.data)).toContain("const unsaved = 2;");
        expect(editor.calls.map((c) => c.op)).toEqual(["read", "read"]);
    });

    it("searches and outlines still read the disk", async () => {
        const root = await temp({ "a.ts": "export const saved = 1;\n" });
        const editor = fakeEditor({ [path.join(root, "a.ts")]: "export const unsaved = 2;\n" });
        const tools = createReadTools({ files: editor.files, search: { ripgrepPath: null } });
        const found = await call(tool(tools, "search_text"), root, { query: "saved" });
        expect(JSON.stringify(found)).toContain("saved = 1");
        expect(editor.calls).toEqual([]);
    });

    it("a path outside the project, or a link leading out, is refused without asking the editor", async () => {
        const outside = await temp({ "secret.txt": "outside\n" });
        const root = await temp({ "in.txt": "in\n" });
        await fs.symlink(path.join(outside, "secret.txt"), path.join(root, "link.txt"));
        const editor = fakeEditor();
        const read = tool(createReadTools({ files: editor.files }), "read_file");
        const out = await call(read, root, { path: path.join(outside, "secret.txt") });
        const link = await call(read, root, { path: "link.txt" });
        const up = await call(read, root, { path: "../secret.txt" });
        for (const result of [out, link, up]) expect(result.ok).toBe(false);
        expect(editor.calls).toEqual([]);
    });

    it("a path a Read deny rule covers is refused without asking the editor", async () => {
        const root = await temp({ ".env": "KEY=1\n" });
        const editor = fakeEditor();
        const denied = path.join(root, ".env");
        const result = await call(
            tool(createReadTools({ files: editor.files }), "read_file"),
            root,
            {
                path: ".env",
            },
            { readDenial: (p) => (p === denied ? "Read(.env)" : undefined) }
        );
        expect(!result.ok && result.error.message).toMatch(/Read\(\.env\)/);
        expect(editor.calls).toEqual([]);
    });

    it("a binary file is refused from its disk bytes; the editor is never asked", async () => {
        const root = await temp({ "blob.bin": Buffer.from([1, 0, 2, 3]) });
        const editor = fakeEditor();
        const tools = createReadTools({ files: editor.files });
        const read = await call(tool(tools, "read_file"), root, { path: "blob.bin" });
        const around = await call(tool(tools, "read_around"), root, {
            path: "blob.bin",
            anchor: "x",
        });
        const edit = await call(tool(createEditTools(editor.files), "edit_replace_exact"), root, {
            path: "blob.bin",
            old_text: "x",
            new_text: "y",
        });
        expect(!read.ok && read.error.code).toBe("binary_file");
        expect(!around.ok && around.error.code).toBe("binary_file");
        expect(!edit.ok && edit.error.code).toBe("binary_file");
        expect(editor.calls).toEqual([]);
    });

    it("a file over the editor's size cap is read from the disk, not sent through the editor", async () => {
        const root = await temp();
        const big = path.join(root, "big.log");
        const body = Buffer.alloc(CLIENT_FILE_MAX_BYTES + 1, "log line\n");
        await fs.writeFile(big, Buffer.concat([Buffer.from("first line\n"), body]));
        const editor = fakeEditor();
        const result = await call<{ content: string }>(
            tool(createReadTools({ files: editor.files }), "read_file"),
            root,
            { path: "big.log", range: { start: 1, end: 1 } }
        );
        expect(result.ok && result.data.content).toContain("first line");
        expect(editor.calls).toEqual([]);
    });

    it("the editor's failure is a clear tool error", async () => {
        const root = await temp({ "a.ts": "a\n" });
        const editor = fakeEditor({}, "buffer is locked");
        const read = await call(tool(createReadTools({ files: editor.files }), "read_file"), root, {
            path: "a.ts",
        });
        expect(!read.ok && read.error.message).toBe(
            "Cannot read a.ts: the editor could not read it: buffer is locked"
        );
    });
});

describe("editing through the editor", () => {
    it("prepares from the buffer, writes through the editor, and the checkpoint holds the editor's old text; rewind restores it", async () => {
        const root = await temp({ "a.ts": "const a = 1;\n" });
        const abs = path.join(root, "a.ts");
        const editor = fakeEditor({ [abs]: "const a = 1;\nconst unsaved = 2;\n" });
        const data = await temp();
        const conv = createCheckpointStore(path.join(data, "checkpoints"), {
            autoPrune: false,
        }).forConversation("conv1");
        const checkpoint = conv.checkpointer(() => "p1");
        const edit = tool(createEditTools(editor.files), "edit_replace_exact");
        const change = await prepared(
            edit,
            root,
            { path: "a.ts", old_text: "const unsaved = 2;", new_text: "const edited = 3;" },
            checkpoint
        );
        expect(change.diffs[0]!.linesAdded).toBe(1);
        expect((await change.apply()).ok).toBe(true);
        const writes = editor.calls.filter((c) => c.op === "write");
        expect(writes).toEqual([
            { op: "write", path: abs, text: "const a = 1;\nconst edited = 3;\n" },
        ]);
        const planned = await conv.planRestore(["p1"], root);
        if (!planned.ok) throw new Error(planned.error);
        const outcome = await conv.applyRestore(planned.plan, { includeChanged: false });
        expect(outcome.ok && outcome.report.skipped).toEqual([]);
        expect(await fs.readFile(abs, "utf8")).toBe("const a = 1;\nconst unsaved = 2;\n");
    });

    it("an edit whose buffer changed after the review is refused and nothing is written", async () => {
        const root = await temp({ "a.ts": "one\n" });
        const abs = path.join(root, "a.ts");
        const editor = fakeEditor({ [abs]: "one\ntwo\n" });
        const change = await prepared(
            tool(createEditTools(editor.files), "edit_replace_exact"),
            root,
            {
                path: "a.ts",
                old_text: "two",
                new_text: "2",
            }
        );
        editor.open.set(abs, "one\ntwo\nthree (typed meanwhile)\n");
        const result = await change.apply();
        expect(!result.ok && result.error.code).toBe("file_changed");
        expect(editor.calls.some((c) => c.op === "write")).toBe(false);
        expect(await fs.readFile(abs, "utf8")).toBe("one\n");
    });

    it("a new file is created through the editor; a failed editor write is a tool error with nothing written", async () => {
        const root = await temp();
        const editor = fakeEditor();
        const create = tool(createEditTools(editor.files), "edit_create_file");
        const made = await prepared(create, root, { path: "dir/new.ts", content: "new\n" });
        expect((await made.apply()).ok).toBe(true);
        expect(editor.calls).toEqual([
            { op: "write", path: path.join(root, "dir/new.ts"), text: "new\n" },
        ]);

        const failing = fakeEditor({}, "read-only buffer");
        const again = tool(createEditTools(failing.files), "edit_create_file");
        const refused = await (
            await prepared(again, root, { path: "other.ts", content: "x\n" })
        ).apply();
        expect(!refused.ok && refused.error.message).toMatch(
            /^Could not write other\.ts: the editor could not write it: read-only buffer/
        );
        await expect(fs.stat(path.join(root, "other.ts"))).rejects.toThrow();
    });
});

describe("NORTH_FILE blocks through the editor", () => {
    it("start from the editor's text, write the accepted content through it, and leave no sidecar", async () => {
        const root = await temp({ "big.txt": "saved\n" });
        const abs = path.join(root, "big.txt");
        const editor = fakeEditor({ [abs]: "unsaved\n" });
        const recorded: FileChange[] = [];
        const checkpoint: FileCheckpointer = {
            record: (changes) => {
                recorded.push(...changes);
                return Promise.resolve({ ok: true });
            },
        };
        const started = await FileWriteSession.start(root, "big.txt", "append", {
            checkpoint,
            files: editor.files,
        });
        if (!started.ok) throw new Error(started.error.message);
        started.data.write("appended\n");
        const completed = await started.data.complete();
        if (!completed.ok) throw new Error(completed.error.message);
        expect(completed.data.diffs[0]!.linesAdded).toBe(1);
        expect((await completed.data.apply()).ok).toBe(true);
        expect(editor.calls.filter((c) => c.op === "write")).toEqual([
            { op: "write", path: abs, text: "unsaved\nappended\n" },
        ]);
        expect(recorded[0]!.before!.toString()).toBe("unsaved\n");
        expect(await fs.readdir(root)).toEqual(["big.txt"]);
    });
});
