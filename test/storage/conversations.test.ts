import {
    appendFileSync,
    existsSync,
    mkdirSync,
    mkdtempSync,
    readFileSync,
    rmSync,
    statSync,
    writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
    createConversationStore,
    migrate,
    repoHashOf,
    type ConversationLog,
    type ConversationStoreOptions,
} from "../../src/storage/conversations";

const dirs: string[] = [];
const temp = () => {
    const dir = mkdtempSync(join(tmpdir(), "north-conv-"));
    dirs.push(dir);
    return dir;
};
afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup(options: ConversationStoreOptions = {}) {
    const dir = join(temp(), "conversations");
    return { dir, store: createConversationStore(dir, options) };
}

const user = (id: string, text: string) => ({ id, role: "user", content: text });
const assistant = (id: string, text: string) => ({ id, role: "assistant", content: text });
const lines = (path: string) => readFileSync(path, "utf8").trim().split("\n");
const readIndexFile = (dir: string) =>
    JSON.parse(readFileSync(join(dir, "index.json"), "utf8")) as {
        conversations: Record<string, { messageCount: number; firstPrompt: string | null }>;
    };

function started(store: ReturnType<typeof setup>["store"]): ConversationLog {
    const log = store.start({ repoRoot: "/repo", model: "sonnet" });
    log.append({ type: "entry_added", entry: user("u1", "fix the bug") });
    log.append({ type: "entry_added", entry: assistant("a1", "on it") });
    log.append({ type: "entry_added", entry: user("u2", "thanks") });
    return log;
}

