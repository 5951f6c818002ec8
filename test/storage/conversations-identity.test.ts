import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createConversationStore, repoHashOf } from "../../src/storage/conversations";

const dirs: string[] = [];
afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup() {
    const root = mkdtempSync(join(tmpdir(), "north-conv-id-"));
    dirs.push(root);
    const dir = join(root, "conversations");
    return { dir, store: createConversationStore(dir) };
}

const user = (id: string, text: string) => ({ id, role: "user", content: text });
const assistant = (id: string, text: string) => ({
    id,
    role: "assistant",
    content: [{ type: "text", text }],
});
const texts = (entries: Array<Record<string, unknown>>) =>
    entries.map((e) =>
        typeof e.content === "string"
            ? e.content
            : (e.content as Array<{ text: string }>).map((b) => b.text).join("")
    );

/** A version-1 log as three processes wrote it: each numbered its entries from m1. */
function versionOneLog(dir: string, id: string): string {
    const repoRoot = "/repo";
    const header = {
        type: "header",
        format: "north-conversation",
        version: 1,
        id,
        repoRoot,
        repoHash: repoHashOf(repoRoot),
        model: "claude-sonnet-4-5",
        createdAt: "2026-11-01T10:00:00.000Z",
    };
    const lines = [JSON.stringify(header)];
    const ts = "2026-11-01T10:00:01.000Z";
    lines.push(
        JSON.stringify({
            type: "conversation_started",
            ts,
            id,
            repoRoot,
            repoHash: header.repoHash,
            model: header.model,
        })
    );
    for (let run = 1; run <= 3; run++) {
        lines.push(
            JSON.stringify({ type: "entry_added", ts, entry: user("m1", `question ${run}`) })
        );
        lines.push(
            JSON.stringify({ type: "entry_added", ts, entry: assistant("m2", `answer ${run}`) })
        );
        lines.push(JSON.stringify({ type: "conversation_ended", ts }));
    }
    const path = join(dir, `${id}.jsonl`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path, lines.join("\n") + "\n", { mode: 0o600 });
    return path;
}

describe("entry identity across processes", () => {
    it("new entries continue the log's numbering after every resume", () => {
        const { store } = setup();
        const first = store.start({ repoRoot: "/repo", model: "m" });
        const a = first.newEntryId();
        const b = first.newEntryId();
        first.close();
        const opened = store.open(first.id);
        if (!opened.ok) throw new Error(opened.error);
        // Only ids that reached the log count: none were appended, so numbering may restart,
        // but an appended one is never reused.
        opened.log.append({ type: "entry_added", entry: user(opened.log.newEntryId(), "q1") });
        opened.log.close();
        const again = store.open(first.id);
        if (!again.ok) throw new Error(again.error);
        const next = again.log.newEntryId();
        again.log.close();
        expect(a).not.toBe(b);
        expect(next).not.toBe(opened.conversation.entries[0]?.id);
        const loaded = store.load(first.id);
        if (!loaded.ok) throw new Error(loaded.error);
        expect(next).not.toBe(loaded.conversation.entries[0]?.id);
    });

    it("a log damaged by reused ids shows every exchange, and upgrading keeps them all", () => {
        const { dir, store } = setup();
        const path = versionOneLog(dir, "0ab1e5");
        const loaded = store.load("0ab1e5");
        if (!loaded.ok) throw new Error(loaded.error);
        expect(texts(loaded.conversation.entries)).toEqual([
            "question 1",
            "answer 1",
            "question 2",
            "answer 2",
            "question 3",
            "answer 3",
        ]);
        expect(new Set(loaded.conversation.entries.map((e) => e.id)).size).toBe(6);

        const opened = store.open("0ab1e5");
        if (!opened.ok) throw new Error(opened.error);
        opened.log.append({
            type: "entry_added",
            entry: user(opened.log.newEntryId(), "question 4"),
        });
        opened.log.close();
        expect(existsSync(`${path}.v1.bak`)).toBe(true);
        const after = store.load("0ab1e5");
        if (!after.ok) throw new Error(after.error);
        expect(texts(after.conversation.entries)).toEqual([
            "question 1",
            "answer 1",
            "question 2",
            "answer 2",
            "question 3",
            "answer 3",
            "question 4",
        ]);
    });
});

