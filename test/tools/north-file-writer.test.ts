import { promises as fs, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { NorthFileEvent } from "../../src/tools/north-file/stream";
import { NorthFileStream } from "../../src/tools/north-file/stream";
import { continuationPrompt, FileWriteSession } from "../../src/tools/north-file/writer";
import type { PreparedWrite } from "../../src/tools/types";
import { failingSidecar } from "./north-file-fixtures";

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
/** Every file under `root`, sidecars included. */
async function tree(root: string): Promise<string[]> {
    const entries = await fs.readdir(root, { recursive: true, withFileTypes: true });
    return entries
        .filter((e) => e.isFile())
        .map((e) => path.relative(root, path.join(e.parentPath, e.name)))
        .sort();
}
const SIDECAR = /^\.(.+)\.north-(\d+)-[0-9a-f]{8}\.partial$/;
const sidecars = async (root: string) =>
    (await tree(root)).filter((f) => SIDECAR.test(path.basename(f)));

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
    it("streams into a sidecar next to the target and creates the file only on apply", async () => {
        const root = await repo();
        const s = await session(root, "new/dir/a.ts");
        s.write("line 1\nline ");
        await s.flush();
        expect(await exists(root, "new/dir/a.ts")).toBe(false);
        const [sidecar] = await sidecars(root);
        expect(path.dirname(sidecar!)).toBe(path.join("new", "dir"));
        expect(SIDECAR.exec(path.basename(sidecar!))?.slice(1, 3)).toEqual([
            "a.ts",
            String(process.pid),
        ]);
        expect(await read(root, sidecar!)).toBe("line 1\nline ");
        s.write("2\n");
        const prepared = await complete(s);
        expect(prepared.summary).toBe("Creating new/dir/a.ts");
        expect(prepared.diffs[0]).toMatchObject({
            isNewFile: true,
            linesAdded: 2,
            linesRemoved: 0,
        });
        expect(await exists(root, "new/dir/a.ts")).toBe(false);
        expect(await prepared.apply()).toEqual({
            ok: true,
            data: {
                applied: true,
                files: [{ path: "new/dir/a.ts", linesAdded: 2, linesRemoved: 0 }],
            },
        });
        expect(await tree(root)).toEqual([path.join("new", "dir", "a.ts")]);
        expect(await read(root, "new/dir/a.ts")).toBe("line 1\nline 2\n");
    });

    it("discard deletes the sidecar and the directories it created", async () => {
        const root = await repo({ "keep/x.txt": "x" });
        const s = await session(root, "keep/made/deeper/a.ts");
        s.write("content\n");
        const prepared = await complete(s);
        await prepared.discard?.();
        expect(await exists(root, "keep/made")).toBe(false);
        expect(await tree(root)).toEqual([path.join("keep", "x.txt")]);
    });

    it("never touches an existing file before apply, then replaces it keeping its mode", async () => {
        const root = await repo({ "a.sh": "old content\n" });
        await fs.chmod(path.join(root, "a.sh"), 0o755);
        const s = await session(root, "a.sh");
        s.write("new content\n");
        await s.flush();
        expect(await read(root, "a.sh")).toBe("old content\n");
        const prepared = await complete(s);
        expect(prepared.summary).toBe("Editing a.sh");
        expect(prepared.diffs[0]?.diff).toContain("-old content\n+new content");
        expect(await read(root, "a.sh")).toBe("old content\n");
        expect((await prepared.apply()).ok).toBe(true);
        expect(await read(root, "a.sh")).toBe("new content\n");
        expect((await fs.stat(path.join(root, "a.sh"))).mode & 0o777).toBe(0o755);
        expect(await tree(root)).toEqual(["a.sh"]);
    });

    it("discard leaves an existing file byte-identical and removes the sidecar", async () => {
        const root = await repo({ "a.txt": "keep me\n" });
        const s = await session(root, "a.txt");
        s.write("replacement\n");
        await (await complete(s)).discard?.();
        expect(await read(root, "a.txt")).toBe("keep me\n");
        expect(await tree(root)).toEqual(["a.txt"]);
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

    it("never changes a hard link's other name: the rename replaces only this one", async () => {
        const outside = await repo({ bashrc: "safe\n" });
        const root = await repo();
        await fs.link(path.join(outside, "bashrc"), path.join(root, "linked"));
        const s = await session(root, "linked");
        s.write("changed\n");
        expect((await (await complete(s)).apply()).ok).toBe(true);
        expect(await read(root, "linked")).toBe("changed\n");
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
        await s.discard();
    });

    it("keeps a CRLF file's line endings and a BOM when overwriting", async () => {
        const bom = Buffer.from([0xef, 0xbb, 0xbf]);
        const root = await repo({ "w.txt": Buffer.concat([bom, Buffer.from("a\r\nb\r\n")]) });
        const s = await session(root, "w.txt");
        s.write("x\ny\r");
        s.write("\nz\n");
        expect((await (await complete(s)).apply()).ok).toBe(true);
        const bytes = await fs.readFile(path.join(root, "w.txt"));
        expect(bytes).toEqual(Buffer.concat([bom, Buffer.from("x\r\ny\r\nz\r\n")]));
    });

    it("appends to a copy of an existing file and counts its lines", async () => {
        const root = await repo({ "log.txt": "one\ntwo\n" });
        const s = await session(root, "log.txt", "append");
        expect(s.getResumeInfo().linesWritten).toBe(2);
        s.write("three\n");
        const prepared = await complete(s);
        expect(await read(root, "log.txt")).toBe("one\ntwo\n");
        expect(prepared.diffs[0]).toMatchObject({ linesAdded: 1, linesRemoved: 0 });
        await prepared.discard?.();
        expect(await tree(root)).toEqual(["log.txt"]);
        const again = await session(root, "log.txt", "append");
        again.write("three\n");
        expect((await (await complete(again)).apply()).ok).toBe(true);
        expect(await read(root, "log.txt")).toBe("one\ntwo\nthree\n");
    });

    it("refuses to apply over a file that changed while the block was written", async () => {
        const root = await repo({ "c.txt": "v1\n" });
        const s = await session(root, "c.txt");
        s.write("from the model\n");
        const prepared = await complete(s);
        await fs.writeFile(path.join(root, "c.txt"), "v2 by the user\n");
        const applied = await prepared.apply();
        expect(applied.ok ? null : applied.error.code).toBe("file_changed");
        expect(applied.ok ? "" : applied.error.message).toContain("changed on disk");
        expect(await read(root, "c.txt")).toBe("v2 by the user\n");
        expect(await tree(root)).toEqual(["c.txt"]);
    });

    it("refuses to apply a new file that something else created meanwhile", async () => {
        const root = await repo();
        const s = await session(root, "n.txt");
        s.write("model\n");
        const prepared = await complete(s);
        await fs.writeFile(path.join(root, "n.txt"), "user\n");
        const applied = await prepared.apply();
        expect(applied.ok ? null : applied.error.code).toBe("file_changed");
        expect(await read(root, "n.txt")).toBe("user\n");
        expect(await tree(root)).toEqual(["n.txt"]);
    });

    it("refuses to apply when a directory on the path became a link leading out", async () => {
        const outside = await repo({ "a.txt": "outside\n" });
        const root = await repo({ "sub/a.txt": "inside\n" });
        const s = await session(root, "sub/a.txt");
        s.write("model\n");
        const prepared = await complete(s);
        await fs.rename(path.join(root, "sub"), path.join(root, "moved"));
        await fs.symlink(outside, path.join(root, "sub"));
        const applied = await prepared.apply();
        expect(applied.ok ? null : applied.error.code).toBe("path_outside_repo");
        expect(await read(outside, "a.txt")).toBe("outside\n");
        expect(await fs.readdir(outside)).toEqual(["a.txt"]);
        expect(await read(root, "moved/a.txt")).toBe("inside\n");
    });

    it("stops at the first write error, reports it, and removes the sidecar", async () => {
        const root = await repo({ "big.txt": "original\n" });
        const sidecar = failingSidecar({ failAfterBytes: 20, code: "EFBIG" });
        const started = await FileWriteSession.start(root, "big.txt", "create", {
            openSidecar: sidecar.open,
        });
        if (!started.ok) throw new Error(started.error.message);
        const s = started.data;
        s.write("0123456789\n0123456789\n0123456789\n");
        const flushed = await s.flush();
        expect(s.failed).toBe(true);
        expect(flushed.ok ? "" : flushed.error.message).toContain("file size limit");
        // Later content is dropped, never retried: no more write calls after the failure.
        const calls = sidecar.writeCalls();
        s.write("more\n");
        s.write("and more\n");
        const completed = await s.complete();
        expect(completed.ok ? null : completed.error.code).toBe("io_error");
        expect(sidecar.writeCalls()).toBe(calls);
        expect(await read(root, "big.txt")).toBe("original\n");
        expect(await tree(root)).toEqual(["big.txt"]);
    });

    it("removes stale sidecars of dead processes when a block opens in their directory", async () => {
        const dead = 2147483646;
        const stale = `.x.ts.north-${dead}-deadbeef.partial`;
        const keep = [
            `.x.ts.north-${process.pid}-0badcafe.partial`, // ours, alive
            `.x.ts.north-${dead}-deadbeef.tmp`,
            `x.ts.north-${dead}-deadbeef.partial`,
            `.x.ts.north-${dead}-DEADBEEF.partial`,
            "x.ts",
        ];
        const files = Object.fromEntries(
            [stale, `d/${stale}`, ...keep].map((name) => [name, "data"])
        );
        const root = await repo(files);
        await fs.mkdir(path.join(root, `.y.north-${dead}-deadbeef.partial`));
        const s = await session(root, "x.ts");
        await s.discard();
        expect(await exists(root, stale)).toBe(false);
        expect(await exists(root, `d/${stale}`)).toBe(true);
        for (const name of keep) expect(await exists(root, name)).toBe(true);
        expect(await exists(root, `.y.north-${dead}-deadbeef.partial`)).toBe(true);
    });
});

async function feed(stream: NorthFileStream, text: string, size = 7): Promise<NorthFileEvent[]> {
    const events: NorthFileEvent[] = [];
    for (let i = 0; i < text.length; i += size)
        events.push(...(await stream.push(text.slice(i, i + size))));
    return events;
}

const shown = (events: NorthFileEvent[]) =>
    events.flatMap((e) => (e.type === "display_text" ? [e.text] : [])).join("");

describe("NorthFileStream", () => {
    it("streams a block to a sidecar, shows only the surrounding text, and hands over a review", async () => {
        const root = await repo();
        const stream = new NorthFileStream(root);
        const events = [
            ...(await feed(
                stream,
                'Creating it.\n<NORTH_FILE path="src/x.ts">\nexport const x = 1;\n</NORTH_FILE>\nDone.'
            )),
            ...(await stream.end()),
        ];
        expect(shown(events)).toBe("Creating it.\nDone.");
        expect(events.some((e) => e.type === "file_started" && e.path === "src/x.ts")).toBe(true);
        expect(events.some((e) => e.type === "file_progress")).toBe(true);
        const done = events.find((e) => e.type === "file_completed");
        expect(done?.type === "file_completed" && done.linesWritten).toBe(1);
        expect(await exists(root, "src/x.ts")).toBe(false);
        if (done?.type === "file_completed") expect((await done.prepared.apply()).ok).toBe(true);
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
        expect(shown(events)).toBe("after");
        expect(await fs.readdir(root)).toEqual([]);
    });

    it("continues a never-closed block with mode=append in the same sidecar", async () => {
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
        expect(await exists(root, "big.py")).toBe(false);
        expect(stream.pending().map((p) => p.path)).toEqual(["big.py"]);

        const events = await feed(
            stream,
            '<NORTH_FILE path="big.py" mode="append">):\n    return 2\n</NORTH_FILE>'
        );
        const done = events.find((e) => e.type === "file_completed");
        expect(done?.type).toBe("file_completed");
        expect(await exists(root, "big.py")).toBe(false);
        expect(stream.pending()).toEqual([]);
        const sidecar = (await sidecars(root))[0]!;
        expect(await read(root, sidecar)).toBe(
            "def a():\n    return 1\n\ndef b():\n    return 2\n"
        );
        // Rejecting the review drops everything the session wrote.
        if (done?.type === "file_completed") await done.prepared.discard?.();
        expect(await tree(root)).toEqual([]);
    });

    it("a new create block after a cut-off one starts the sidecar over", async () => {
        const root = await repo({ "cfg.txt": "original\n" });
        const stream = new NorthFileStream(root);
        await feed(stream, '<NORTH_FILE path="cfg.txt">\nhalf wri');
        await stream.end();
        expect(await read(root, "cfg.txt")).toBe("original\n");
        const events = await feed(stream, '<NORTH_FILE path="cfg.txt">\nfull\n</NORTH_FILE>');
        const done = events.find((e) => e.type === "file_completed");
        expect(done?.type === "file_completed" && done.prepared.diffs[0]?.diff).toContain(
            "-original\n+full"
        );
        expect(await read(root, (await sidecars(root))[0]!)).toBe("full\n");
        if (done?.type === "file_completed") await done.prepared.discard?.();
        expect(await tree(root)).toEqual(["cfg.txt"]);
        expect(await read(root, "cfg.txt")).toBe("original\n");
    });

    it("hands a given-up block's partial content over for review", async () => {
        const root = await repo({ "p.txt": "before\n" });
        const stream = new NorthFileStream(root);
        await feed(stream, '<NORTH_FILE path="p.txt">\npartial\nli');
        await stream.end();
        expect(await stream.takePartial("other.txt")).toBeNull();
        const partial = await stream.takePartial("p.txt");
        expect(stream.pending()).toEqual([]);
        if (!partial?.ok) throw new Error("no partial write");
        expect(partial.data.summary).toBe("Editing p.txt (partial: cut off after 2 lines)");
        expect(await read(root, "p.txt")).toBe("before\n");
        expect((await partial.data.apply()).ok).toBe(true);
        expect(await read(root, "p.txt")).toBe("partial\nli");
        expect(await tree(root)).toEqual(["p.txt"]);
    });

    it("ends a block at its first write error and drops the rest of its content", async () => {
        const root = await repo({ "f.txt": "original\n" });
        const sidecar = failingSidecar({ failAfterBytes: 8, code: "ENOSPC" });
        const stream = new NorthFileStream(root, { openSidecar: sidecar.open });
        const events = await feed(stream, '<NORTH_FILE path="f.txt">\nfirst line\n', 64);
        // Let the failed write land, then keep streaming the block.
        await stream.push("");
        const later = await feed(stream, "second line\n".repeat(50) + "</NORTH_FILE>\nafter", 16);
        events.push(...later, ...(await stream.end()));
        const errors = events.filter((e) => e.type === "file_error");
        expect(errors).toHaveLength(1);
        expect(errors[0]?.type === "file_error" && errors[0].error.message).toContain(
            "the disk is full"
        );
        expect(events.some((e) => e.type === "file_completed")).toBe(false);
        expect(shown(events)).toBe("after");
        expect(sidecar.writeCalls()).toBeLessThanOrEqual(2);
        expect(await read(root, "f.txt")).toBe("original\n");
        expect(await tree(root)).toEqual(["f.txt"]);
    });

    it("discardUnfinished removes the sidecars of open and cut-off blocks", async () => {
        const root = await repo({ "a.txt": "a\n" });
        const stream = new NorthFileStream(root);
        await feed(stream, '<NORTH_FILE path="a.txt">\nnew a');
        await stream.end();
        await feed(stream, '<NORTH_FILE path="dir/b.txt">\nnew b');
        expect(await sidecars(root)).toHaveLength(2);
        expect((await stream.discardUnfinished()).sort()).toEqual(["a.txt", "dir/b.txt"]);
        expect(await tree(root)).toEqual(["a.txt"]);
        expect(await exists(root, "dir")).toBe(false);
    });
});