describe("conversation logs", () => {
    it("creates 0600 files in a 0700 dir, starting with a versioned header", () => {
        const { dir, store } = setup();
        const log = store.start({ repoRoot: "/repo", model: "sonnet" });
        expect(log.id).toMatch(/^[0-9a-f]{6}$/);
        expect(statSync(dir).mode & 0o777).toBe(0o700);
        expect(statSync(log.path).mode & 0o777).toBe(0o600);
        const [header, first] = lines(log.path).map((l) => JSON.parse(l));
        expect(header).toEqual({
            type: "header",
            format: "north-conversation",
            version: 2,
            id: log.id,
            repoRoot: "/repo",
            repoHash: repoHashOf("/repo"),
            model: "sonnet",
            createdAt: expect.any(String),
        });
        expect(header.repoHash).toMatch(/^[0-9a-f]{16}$/);
        expect(first).toMatchObject({ type: "conversation_started", id: log.id, model: "sonnet" });
        log.close();
        expect(statSync(join(dir, "index.json")).mode & 0o777).toBe(0o600);
    });

    it("writes each event before append returns and replays them in order", () => {
        const { store } = setup();
        const log = started(store);
        expect(lines(log.path)).toHaveLength(5); // on disk without close()
        log.append({ type: "entry_updated", id: "a1", patch: { content: "done", status: "ok" } });
        log.append({ type: "model_changed", model: "opus" });
        log.append({ type: "rolling_summary_set", summary: { goal: "fix" } });
        log.append({
            type: "transcript_replaced",
            entries: [assistant("a1", "done"), user("u2", "thanks")],
        });
        log.append({ type: "entry_added", entry: user("u3", "more") });
        log.append({ type: "conversation_ended" });
        const last = JSON.parse(lines(log.path).at(-1) ?? "");
        expect(last).toEqual({ type: "conversation_ended", ts: expect.any(String) });
        log.close();

        const result = store.load(log.id);
        if (!result.ok) throw new Error(result.error);
        const conv = result.conversation;
        expect(result.warnings).toEqual([]);
        expect(conv.entries.map((e) => e.id)).toEqual(["a1", "u2", "u3"]);
        expect(conv.model).toBe("opus");
        expect(conv.rollingSummary).toEqual({ goal: "fix" });
        expect(conv.firstPrompt).toBe("fix the bug");
        expect(conv.ended).toBe(true);
    });

    it("applies entry_updated patches", () => {
        const { store } = setup();
        const log = started(store);
        log.append({ type: "entry_updated", id: "a1", patch: { content: "done", id: "zzz" } });
        log.append({ type: "rolling_summary_set", summary: null });
        const result = store.load(log.id);
        if (!result.ok) throw new Error(result.error);
        expect(result.conversation.entries[1]).toEqual({
            id: "a1",
            role: "assistant",
            content: "done",
        });
        expect(result.conversation.rollingSummary).toBeNull();
        expect(result.conversation.ended).toBe(false);
    });

    it("skips a last line cut off mid-write, loads the rest, and repairs it on open", () => {
        const { store } = setup();
        const log = started(store);
        log.close();
        appendFileSync(
            log.path,
            '{"type":"entry_added","ts":"2025-01-01T00:00:00Z","entry":{"id":"u'
        );
        const result = store.load(log.id);
        if (!result.ok) throw new Error(result.error);
        expect(result.conversation.entries.map((e) => e.id)).toEqual(["u1", "a1", "u2"]);
        expect(result.warnings).toEqual(["line 6: last line was cut off mid-write; skipped"]);

        const opened = store.open(log.id);
        if (!opened.ok) throw new Error(opened.error);
        opened.log.append({ type: "entry_added", entry: user("u4", "again") });
        opened.log.close();
        const again = store.load(log.id);
        if (!again.ok) throw new Error(again.error);
        expect(again.warnings).toEqual([]);
        expect(again.conversation.entries.map((e) => e.id)).toEqual(["u1", "a1", "u2", "u4"]);
    });

    it("skips and reports a corrupt line in the middle", () => {
        const { store } = setup();
        const log = started(store);
        log.close();
        const all = lines(log.path);
        all.splice(3, 0, "{not json at all");
        writeFileSync(log.path, all.join("\n") + "\n");
        const result = store.load(log.id);
        if (!result.ok) throw new Error(result.error);
        expect(result.warnings).toEqual(["line 4: not valid JSON; skipped"]);
        expect(result.conversation.entries.map((e) => e.id)).toEqual(["u1", "a1", "u2"]);
    });

    it("reports an empty log clearly; a header alone is an empty conversation", () => {
        const { dir, store } = setup();
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, "abc123.jsonl"), "");
        expect(store.load("abc123")).toEqual({
            ok: false,
            error: "conversation abc123: the log is empty",
        });

        const log = store.start({ repoRoot: "/repo", model: "m" });
        writeFileSync(log.path, lines(log.path)[0] + "\n");
        const result = store.load(log.id);
        expect(result.ok && result.conversation.entries).toEqual([]);
    });

    it("reports an unknown id", () => {
        const { store } = setup();
        expect(store.load("abcdef")).toEqual({
            ok: false,
            error: "no conversation with id abcdef",
        });
        expect(store.open("abcdef").ok).toBe(false);
    });

    it("rejects ids with path characters without touching the filesystem", () => {
        const { dir, store } = setup();
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, "..", "x.jsonl"), "not for North");
        for (const id of ["../x", "/etc/passwd", "abc12", "ABC123", "abc123/", ""]) {
            const result = store.load(id);
            expect(result.ok).toBe(false);
            expect(!result.ok && result.error).toMatch(/^invalid conversation id/);
            expect(store.open(id).ok).toBe(false);
        }
        expect(() => store.start({ id: "../x", repoRoot: "/r", model: "m" })).toThrow(
            /invalid conversation id/
        );
        expect(readFileSync(join(dir, "..", "x.jsonl"), "utf8")).toBe("not for North");
    });

    it("loads an older (version 0, headerless) log and upgrades it on open", () => {
        const { dir, store } = setup();
        mkdirSync(dir, { recursive: true });
        const v0 = [
            {
                type: "conversation_started",
                conversationId: "0bd000",
                repoRoot: "/old",
                repoHash: "h",
                model: "m0",
                timestamp: "2024-01-01T00:00:00.000Z",
            },
            {
                type: "entry_added",
                entry: user("u1", "legacy prompt"),
                timestamp: "2024-01-01T00:00:01.000Z",
            },
            {
                type: "entry_added",
                entry: assistant("a1", "..."),
                timestamp: "2024-01-01T00:00:02.000Z",
            },
            {
                type: "entry_updated",
                entryId: "a1",
                updates: { content: "answer" },
                timestamp: "2024-01-01T00:00:03.000Z",
            },
        ];
        const path = join(dir, "0bd000.jsonl");
        writeFileSync(path, v0.map((e) => JSON.stringify(e)).join("\n") + "\n");
        const result = store.load("0bd000");
        if (!result.ok) throw new Error(result.error);
        expect(result.warnings).toEqual([]);
        expect(result.conversation).toMatchObject({
            repoRoot: "/old",
            model: "m0",
            createdAt: "2024-01-01T00:00:00.000Z",
            updatedAt: "2024-01-01T00:00:03.000Z",
            firstPrompt: "legacy prompt",
        });
        expect(result.conversation.entries[1]).toEqual(assistant("a1", "answer"));

        const opened = store.open("0bd000");
        if (!opened.ok) throw new Error(opened.error);
        opened.log.append({ type: "entry_added", entry: user("u2", "new") });
        opened.log.close();
        expect(JSON.parse(lines(path)[0] ?? "")).toMatchObject({ type: "header", version: 2 });
        expect(existsSync(`${path}.v0.bak`)).toBe(true);
        const again = store.load("0bd000");
        expect(again.ok && again.conversation.entries.map((e) => e.id)).toEqual(["u1", "a1", "u2"]);
    });

    it("migrates version-0 events step by step", () => {
        expect(
            migrate(0, { type: "entry_updated", entryId: "e", updates: { a: 1 }, timestamp: "t" })
        ).toEqual({
            type: "entry_updated",
            id: "e",
            patch: { a: 1 },
            ts: "t",
        });
        const current = { type: "model_changed", model: "x", ts: "t" };
        expect(migrate(1, current)).toBe(current);
    });

    it("loads a log from a newer North with a warning but will not append to it", () => {
        const { store } = setup();
        const log = started(store);
        log.close();
        const all = lines(log.path);
        all[0] = JSON.stringify({ ...JSON.parse(all[0] ?? ""), version: 99 });
        writeFileSync(log.path, all.join("\n") + "\n");
        const result = store.load(log.id);
        expect(result.ok && result.warnings[0]).toMatch(/newer North/);
        expect(store.open(log.id)).toMatchObject({
            ok: false,
            error: expect.stringMatching(/newer North/),
        });
    });
});