describe("one writer per conversation", () => {
    it("a second open while the first is open forks, and neither log gets the other's entries", () => {
        const { store } = setup();
        const log = store.start({ repoRoot: "/repo", model: "m" });
        log.append({ type: "entry_added", entry: user(log.newEntryId(), "shared question") });
        log.append({ type: "entry_added", entry: assistant(log.newEntryId(), "shared answer") });

        const second = store.open(log.id);
        if (!second.ok) throw new Error(second.error);
        expect(second.log.id).not.toBe(log.id);
        expect(second.forkedFrom).toBe(log.id);
        expect(second.warnings[0]).toContain(`open in another North process`);
        expect(texts(second.conversation.entries)).toEqual(["shared question", "shared answer"]);

        second.log.append({ type: "entry_added", entry: user(second.log.newEntryId(), "fork q") });
        log.append({ type: "entry_added", entry: user(log.newEntryId(), "original q") });
        second.log.close();
        log.close();

        const original = store.load(log.id);
        const fork = store.load(second.log.id);
        if (!original.ok || !fork.ok) throw new Error("load failed");
        expect(texts(original.conversation.entries)).toEqual([
            "shared question",
            "shared answer",
            "original q",
        ]);
        expect(texts(fork.conversation.entries)).toEqual([
            "shared question",
            "shared answer",
            "fork q",
        ]);
        expect(fork.conversation.forkedFrom).toBe(log.id);
        expect(store.list().find((c) => c.id === fork.conversation.id)?.forkedFrom).toBe(log.id);
        const header = JSON.parse(readFileSync(second.log.path, "utf8").split("\n")[0] ?? "");
        expect(header.forkedFrom).toBe(log.id);
    });

    it("the lock of a killed process is taken over instead of forking", () => {
        const { dir, store } = setup();
        const log = store.start({ repoRoot: "/repo", model: "m" });
        log.close();
        // A lock left by a process that no longer exists (kill -9).
        const dead = spawnSync(process.execPath, [
            "-e",
            "process.stdout.write(String(process.pid))",
        ]);
        writeFileSync(
            join(dir, `${log.id}.lock`),
            JSON.stringify({ pid: Number(dead.stdout.toString()), token: "x" })
        );
        const opened = store.open(log.id);
        if (!opened.ok) throw new Error(opened.error);
        expect(opened.log.id).toBe(log.id);
        expect(opened.forkedFrom).toBeUndefined();
        opened.log.close();
        expect(existsSync(join(dir, `${log.id}.lock`))).toBe(false);
    });
});

describe("forking an open conversation", () => {
    it("leaves out a prompt the other process may still be answering", () => {
        const { store } = setup();
        const log = store.start({ repoRoot: "/repo", model: "m" });
        log.append({ type: "entry_added", entry: user(log.newEntryId(), "answered") });
        log.append({ type: "entry_added", entry: assistant(log.newEntryId(), "yes") });
        log.append({ type: "entry_added", entry: user(log.newEntryId(), "in progress") });
        const second = store.open(log.id);
        if (!second.ok) throw new Error(second.error);
        expect(texts(second.conversation.entries)).toEqual(["answered", "yes"]);
        second.log.close();
        log.close();
    });
});

describe("rewind and fork", () => {
    it("a rewind takes entries, summary and view back to before the prompt; spend stays", () => {
        const { store } = setup();
        const log = store.start({ repoRoot: "/repo", model: "m" });
        const q1 = log.newEntryId();
        log.append({ type: "entry_added", entry: user(q1, "one") });
        log.append({ type: "view", record: { type: "user", text: "one" } });
        log.append({ type: "entry_added", entry: assistant(log.newEntryId(), "first") });
        const q2 = log.newEntryId();
        log.append({ type: "entry_added", entry: user(q2, "two") });
        log.append({ type: "view", record: { type: "user", text: "two" } });
        log.append({
            type: "usage",
            model: "m",
            usage: { inputTokens: 10, outputTokens: 5 },
            costUsd: 0.25,
        });
        log.append({ type: "rolling_summary_set", summary: { goal: "x" } });
        log.append({ type: "rewound", entryId: q2 });
        log.append({ type: "entry_added", entry: user(log.newEntryId(), "two again") });
        log.close();

        const loaded = store.load(log.id);
        if (!loaded.ok) throw new Error(loaded.error);
        const conv = loaded.conversation;
        expect(texts(conv.entries)).toEqual(["one", "first", "two again"]);
        expect(conv.view).toEqual([{ type: "user", text: "one" }]);
        expect(conv.rollingSummary).toBeNull();
        expect(conv.usage).toHaveLength(1);
        expect(store.list()[0]?.messageCount).toBe(3);

        const fork = store.fork(log.id, { beforeEntryId: q1 });
        if (!fork.ok) throw new Error(fork.error);
        expect(fork.conversation.entries).toEqual([]);
        fork.log.close();
        const unknown = store.fork(log.id, { beforeEntryId: "m999" });
        expect(unknown.ok).toBe(false);
    });
});

describe("ids by prefix", () => {
    it("a unique prefix resolves; an ambiguous one lists every match and resolves none", () => {
        const { store } = setup();
        for (const id of ["ab12cd", "ab99ef", "c0ffee"]) {
            const log = store.start({ id, repoRoot: "/repo", model: "m", firstPrompt: `p ${id}` });
            log.close();
        }
        expect(store.resolveId("c0")).toEqual({ ok: true, id: "c0ffee" });
        expect(store.resolveId("AB12")).toEqual({ ok: true, id: "ab12cd" });
        const ambiguous = store.resolveId("ab");
        expect(ambiguous.ok).toBe(false);
        if (!ambiguous.ok) {
            expect(ambiguous.error).toContain("ab12cd");
            expect(ambiguous.error).toContain("ab99ef");
        }
        expect(store.resolveId("dd").ok).toBe(false);
        expect(store.resolveId("../x").ok).toBe(false);
    });
});
