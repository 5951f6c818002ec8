import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
    MAX_PROMPT_BYTES,
    openPromptHistory,
    promptHistoryPath,
} from "../../src/storage/prompt-history";

const dirs: string[] = [];
const temp = (): string => {
    const dir = mkdtempSync(join(tmpdir(), "north-history-"));
    dirs.push(dir);
    return dir;
};
afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const REPO = "/home/user/project";
const fileLines = (path: string): string[] =>
    readFileSync(path, "utf8")
        .split("\n")
        .filter((line) => line !== "");
const texts = (path: string): string[] =>
    fileLines(path).map((line) => (JSON.parse(line) as { text: string }).text);

describe("prompt history", () => {
    it("appends each prompt as one JSON line, private, and reads them back after a restart", () => {
        const data = temp();
        const first = openPromptHistory(data, REPO, { now: () => new Date(0) });
        expect(first.entries()).toEqual([]);
        first.add("explain the retry logic");
        first.add("now\nwith two lines");
        const path = promptHistoryPath(data, REPO);
        expect(first.path).toBe(path);
        expect(fileLines(path)).toEqual([
            JSON.stringify({ ts: "1970-01-01T00:00:00.000Z", text: "explain the retry logic" }),
            JSON.stringify({ ts: "1970-01-01T00:00:00.000Z", text: "now\nwith two lines" }),
        ]);
        expect(statSync(path).mode & 0o777).toBe(0o600);
        expect(statSync(dirname(path)).mode & 0o777).toBe(0o700);

        const again = openPromptHistory(data, REPO);
        // Read at first use, so it sees what was written after it was opened.
        first.add("one more");
        expect(again.entries()).toEqual([
            "explain the retry logic",
            "now\nwith two lines",
            "one more",
        ]);
        // Another project has its own file.
        expect(openPromptHistory(data, "/home/user/other").entries()).toEqual([]);
    });

    it("skips blank prompts, a repeat of the last one and prompts over 16 KB", () => {
        const data = temp();
        const history = openPromptHistory(data, REPO);
        const huge = "x".repeat(MAX_PROMPT_BYTES + 1);
        const largest = "y".repeat(MAX_PROMPT_BYTES);
        for (const text of ["a", "a", "   ", "b", huge, "a", largest]) history.add(text);
        expect(history.entries()).toEqual(["a", "b", "a", largest]);
        expect(texts(promptHistoryPath(data, REPO))).toEqual(["a", "b", "a", largest]);
        // The same array until something is added, so the composer can tell nothing changed.
        expect(history.entries()).toBe(history.entries());
    });

    it("keeps the newest prompts and compacts the file past twice the limit", () => {
        const data = temp();
        const path = promptHistoryPath(data, REPO);
        const history = openPromptHistory(data, REPO, { limit: 5 });
        for (let i = 0; i < 10; i++) history.add(`p${i}`);
        expect(fileLines(path)).toHaveLength(10);
        history.add("p10");
        expect(texts(path)).toEqual(["p6", "p7", "p8", "p9", "p10"]);
        expect(history.entries()).toEqual(["p6", "p7", "p8", "p9", "p10"]);
        expect(statSync(path).mode & 0o777).toBe(0o600);
        for (let i = 11; i < 40; i++) history.add(`p${i}`);
        expect(fileLines(path).length).toBeLessThanOrEqual(10);
        expect(openPromptHistory(data, REPO, { limit: 5 }).entries()).toEqual([
            "p35",
            "p36",
            "p37",
            "p38",
            "p39",
        ]);
    });

    it("skips corrupt lines, collapses repeats two chats left, and appends after a cut-off line", () => {
        const data = temp();
        const path = promptHistoryPath(data, REPO);
        mkdirSync(dirname(path), { recursive: true });
        const line = (text: unknown) => JSON.stringify({ ts: "2025-01-01T00:00:00Z", text }) + "\n";
        writeFileSync(
            path,
            line("one") +
                "{ not json\n" +
                line(42) +
                "null\n" +
                line("two") +
                line("two") +
                line("z".repeat(MAX_PROMPT_BYTES + 10)) +
                line("three") +
                '{"ts":"2025-01-01T00:00:00Z","text":"cut sh'
        );
        const warnings: string[] = [];
        const history = openPromptHistory(data, REPO, { warn: (w) => warnings.push(w) });
        expect(history.entries()).toEqual(["one", "two", "three"]);
        history.add("four");
        expect(openPromptHistory(data, REPO).entries()).toEqual(["one", "two", "three", "four"]);
        expect(warnings).toEqual([]);
    });

    it("warns once when the data directory cannot be written, and keeps the prompts in memory", () => {
        const blocker = join(temp(), "file");
        writeFileSync(blocker, "");
        const warnings: string[] = [];
        const history = openPromptHistory(join(blocker, "data"), REPO, {
            warn: (w) => warnings.push(w),
        });
        history.add("first");
        history.add("second");
        expect(history.entries()).toEqual(["first", "second"]);
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatch(/prompt history could not be saved .*history.*ENOTDIR/);
    });

    it("reads only the tail of a huge file, and compacts it", () => {
        const data = temp();
        const path = promptHistoryPath(data, REPO);
        mkdirSync(dirname(path), { recursive: true });
        const pad = "p".repeat(1000);
        const lines: string[] = [];
        for (let i = 0; i < 4000; i++) lines.push(JSON.stringify({ ts: "t", text: `${i} ${pad}` }));
        writeFileSync(path, lines.join("\n") + "\n");
        expect(statSync(path).size).toBeGreaterThan(4_000_000);
        const history = openPromptHistory(data, REPO);
        const entries = history.entries();
        expect(entries.at(-1)).toBe(`3999 ${pad}`);
        // What fits in the kept megabyte, newest last, no gap.
        expect(entries.length).toBeGreaterThan(900);
        expect(entries.length).toBeLessThanOrEqual(1000);
        entries.forEach((text, i) => expect(text).toBe(`${4000 - entries.length + i} ${pad}`));
        expect(statSync(path).size).toBeLessThanOrEqual(1024 * 1024);
        expect(texts(path)).toEqual(entries);
    });

    it("sees prompts another chat appended when it counts towards compaction", () => {
        const data = temp();
        const path = promptHistoryPath(data, REPO);
        const a = openPromptHistory(data, REPO, { limit: 3 });
        const b = openPromptHistory(data, REPO, { limit: 3 });
        expect(a.entries()).toEqual([]); // a has read the file: both chats are open
        for (let i = 0; i < 6; i++) b.add(`b${i}`);
        a.add("a0");
        // 7 lines > 2 × 3: a counted b's lines and compacted.
        expect(texts(path)).toEqual(["b4", "b5", "a0"]);
        b.add("b6");
        expect(texts(path)).toEqual(["b4", "b5", "a0", "b6"]);
        // Each chat's Up offers what it read at first use plus what it sent.
        expect(a.entries()).toEqual(["a0"]);
        expect(openPromptHistory(data, REPO, { limit: 3 }).entries()).toEqual(["b5", "a0", "b6"]);
    });

    it("does not append while another chat holds the file's lock (compacting it)", () => {
        const data = temp();
        const path = promptHistoryPath(data, REPO);
        const warnings: string[] = [];
        const history = openPromptHistory(data, REPO, { warn: (w) => warnings.push(w) });
        history.add("before");
        // A live process (our parent) holds the lock, as a compacting chat would.
        writeFileSync(`${path}.lock`, JSON.stringify({ pid: process.ppid, token: "other" }));
        history.add("during");
        expect(texts(path)).toEqual(["before"]);
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toContain("timed out waiting for lock");
        rmSync(`${path}.lock`);
        history.add("after");
        expect(texts(path)).toEqual(["before", "after"]);
        expect(history.entries()).toEqual(["before", "during", "after"]);
    });

    it("two chats writing at once lose nothing, with and without compaction", async () => {
        const run = (data: string, name: string, count: number, limit: number) =>
            new Promise<number | null>((resolve) => {
                const child = spawn(
                    process.execPath,
                    [
                        "--import",
                        "tsx",
                        join(import.meta.dirname, "fixtures", "prompt-history-writer.ts"),
                        data,
                        REPO,
                        name,
                        String(count),
                        String(limit),
                    ],
                    { stdio: "inherit" }
                );
                child.on("close", resolve);
            });

        const plain = temp();
        expect(await Promise.all([run(plain, "a", 300, 1000), run(plain, "b", 300, 1000)])).toEqual(
            [0, 0]
        );
        const all = texts(promptHistoryPath(plain, REPO));
        expect(all).toHaveLength(600);
        for (const name of ["a", "b"]) {
            expect(all.filter((t) => t.startsWith(`${name}-`))).toEqual(
                Array.from({ length: 300 }, (_, i) => `${name}-${i}`)
            );
        }

        // Compaction keeps a suffix of the file, so each writer's survivors must be
        // the end of its own sequence: a gap would be a line a compaction dropped.
        const busy = temp();
        expect(await Promise.all([run(busy, "a", 300, 10), run(busy, "b", 300, 10)])).toEqual([
            0, 0,
        ]);
        const kept = texts(promptHistoryPath(busy, REPO));
        expect(kept.length).toBeGreaterThanOrEqual(10);
        expect(kept.length).toBeLessThanOrEqual(20);
        for (const name of ["a", "b"]) {
            const numbers = kept
                .filter((t) => t.startsWith(`${name}-`))
                .map((t) => Number(t.slice(2)));
            numbers.forEach((n, i) => expect(n).toBe(300 - numbers.length + i));
        }
    }, 60_000);
});