describe("conversation index", () => {
    it("lists newest first with repo, model, first prompt and count; latestForRepo", () => {
        let clock = Date.parse("2025-01-01T00:00:00Z");
        const { store } = setup({ now: () => (clock += 1000) });
        const a = store.start({ repoRoot: "/repo", model: "m1" });
        const b = store.start({ repoRoot: "/other", model: "m2" });
        const c = store.start({ repoRoot: "/repo", model: "m3", firstPrompt: "given prompt" });
        a.append({ type: "entry_added", entry: user("u1", "first of a") });
        a.append({ type: "entry_added", entry: assistant("a1", "ok") });
        for (const log of [a, b, c]) log.close();
        const list = store.list();
        expect(list.map((s) => s.id)).toEqual([a.id, c.id, b.id]);
        expect(list[0]).toEqual({
            id: a.id,
            repoRoot: "/repo",
            repoHash: repoHashOf("/repo"),
            model: "m1",
            firstPrompt: "first of a",
            createdAt: "2025-01-01T00:00:01.000Z",
            updatedAt: expect.any(String),
            messageCount: 2,
        });
        expect(list[1]?.firstPrompt).toBe("given prompt");
        expect(store.list({ repoRoot: "/other" }).map((s) => s.id)).toEqual([b.id]);
        expect(store.latestForRepo("/repo")?.id).toBe(a.id);
        expect(store.latestForRepo("/nowhere")).toBeUndefined();
    });

    it("rebuilds a deleted or corrupt index.json from the logs", () => {
        const { dir, store } = setup();
        const ids = [started(store), started(store)].map((log) => {
            log.close();
            return log.id;
        });
        const before = store.list();
        rmSync(join(dir, "index.json"));
        expect(store.list()).toEqual(before);
        expect(Object.keys(readIndexFile(dir).conversations).sort()).toEqual([...ids].sort());

        writeFileSync(join(dir, "index.json"), "{ corrupt");
        expect(store.list()).toEqual(before);
        expect(readIndexFile(dir).conversations[ids[0] ?? ""]?.messageCount).toBe(3);
    });

    it("repairs stale index entries: grown logs and deleted logs", () => {
        const { dir, store } = setup({ indexIntervalMs: 60_000 });
        const log = started(store);
        const gone = store.start({ repoRoot: "/repo", model: "m" });
        gone.close();
        rmSync(gone.path);
        log.append({ type: "entry_added", entry: assistant("a2", "streamed") }); // not yet indexed
        expect(readIndexFile(dir).conversations[log.id]).toBeUndefined(); // not indexed before its interval or close
        expect(store.list().map((s) => [s.id, s.messageCount])).toEqual([[log.id, 4]]);
        expect(Object.keys(readIndexFile(dir).conversations)).toEqual([log.id]);
        log.close();
    });

    it("rewrites the index on the interval and at close, not at start or every event", () => {
        let clock = 0;
        const { dir, store } = setup({ indexIntervalMs: 5000, now: () => clock });
        const log = store.start({ repoRoot: "/repo", model: "m" });
        const count = () =>
            existsSync(join(dir, "index.json"))
                ? readIndexFile(dir).conversations[log.id]?.messageCount
                : undefined;
        log.append({ type: "entry_added", entry: user("u1", "hello") });
        log.append({ type: "entry_added", entry: assistant("a1", "") });
        expect(count()).toBeUndefined();
        clock += 5000;
        log.append({ type: "entry_added", entry: assistant("a2", "") });
        expect(count()).toBe(3);
        expect(readIndexFile(dir).conversations[log.id]?.firstPrompt).toBe("hello");
        log.append({ type: "entry_added", entry: assistant("a3", "") });
        expect(count()).toBe(3);
        log.close();
        expect(count()).toBe(4);
        expect(log.append({ type: "conversation_ended" })).toEqual({
            ok: false,
            error: `conversation ${log.id} is closed`,
        });
    });

    it("lists a conversation that is not indexed yet, from its log", () => {
        const { dir, store } = setup({ indexIntervalMs: 60_000 });
        const log = store.start({ repoRoot: "/repo", model: "m" });
        log.append({ type: "entry_added", entry: user("u1", "hello") });
        expect(existsSync(join(dir, "index.json"))).toBe(false);
        expect(store.list().map((c) => [c.id, c.firstPrompt, c.messageCount])).toEqual([
            [log.id, "hello", 1],
        ]);
        expect(store.latestForRepo("/repo")?.id).toBe(log.id);
        log.close();
    });

    it("checks new ids against existing logs and the index (injected random source)", () => {
        const { dir, store } = setup({ randomId: () => candidates.shift() ?? "ffffff" });
        const candidates = ["aaaaaa", "bbbbbb"];
        store.start({ id: "aaaaaa", repoRoot: "/r", model: "m" }).close();
        store.start({ id: "bbbbbb", repoRoot: "/r", model: "m" }).close();
        rmSync(join(dir, "bbbbbb.jsonl")); // still in the index
        candidates.push("aaaaaa", "bbbbbb", "../x", "cccccc");
        expect(store.newId()).toBe("cccccc");
        expect(() => store.start({ id: "aaaaaa", repoRoot: "/r", model: "m" })).toThrow(
            /already exists/
        );

        const stuck = createConversationStore(dir, { randomId: () => "aaaaaa" });
        expect(() => stuck.newId()).toThrow(/free conversation id/);
    });
});

