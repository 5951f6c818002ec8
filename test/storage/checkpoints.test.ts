import {
    existsSync,
    mkdirSync,
    mkdtempSync,
    readFileSync,
    readdirSync,
    realpathSync,
    rmSync,
    statSync,
    symlinkSync,
    unlinkSync,
    utimesSync,
    writeFileSync,
    appendFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import {
    type CheckpointChange,
    type CheckpointStoreOptions,
    type Checkpointer,
    createCheckpointStore,
    parseManifest,
    sha256,
} from "../../src/storage/checkpoints";

const dirs: string[] = [];
afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function temp(): string {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "north-cp-")));
    dirs.push(dir);
    return dir;
}

interface Setup {
    repo: string;
    storeDir: string;
    store: ReturnType<typeof createCheckpointStore>;
    conv: ReturnType<ReturnType<typeof createCheckpointStore>["forConversation"]>;
    checkpointer: Checkpointer;
    prompt: { id: string };
}

function setup(options: CheckpointStoreOptions = {}, id = "c0ffee"): Setup {
    const repo = temp();
    const storeDir = join(temp(), "checkpoints");
    const store = createCheckpointStore(storeDir, options);
    const conv = store.forConversation(id);
    const prompt = { id: "p1" };
    return {
        repo,
        storeDir,
        store,
        conv,
        checkpointer: conv.checkpointer(() => prompt.id),
        prompt,
    };
}

/** What an edit tool does: record, then (unless told otherwise) write. */
async function change(
    s: Setup,
    rel: string,
    after: Buffer | string | null,
    options: { write?: boolean } = {}
): Promise<void> {
    await changeMany(s, [[rel, after]], options);
}

async function changeMany(
    s: Setup,
    files: Array<[string, Buffer | string | null]>,
    options: { write?: boolean } = {}
): Promise<void> {
    const changes: CheckpointChange[] = files.map(([rel, after]) => {
        const path = join(s.repo, rel);
        return {
            path,
            relPath: rel,
            before: existsSync(path) ? readFileSync(path) : null,
            after: after === null ? null : Buffer.from(after),
        };
    });
    const outcome = await s.checkpointer.record(changes);
    expect(outcome).toEqual({ ok: true });
    if (options.write === false) return;
    for (const c of changes) {
        if (c.after === null) unlinkSync(c.path);
        else {
            mkdirSync(join(c.path, ".."), { recursive: true });
            writeFileSync(c.path, c.after);
        }
    }
}

async function rewind(s: Setup, promptIds: string[], includeChanged = false) {
    const planned = await s.conv.planRestore(promptIds, s.repo);
    if (!planned.ok) throw new Error(planned.error);
    const outcome = await s.conv.applyRestore(planned.plan, { includeChanged });
    if (!outcome.ok) throw new Error(outcome.error);
    return { plan: planned.plan, report: outcome.report };
}

const CRLF = Buffer.from("line one\r\nline two\r\n");
const BOM = Buffer.from("\uFEFFexport const a = 1;\n", "utf8");
const BINARYISH = Buffer.from([0x00, 0xff, 0x1b, 0x5b, 0x0d, 0x0a, 0xc3, 0x28, 0x7f, 0x80]);

