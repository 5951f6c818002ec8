/**
 * Nothing is lost across resumes, through the built CLI: every exchange of
 * a chained conversation is sent again, a log written by the old numbering
 * resumes whole, two processes never share one log, and ids resolve by
 * unique prefix.
 */
import { once } from "node:events";
import {
    existsSync,
    mkdirSync,
    mkdtempSync,
    readFileSync,
    readdirSync,
    rmSync,
    writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createConversationStore, repoHashOf } from "../../src/storage/conversations";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { type PacedLlmServer, startPacedLlmServer } from "../kit/paced-llm-server";
import { isolatedHome, runNorth } from "../kit/run-north";

const FIXTURE = join(import.meta.dirname, "../storage/fixtures/v1-three-continues.jsonl");

let server: FakeLlmServer;
let repo: string;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
    server = await startFakeLlmServer();
});
afterAll(async () => {
    await server.close();
});
beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), "north-fidelity-repo-"));
    writeFileSync(join(repo, "notes.txt"), "remember the milk\n");
    const isolated = isolatedHome();
    home = isolated.home;
    env = { ...isolated.env, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.anthropicBaseUrl };
    server.requests.length = 0;
});
afterEach(() => {
    expect(server.remaining()).toBe(0);
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

const conversationsDir = () => join(home, "data", "conversations");
const sessionOf = (stdout: string) =>
    (JSON.parse(stdout.trim()) as { session_id: string }).session_id;

describe("chained resumes", () => {
    it("ten chained --continue runs: the tenth request carries all ten questions and answers, and /export writes them", async () => {
        let id = "";
        for (let n = 1; n <= 10; n++) {
            server.enqueue({ text: `answer number ${n}.` });
            const args = ["-p", `question number ${n}?`, "--path", repo, "--output-format", "json"];
            if (n > 1) args.push("--continue");
            const run = await runNorth(args, { env });
            expect(run.code, run.stderr).toBe(0);
            if (n === 1) id = sessionOf(run.stdout);
            else expect(sessionOf(run.stdout)).toBe(id);
        }
        const sent = JSON.stringify(server.requests.at(-1)!.body);
        for (let n = 1; n <= 10; n++) {
            expect(sent).toContain(`question number ${n}?`);
            if (n < 10) expect(sent).toContain(`answer number ${n}.`);
        }
        // In order, each once.
        const order = [...sent.matchAll(/question number (\d+)\?/g)].map((m) => Number(m[1]));
        expect(order).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);

        const exported = await runNorth(
            ["-p", "/export chained.md", "--resume", id.slice(0, 4), "--path", repo],
            { env }
        );
        expect(exported.code, exported.stderr).toBe(0);
        const markdown = readFileSync(join(repo, "chained.md"), "utf8");
        for (let n = 1; n <= 10; n++) {
            expect(markdown).toContain(`question number ${n}?`);
            expect(markdown).toContain(`answer number ${n}.`);
        }
    });

    it("a log written by the old numbering (m1, m2… again in every process) resumes with every exchange", async () => {
        // The fixture is a real log of the previous North: three chained `north -p --continue` runs.
        mkdirSync(conversationsDir(), { recursive: true });
        const text = readFileSync(FIXTURE, "utf8")
            .replaceAll("/tmp/fixture-repo", repo)
            .replaceAll("67bad1e93fd8c027", repoHashOf(repo));
        writeFileSync(join(conversationsDir(), "70c901.jsonl"), text, { mode: 0o600 });

        server.enqueue({ text: "Answer four." });
        const run = await runNorth(["-p", "question four", "--continue", "--path", repo], { env });
        expect(run.code, run.stderr).toBe(0);
        const sent = JSON.stringify(server.requests.at(-1)!.body);
        for (const part of [
            "question one: what do the notes say?",
            "remember the milk",
            "The notes say: remember the milk.",
            "question two: what did I ask?",
            "Answer two: you asked about the notes.",
            "question three: and now?",
            "Answer three: milk, still.",
            "question four",
        ]) {
            expect(sent).toContain(part);
        }
        expect(existsSync(join(conversationsDir(), "70c901.jsonl.v1.bak"))).toBe(true);
    });
});

describe("one writer per conversation", () => {
    let paced: PacedLlmServer;
    beforeAll(async () => {
        paced = await startPacedLlmServer();
    });
    afterAll(async () => {
        await paced.close();
    });

    it("a second process resuming an open conversation forks it and says so; neither log is interleaved", async () => {
        const pacedEnv = { ...env, ANTHROPIC_BASE_URL: paced.anthropicBaseUrl };
        paced.enqueue({ text: "first answer" });
        const first = await runNorth(
            ["-p", "shared start", "--path", repo, "--output-format", "json"],
            { env: pacedEnv }
        );
        expect(first.code, first.stderr).toBe(0);
        const id = sessionOf(first.stdout);

        // Process A resumes and stays in the middle of its answer.
        paced.enqueue({ text: ["A is ", "still streaming"], holdAfterChunks: 1 });
        const held = once(paced.events, "held");
        let childA: { kill(signal: NodeJS.Signals): boolean } | undefined;
        const runA = runNorth(["-p", "from process A", "--resume", id, "--path", repo], {
            env: pacedEnv,
            onSpawn: (child) => (childA = child),
        });
        await held;

        // Process B resumes the same id meanwhile.
        paced.enqueue({ text: "B answered" });
        const runB = await runNorth(
            ["-p", "from process B", "--resume", id, "--path", repo, "--output-format", "json"],
            { env: pacedEnv }
        );
        expect(runB.code, runB.stderr).toBe(0);
        expect(runB.stderr).toContain(`conversation ${id} is open in another North process`);
        const forkId = sessionOf(runB.stdout);
        expect(forkId).not.toBe(id);

        childA!.kill("SIGINT");
        await runA;

        const store = createConversationStore(conversationsDir());
        const original = store.load(id);
        const fork = store.load(forkId);
        if (!original.ok || !fork.ok) throw new Error("could not load");
        const textOf = (entries: Array<Record<string, unknown>>) => JSON.stringify(entries);
        expect(textOf(original.conversation.entries)).toContain("from process A");
        // The fork starts from the settled conversation, not A's unanswered prompt.
        expect(textOf(original.conversation.entries)).not.toContain("from process B");
        expect(textOf(fork.conversation.entries)).toContain("shared start");
        expect(textOf(fork.conversation.entries)).toContain("from process B");
        expect(textOf(fork.conversation.entries)).not.toContain("from process A");
        expect(fork.conversation.forkedFrom).toBe(id);

        const list = await runNorth(["list"], { env });
        expect(list.stdout).toContain(`(fork of ${id})`);
        expect(list.stdout).toContain("north resume ID");
    });
});

describe("ids by prefix", () => {
    it("an ambiguous prefix lists both conversations and resumes nothing; --fork-session copies", async () => {
        const store = createConversationStore(conversationsDir());
        for (const id of ["ab12cd", "ab99ef"]) {
            const log = store.start({ id, repoRoot: repo, model: "sonnet-4-5" });
            log.append({
                type: "entry_added",
                entry: { id: log.newEntryId(), role: "user", content: `prompt of ${id}` },
            });
            log.close();
        }
        const before = readdirSync(conversationsDir()).sort();
        const ambiguous = await runNorth(["-p", "hello", "--resume", "ab"], { env });
        expect(ambiguous.code).toBe(2);
        expect(ambiguous.stderr).toContain("ab12cd");
        expect(ambiguous.stderr).toContain("ab99ef");
        expect(readdirSync(conversationsDir()).sort()).toEqual(before);

        server.enqueue({ text: "forked answer" });
        const forked = await runNorth(
            ["-p", "continue", "--resume", "ab9", "--fork-session", "--output-format", "json"],
            { env }
        );
        expect(forked.code, forked.stderr).toBe(0);
        const forkId = sessionOf(forked.stdout);
        expect(forkId).not.toBe("ab99ef");
        expect(JSON.stringify(server.requests.at(-1)!.body)).toContain("prompt of ab99ef");
        const parent = store.load("ab99ef");
        if (!parent.ok) throw new Error(parent.error);
        expect(JSON.stringify(parent.conversation.entries)).not.toContain("forked answer");
    });
});