describe("unusable data directory", () => {
    it("is a clear error at start (parent path is a regular file)", () => {
        // A file where a folder should be blocks root too, unlike chmod.
        const blocker = join(temp(), "blocker");
        writeFileSync(blocker, "");
        const store = createConversationStore(join(blocker, "conversations"));
        const check = store.checkWritable();
        expect(check.ok).toBe(false);
        expect(!check.ok && check.error).toMatch(
            /^cannot save conversations in .*blocker.*not a directory/
        );
        expect(() => store.start({ repoRoot: "/r", model: "m" })).toThrow(
            /cannot save conversations/
        );
        expect(store.list()).toEqual([]);
        expect(store.load("abc123")).toMatchObject({ ok: false });
    });

    it("passes for a usable dir and leaves no probe behind", () => {
        const { dir, store } = setup();
        expect(store.checkWritable()).toEqual({ ok: true });
        expect(statSync(dir).isDirectory()).toBe(true);
        expect(store.list()).toEqual([]);
    });

    it("keeps appending when the index cannot be written mid-conversation", () => {
        const { dir, store } = setup();
        const log = store.start({ repoRoot: "/repo", model: "m" });
        mkdirSync(join(dir, "index.json")); // rename over a directory fails
        expect(log.append({ type: "entry_added", entry: user("u1", "hi") })).toEqual({ ok: true });
        expect(() => log.close()).not.toThrow();
        const result = store.load(log.id);
        expect(result.ok && result.conversation.entries).toHaveLength(1);
        expect(store.list().map((s) => s.id)).toEqual([log.id]);
    });

    it("returns a failed append instead of throwing", () => {
        const { store } = setup();
        const log = store.start({ repoRoot: "/repo", model: "m" });
        const cyclic: Record<string, unknown> = { id: "c1" };
        cyclic.self = cyclic;
        const result = log.append({ type: "entry_added", entry: cyclic as { id: string } });
        expect(result.ok).toBe(false);
        expect(log.append({ type: "entry_added", entry: user("u1", "hi") })).toEqual({ ok: true });
        log.close();
        const loaded = store.load(log.id);
        expect(loaded.ok && loaded.warnings).toEqual([]);
    });
});