describe("checkpoints: record and restore", () => {
    it("restores exact bytes: CRLF, BOM, binary-ish, a new file removed, a batch over 3 files", async () => {
        const s = setup();
        writeFileSync(join(s.repo, "crlf.txt"), CRLF);
        writeFileSync(join(s.repo, "bom.ts"), BOM);
        writeFileSync(join(s.repo, "blob.bin"), BINARYISH);
        await changeMany(s, [
            ["crlf.txt", "line one\nchanged\n"],
            ["bom.ts", "export const a = 2;\n"],
            ["blob.bin", Buffer.from([1, 2, 3])],
        ]);
        await change(s, "src/new/file.ts", "created\n");
        s.prompt.id = "p2";
        await change(s, "crlf.txt", "third version\r\n");

        const { plan, report } = await rewind(s, ["p1", "p2"]);
        expect(plan.files.map((f) => [f.path, f.action, f.changedSince])).toEqual([
            ["crlf.txt", "restore", false],
            ["bom.ts", "restore", false],
            ["blob.bin", "restore", false],
            ["src/new/file.ts", "delete", false],
        ]);
        expect(readFileSync(join(s.repo, "crlf.txt")).equals(CRLF)).toBe(true);
        expect(readFileSync(join(s.repo, "bom.ts")).equals(BOM)).toBe(true);
        expect(readFileSync(join(s.repo, "blob.bin")).equals(BINARYISH)).toBe(true);
        expect(existsSync(join(s.repo, "src/new/file.ts"))).toBe(false);
        expect(report.restored.sort()).toEqual(["blob.bin", "bom.ts", "crlf.txt"]);
        expect(report.deleted).toEqual(["src/new/file.ts"]);
    });

    it("rewinds to before a later prompt only: earlier prompts' changes stay", async () => {
        const s = setup();
        writeFileSync(join(s.repo, "a.txt"), "v0\n");
        await change(s, "a.txt", "v1\n");
        s.prompt.id = "p2";
        await change(s, "a.txt", "v2\n");
        await change(s, "a.txt", "v3\n");
        s.prompt.id = "p3";
        await change(s, "a.txt", "v4\n");

        await rewind(s, ["p2", "p3"]);
        expect(readFileSync(join(s.repo, "a.txt"), "utf8")).toBe("v1\n");
    });

    it("stores prior content raw at once, then as gzip named by its sha256, in 0700 folders and 0600 files", async () => {
        const s = setup();
        writeFileSync(join(s.repo, "a.txt"), "original\n");
        await change(s, "a.txt", "new\n");
        const hash = sha256(Buffer.from("original\n"));
        const blob = join(s.conv.dir, "blobs", hash);
        expect(existsSync(blob) || existsSync(`${blob}.raw`)).toBe(true);
        await s.conv.idle();
        expect(readdirSync(join(s.conv.dir, "blobs"))).toEqual([hash]);
        expect(gunzipSync(readFileSync(blob)).toString()).toBe("original\n");
        expect(statSync(blob).mode & 0o777).toBe(0o600);
        expect(statSync(join(s.conv.dir, "manifest.jsonl")).mode & 0o777).toBe(0o600);
        for (const dir of [s.storeDir, s.conv.dir, join(s.conv.dir, "blobs")]) {
            expect(statSync(dir).mode & 0o777).toBe(0o700);
        }
        const [record] = parseManifest(readFileSync(join(s.conv.dir, "manifest.jsonl"), "utf8"));
        expect(record).toMatchObject({
            seq: 1,
            promptId: "p1",
            path: "a.txt",
            before: hash,
            after: sha256(Buffer.from("new\n")),
        });
    });

    it("keeps one copy per file and prompt run: 50 edits in one prompt store one blob, in 50 prompts 50", async () => {
        const one = setup();
        writeFileSync(join(one.repo, "a.txt"), "v0\n");
        for (let i = 1; i <= 50; i++) await change(one, "a.txt", `v${i}\n`);
        await one.conv.idle();
        expect(readdirSync(join(one.conv.dir, "blobs"))).toHaveLength(1);

        const many = setup();
        writeFileSync(join(many.repo, "a.txt"), "v0\n");
        for (let i = 1; i <= 50; i++) {
            many.prompt.id = `p${i}`;
            await change(many, "a.txt", `v${i}\n`);
        }
        await many.conv.idle();
        expect(readdirSync(join(many.conv.dir, "blobs"))).toHaveLength(50);
        await rewind(many, ["p37"]);
        expect(readFileSync(join(many.repo, "a.txt"), "utf8")).toBe("v36\n");
    });

    it("a later process continues the numbering and the prompt run from the manifest", async () => {
        const s = setup();
        writeFileSync(join(s.repo, "a.txt"), "v0\n");
        await change(s, "a.txt", "v1\n");
        const again = createCheckpointStore(s.storeDir).forConversation("c0ffee");
        const later = again.checkpointer(() => "p1");
        const path = join(s.repo, "a.txt");
        const outcome = await later.record([
            { path, relPath: "a.txt", before: readFileSync(path), after: Buffer.from("v2\n") },
        ]);
        expect(outcome.ok).toBe(true);
        const records = (await again.records()).records;
        expect(records.map((r) => r.seq)).toEqual([1, 2]);
        await s.conv.idle();
        expect(readdirSync(join(s.conv.dir, "blobs"))).toHaveLength(1);
    });

    it("a kill between record and write leaves a file that counts as unchanged; rewind still restores", async () => {
        const s = setup();
        writeFileSync(join(s.repo, "a.txt"), "v0\n");
        await change(s, "a.txt", "v1\n");
        s.prompt.id = "p2";
        await change(s, "a.txt", "v2\n", { write: false }); // killed before the rename

        const plan = await s.conv.planRestore(["p2"], s.repo);
        expect(plan.ok && plan.plan.files).toEqual([
            expect.objectContaining({ path: "a.txt", action: "unchanged", changedSince: false }),
        ]);
        await rewind(s, ["p1", "p2"]);
        expect(readFileSync(join(s.repo, "a.txt"), "utf8")).toBe("v0\n");
    });

    it("a torn last manifest line (kill mid-append) is skipped and the next record starts a new line", async () => {
        const s = setup();
        writeFileSync(join(s.repo, "a.txt"), "v0\n");
        await change(s, "a.txt", "v1\n");
        appendFileSync(join(s.conv.dir, "manifest.jsonl"), '{"seq":2,"promptId":"p1","pa');
        const fresh = createCheckpointStore(s.storeDir).forConversation("c0ffee");
        const path = join(s.repo, "a.txt");
        await fresh
            .checkpointer(() => "p2")
            .record([
                { path, relPath: "a.txt", before: readFileSync(path), after: Buffer.from("v2\n") },
            ]);
        writeFileSync(path, "v2\n");
        const { records } = await fresh.records();
        expect(records.map((r) => [r.seq, r.promptId])).toEqual([
            [1, "p1"],
            [2, "p2"],
        ]);
        const planned = await fresh.planRestore(["p1", "p2"], s.repo);
        if (!planned.ok) throw new Error(planned.error);
        await fresh.applyRestore(planned.plan, { includeChanged: false });
        expect(readFileSync(path, "utf8")).toBe("v0\n");
    });
});

