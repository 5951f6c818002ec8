import { promises as fs, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { NorthFileEvent } from "../../src/tools/north-file/stream";
import { NorthFileStream } from "../../src/tools/north-file/stream";
import { continuationPrompt, FileWriteSession } from "../../src/tools/north-file/writer";
import type { PreparedWrite } from "../../src/tools/types";

const roots: string[] = [];

async function repo(files: Record<string, string | Buffer> = {}): Promise<string> {
    const root = realpathSync(await fs.mkdtemp(path.join(tmpdir(), "north-nf-")));
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

const read = (root: string, name: string) => fs.readFile(path.join(root, name), "utf8");
const exists = (root: string, name: string) =>
    fs.stat(path.join(root, name)).then(
        () => true,
        () => false
    );

async function session(root: string, file: string, mode: "create" | "append" = "create") {
    const started = await FileWriteSession.start(root, file, mode);
    if (!started.ok) throw new Error(started.error.message);
    return started.data;
}

async function complete(s: FileWriteSession): Promise<PreparedWrite> {
    const result = await s.complete();
    if (!result.ok) throw new Error(result.error.message);
    return result.data;
}

describe("FileWriteSession", () => {
    it("writes to disk while streaming and reviews the new file", async () => {
        const root = await repo();
        const s = await session(root, "new/dir/a.ts");
        s.write("line 1\nline ");
        await s.flush();
        expect(await read(root, "new/dir/a.ts")).toBe("line 1\nline ");
        s.write("2\n");
        const prepared = await complete(s);
        expect(prepared.summary).toBe("Creating new/dir/a.ts");
        expect(prepared.diffs[0]).toMatchObject({
            isNewFile: true,
            linesAdded: 2,
            linesRemoved: 0,
        });
        expect(await prepared.apply()).toEqual({
            ok: true,
            data: {
                applied: true,
                files: [{ path: "new/dir/a.ts", linesAdded: 2, linesRemoved: 0 }],
            },
        });
        expect(await read(root, "new/dir/a.ts")).toBe("line 1\nline 2\n");
    });

    it("discard deletes a new file and the directories it created", async () => {
        const root = await repo({ "keep/x.txt": "x" });
        const s = await session(root, "keep/made/deeper/a.ts");
        s.write("content\n");
        const prepared = await complete(s);
        await prepared.discard?.();
        expect(await exists(root, "keep/made")).toBe(false);
        expect(await exists(root, "keep/x.txt")).toBe(true);
    });

    it("discard restores an overwritten file and its mode", async () => {
        const root = await repo({ "a.sh": "old content\n" });
        await fs.chmod(path.join(root, "a.sh"), 0o755);
        const s = await session(root, "a.sh");
        s.write("new content\n");
        const prepared = await complete(s);
        expect(prepared.summary).toBe("Editing a.sh");
        expect(prepared.diffs[0]?.diff).toContain("-old content\n+new content");
        expect(await read(root, "a.sh")).toBe("new content\n");
        await prepared.discard?.();
        expect(await read(root, "a.sh")).toBe("old content\n");
        expect((await fs.stat(path.join(root, "a.sh"))).mode & 0o777).toBe(0o755);
    });

    it("refuses a path outside the project and writes nothing", async () => {
        const outside = await repo();
        const root = await repo();
        await fs.symlink(outside, path.join(root, "escape"));
        for (const bad of ["../evil.ts", path.join(outside, "abs.ts"), "escape/evil.ts"]) {
            const started = await FileWriteSession.start(root, bad, "create");
            expect(started.ok ? null : started.error.code).toBe("path_outside_repo");
        }
        expect(await fs.readdir(outside)).toEqual([]);
    });

    it("refuses a hard-linked file, which an in-place write would change under its other name", async () => {
        const outside = await repo({ bashrc: "safe\n" });
        const root = await repo();
        await fs.link(path.join(outside, "bashrc"), path.join(root, "linked"));
        const started = await FileWriteSession.start(root, "linked", "create");
        expect(started.ok ? null : started.error.code).toBe("invalid_path");
        expect(await read(outside, "bashrc")).toBe("safe\n");
    });

    it("refuses a directory", async () => {
        const root = await repo({ "d/x": "" });
        const started = await FileWriteSession.start(root, "d", "create");
        expect(started.ok ? null : started.error.code).toBe("not_a_file");
    });

    it("counts lines and keeps a 30-line trailing window", async () => {
        const root = await repo();
        const s = await session(root, "long.txt");
        for (let i = 1; i <= 5000; i++) s.write(`row ${i}\n`);
        s.write("partial");
        const info = s.getResumeInfo();
        expect(info.linesWritten).toBe(5001);
        expect(info.endsMidLine).toBe(true);
        expect(info.trailingLines).toHaveLength(30);
        expect(info.trailingLines[0]).toBe("row 4972");
        expect(info.trailingLines[29]).toBe("partial");
        const prompt = continuationPrompt(info);
        expect(prompt).toContain('<NORTH_FILE path="long.txt" mode="append">');
        expect(prompt).toContain("after 5001 lines");
    });

    it("keeps a CRLF file's line endings and a BOM when overwriting", async () => {
        const bom = Buffer.from([0xef, 0xbb, 0xbf]);
        const root = await repo({ "w.txt": Buffer.concat([bom, Buffer.from("a\r\nb\r\n")]) });
        const s = await session(root, "w.txt");
        s.write("x\ny\r");
        s.write("\nz\n");
        await complete(s);
        const bytes = await fs.readFile(path.join(root, "w.txt"));
        expect(bytes).toEqual(Buffer.concat([bom, Buffer.from("x\r\ny\r\nz\r\n")]));
    });

    it("appends to an existing file and counts its lines", async () => {
        const root = await repo({ "log.txt": "one\ntwo\n" });
        const s = await session(root, "log.txt", "append");
        expect(s.getResumeInfo().linesWritten).toBe(2);
        s.write("three\n");
        const prepared = await complete(s);
        expect(await read(root, "log.txt")).toBe("one\ntwo\nthree\n");
        expect(prepared.diffs[0]).toMatchObject({ linesAdded: 1, linesRemoved: 0 });
        await prepared.discard?.();
        expect(await read(root, "log.txt")).toBe("one\ntwo\n");
    });
});

async function feed(stream: NorthFileStream, text: string, size = 7): Promise<NorthFileEvent[]> {
    const events: NorthFileEvent[] = [];
    for (let i = 0; i < text.length; i += size)
        events.push(...(await stream.push(text.slice(i, i + size))));
    return events;
}

describe("NorthFileStream", () => {
    it("writes a block, shows only the surrounding text, and hands over a review", async () => {
        const root = await repo();
        const stream = new NorthFileStream(root);
        const events = [
            ...(await feed(
                stream,
                'Creating it.\n<NORTH_FILE path="src/x.ts">\nexport const x = 1;\n</NORTH_FILE>\nDone.'
            )),
            ...(await stream.end()),
        ];
        const shown = events.flatMap((e) => (e.type === "display_text" ? [e.text] : [])).join("");
        expect(shown).toBe("Creating it.\nDone.");
        expect(events.some((e) => e.type === "file_started" && e.path === "src/x.ts")).toBe(true);
        expect(events.some((e) => e.type === "file_progress")).toBe(true);
        const done = events.find((e) => e.type === "file_completed");
        expect(done?.type === "file_completed" && done.linesWritten).toBe(1);
        expect(await read(root, "src/x.ts")).toBe("export const x = 1;\n");
    });

    it("reports a path outside the project and swallows the block", async () => {
        const root = await repo();
        const stream = new NorthFileStream(root);
        const events = await feed(
            stream,
            '<NORTH_FILE path="../../etc/evil">\nbad\n</NORTH_FILE>\nafter'
        );
        events.push(...(await stream.end()));
        expect(
            events
                .filter((e) => e.type === "file_error")
                .map((e) => e.type === "file_error" && e.error.code)
        ).toEqual(["path_outside_repo"]);
        expect(events.some((e) => e.type === "file_completed")).toBe(false);
        expect(events.flatMap((e) => (e.type === "display_text" ? [e.text] : [])).join("")).toBe(
            "after"
        );
        expect(await fs.readdir(root)).toEqual([]);
    });

    it("keeps a never-closed block's partial file and continues it with mode=append", async () => {
        const root = await repo();
        const stream = new NorthFileStream(root);
        await feed(stream, '<NORTH_FILE path="big.py">\ndef a():\n    return 1\n\ndef b(');
        const ended = await stream.end();
        const interrupted = ended.find((e) => e.type === "file_interrupted");
        expect(interrupted?.type === "file_interrupted" && interrupted.resume).toMatchObject({
            path: "big.py",
            linesWritten: 4,
            endsMidLine: true,
        });
        expect(await read(root, "big.py")).toBe("def a():\n    return 1\n\ndef b(");
        expect(stream.pending().map((p) => p.path)).toEqual(["big.py"]);

        const events = await feed(
            stream,
            '<NORTH_FILE path="big.py" mode="append">):\n    return 2\n</NORTH_FILE>'
        );
        const done = events.find((e) => e.type === "file_completed");
        expect(done?.type).toBe("file_completed");
        expect(await read(root, "big.py")).toBe(
            "def a():\n    return 1\n\ndef b():\n    return 2\n"
        );
        expect(stream.pending()).toEqual([]);
        // Rejecting the review deletes the file the whole session created.
        if (done?.type === "file_completed") await done.prepared.discard?.();
        expect(await exists(root, "big.py")).toBe(false);
    });

    it("a new create block after a cut-off one starts over but still restores the original", async () => {
        const root = await repo({ "cfg.txt": "original\n" });
        const stream = new NorthFileStream(root);
        await feed(stream, '<NORTH_FILE path="cfg.txt">\nhalf wri');
        await stream.end();
        expect(await read(root, "cfg.txt")).toBe("half wri");
        const events = await feed(stream, '<NORTH_FILE path="cfg.txt">\nfull\n</NORTH_FILE>');
        const done = events.find((e) => e.type === "file_completed");
        expect(await read(root, "cfg.txt")).toBe("full\n");
        expect(done?.type === "file_completed" && done.prepared.diffs[0]?.diff).toContain(
            "-original\n+full"
        );
        if (done?.type === "file_completed") await done.prepared.discard?.();
        expect(await read(root, "cfg.txt")).toBe("original\n");
    });

    it("keeps the partial file when continuation is abandoned", async () => {
        const root = await repo();
        const stream = new NorthFileStream(root);
        await feed(stream, '<NORTH_FILE path="p.txt">\npartial\n');
        await stream.end();
        stream.abandon("p.txt");
        expect(stream.pending()).toEqual([]);
        expect(await read(root, "p.txt")).toBe("partial\n");
    });
});