describe("checkpoints: files changed by someone else", () => {
    it("a file changed after North is flagged and kept unless included", async () => {
        const s = setup();
        writeFileSync(join(s.repo, "a.txt"), "v0\n");
        writeFileSync(join(s.repo, "b.txt"), "b0\n");
        await changeMany(s, [
            ["a.txt", "v1\n"],
            ["b.txt", "b1\n"],
        ]);
        writeFileSync(join(s.repo, "a.txt"), "the user's own work\n");

        const { plan, report } = await rewind(s, ["p1"]);
        expect(plan.files.find((f) => f.path === "a.txt")?.changedSince).toBe(true);
        expect(report.skipped).toEqual([
            { path: "a.txt", reason: "changed since North last changed it", changed: true },
        ]);
        expect(readFileSync(join(s.repo, "a.txt"), "utf8")).toBe("the user's own work\n");
        expect(readFileSync(join(s.repo, "b.txt"), "utf8")).toBe("b0\n");

        await rewind(s, ["p1"], true);
        expect(readFileSync(join(s.repo, "a.txt"), "utf8")).toBe("v0\n");
    });

    it("a change between two of North's edits is flagged too", async () => {
        const s = setup();
        writeFileSync(join(s.repo, "a.txt"), "v0\n");
        await change(s, "a.txt", "v1\n");
        writeFileSync(join(s.repo, "a.txt"), "user edit\n");
        s.prompt.id = "p2";
        await change(s, "a.txt", "v2\n");
        const planned = await s.conv.planRestore(["p1", "p2"], s.repo);
        expect(planned.ok && planned.plan.files[0]?.changedSince).toBe(true);
        const later = await s.conv.planRestore(["p2"], s.repo);
        expect(later.ok && later.plan.files[0]?.changedSince).toBe(false);
    });

    it("a file deleted by the user counts as changed", async () => {
        const s = setup();
        writeFileSync(join(s.repo, "a.txt"), "v0\n");
        await change(s, "a.txt", "v1\n");
        unlinkSync(join(s.repo, "a.txt"));
        const planned = await s.conv.planRestore(["p1"], s.repo);
        expect(planned.ok && planned.plan.files[0]).toMatchObject({
            action: "restore",
            changedSince: true,
        });
    });

    it("a rewind records its own changes: rewinding again finds nothing to do and nothing changed", async () => {
        const s = setup();
        writeFileSync(join(s.repo, "a.txt"), "v0\n");
        await change(s, "a.txt", "v1\n");
        await rewind(s, ["p1"]);
        const { records } = await s.conv.records();
        expect(records.at(-1)).toMatchObject({ promptId: "rewind", path: "a.txt" });
        const again = await s.conv.planRestore(["p1"], s.repo);
        expect(again.ok && again.plan.files).toEqual([
            expect.objectContaining({ action: "unchanged", changedSince: false }),
        ]);
    });

    it("a file that changes between plan and apply is left alone", async () => {
        const s = setup();
        writeFileSync(join(s.repo, "a.txt"), "v0\n");
        await change(s, "a.txt", "v1\n");
        const planned = await s.conv.planRestore(["p1"], s.repo);
        if (!planned.ok) throw new Error(planned.error);
        writeFileSync(join(s.repo, "a.txt"), "typed meanwhile\n");
        const outcome = await s.conv.applyRestore(planned.plan, { includeChanged: true });
        expect(outcome.ok && outcome.report.skipped[0]?.reason).toBe(
            "it changed while the rewind was prepared"
        );
        expect(readFileSync(join(s.repo, "a.txt"), "utf8")).toBe("typed meanwhile\n");
    });

    it("never writes through a folder swapped for a link out of the project", async () => {
        const s = setup();
        const outside = temp();
        mkdirSync(join(s.repo, "sub"));
        writeFileSync(join(s.repo, "sub", "a.txt"), "v0\n");
        await change(s, "sub/a.txt", "v1\n");
        rmSync(join(s.repo, "sub"), { recursive: true });
        writeFileSync(join(outside, "a.txt"), "v1\n");
        symlinkSync(outside, join(s.repo, "sub"));
        const { report } = await rewind(s, ["p1"]);
        expect(report.skipped[0]?.reason).toMatch(/out of the project/);
        expect(readFileSync(join(outside, "a.txt"), "utf8")).toBe("v1\n");
    });
});

describe("checkpoints: failures", () => {
    it("a full disk makes record fail with the reason; nothing is appended", async () => {
        const full = Object.assign(new Error("ENOSPC: no space left on device, write"), {
            code: "ENOSPC",
        });
        const s = setup({
            fs: {
                writeFile: async () => {
                    throw full;
                },
            },
        });
        writeFileSync(join(s.repo, "a.txt"), "v0\n");
        const path = join(s.repo, "a.txt");
        const outcome = await s.checkpointer.record([
            { path, relPath: "a.txt", before: readFileSync(path), after: Buffer.from("v1\n") },
        ]);
        expect(outcome).toEqual({
            ok: false,
            error: "the disk is full: ENOSPC: no space left on device, write",
        });
        expect((await s.conv.records()).records).toEqual([]);
    });

    it("a store that was deleted gives a clear error naming it", async () => {
        const s = setup();
        writeFileSync(join(s.repo, "a.txt"), "v0\n");
        await change(s, "a.txt", "v1\n");
        rmSync(s.storeDir, { recursive: true });
        const planned = await s.conv.planRestore(["p1"], s.repo);
        expect(planned).toEqual({
            ok: false,
            error: expect.stringMatching(
                /checkpoints of conversation c0ffee are gone \(.*checkpoints\/c0ffee was pruned or deleted/
            ),
        });
    });

    it("a missing saved copy is reported for that file, the others are restored", async () => {
        const s = setup();
        writeFileSync(join(s.repo, "a.txt"), "a0\n");
        writeFileSync(join(s.repo, "b.txt"), "b0\n");
        await changeMany(s, [
            ["a.txt", "a1\n"],
            ["b.txt", "b1\n"],
        ]);
        await s.conv.idle();
        unlinkSync(join(s.conv.dir, "blobs", sha256(Buffer.from("a0\n"))));
        const { report } = await rewind(s, ["p1"]);
        expect(report.skipped).toEqual([
            {
                path: "a.txt",
                reason: "its saved copy is missing from the checkpoint store",
                changed: false,
            },
        ]);
        expect(readFileSync(join(s.repo, "b.txt"), "utf8")).toBe("b0\n");
    });

    it("invalid conversation ids never reach a path", () => {
        const store = createCheckpointStore(join(temp(), "checkpoints"));
        expect(() => store.forConversation("../etc")).toThrow(/invalid conversation id/);
    });
});

describe("checkpoints: pruning", () => {
    const DAY = 86_400_000;

    async function seed(storeDir: string, id: string, bytes: number, ageDays: number) {
        const repo = temp();
        const conv = createCheckpointStore(storeDir, { autoPrune: false }).forConversation(id);
        const path = join(repo, "f.bin");
        writeFileSync(path, Buffer.alloc(0));
        // Random bytes do not compress: the blob is about `bytes` long.
        const before = Buffer.from(Array.from({ length: bytes }, () => (Math.random() * 256) | 0));
        await conv
            .checkpointer(() => "p")
            .record([{ path, relPath: "f.bin", before, after: null }]);
        await conv.idle();
        const when = new Date(Date.now() - ageDays * DAY);
        utimesSync(join(storeDir, id, "manifest.jsonl"), when, when);
    }

    it("removes conversations older than the age limit, then the oldest beyond the size limit", async () => {
        const storeDir = join(temp(), "checkpoints");
        await seed(storeDir, "aaaaaa", 1000, 40);
        await seed(storeDir, "bbbbbb", 30_000, 10);
        await seed(storeDir, "cccccc", 30_000, 5);
        await seed(storeDir, "dddddd", 30_000, 1);
        const store = createCheckpointStore(storeDir, { maxAgeDays: 30, maxTotalBytes: 70_000 });
        const report = await store.prune();
        expect(report.removed).toEqual(["aaaaaa", "bbbbbb"]);
        expect(readdirSync(storeDir).sort()).toEqual(["cccccc", "dddddd"]);
        expect(report.totalBytes).toBeLessThanOrEqual(70_000);
    });

    it("compresses raw copies a finished process left, and restores from either form", async () => {
        const s = setup({ autoPrune: false });
        writeFileSync(join(s.repo, "a.txt"), "v0\n");
        await change(s, "a.txt", "v1\n");
        await s.conv.idle();
        // What a process killed before compressing leaves: only the raw copy.
        const hash = sha256(Buffer.from("v0\n"));
        const blob = join(s.conv.dir, "blobs", hash);
        writeFileSync(`${blob}.raw`, "v0\n");
        unlinkSync(blob);
        expect((await s.conv.readBlob(hash)).toString()).toBe("v0\n");
        await createCheckpointStore(s.storeDir).prune();
        expect(readdirSync(join(s.conv.dir, "blobs"))).toEqual([hash]);
        expect(gunzipSync(readFileSync(blob)).toString()).toBe("v0\n");
        await rewind(s, ["p1"]);
        expect(readFileSync(join(s.repo, "a.txt"), "utf8")).toBe("v0\n");
    });

    it("never prunes a conversation this process is recording", async () => {
        const storeDir = join(temp(), "checkpoints");
        await seed(storeDir, "aaaaaa", 1000, 40);
        const store = createCheckpointStore(storeDir, { maxAgeDays: 30 });
        store.forConversation("aaaaaa").checkpointer(() => "p");
        expect((await store.prune()).removed).toEqual([]);
        expect(existsSync(join(storeDir, "aaaaaa"))).toBe(true);
    });
});
