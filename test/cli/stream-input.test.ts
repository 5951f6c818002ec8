import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { NORTH_BIN, isolatedHome, runNorth } from "../kit/run-north";

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
    repo = mkdtempSync(join(tmpdir(), "north-stream-input-"));
    writeFileSync(join(repo, "app.ts"), "export const retries = 3;\n");
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

type Event = Record<string, unknown>;

/** A long-lived `north -p --input-format stream-json`, driven line by line. */
interface StreamSession {
    send(line: unknown): void;
    sendRaw(text: string): void;
    closeStdin(): void;
    /** Resolves with the first event (from the start) that matches, once it is printed. */
    waitFor(match: (event: Event) => boolean): Promise<Event>;
    events: Event[];
    exit: Promise<{ code: number | null; stderr: string }>;
    kill(signal: NodeJS.Signals): void;
}

function startStreamSession(extraArgs: string[] = []): StreamSession {
    const child: ChildProcess = spawn(
        process.execPath,
        [
            NORTH_BIN,
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--path",
            repo,
            ...extraArgs,
        ],
        { env, stdio: ["pipe", "pipe", "pipe"] }
    );
    const events: Event[] = [];
    const waiters: { match: (event: Event) => boolean; resolve: (event: Event) => void }[] = [];
    let pending = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
        pending += chunk;
        const lines = pending.split("\n");
        pending = lines.pop()!;
        for (const line of lines) {
            const event = JSON.parse(line) as Event;
            events.push(event);
            for (const waiter of [...waiters]) {
                if (waiter.match(event)) {
                    waiters.splice(waiters.indexOf(waiter), 1);
                    waiter.resolve(event);
                }
            }
        }
    });
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const exit = new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
        child.on("error", reject);
        child.on("close", (code) => resolve({ code, stderr }));
    });
    return {
        send: (line) => child.stdin!.write(`${JSON.stringify(line)}\n`),
        sendRaw: (text) => child.stdin!.write(text),
        closeStdin: () => child.stdin!.end(),
        waitFor: (match) => {
            const seen = events.find(match);
            if (seen) return Promise.resolve(seen);
            return new Promise((resolve) => waiters.push({ match, resolve }));
        },
        events,
        exit,
        kill: (signal) => void child.kill(signal),
    };
}

const userLine = (content: unknown) => ({ type: "user", message: { role: "user", content } });
const results = (events: Event[]) => events.filter((e) => e.type === "result");
const edit = {
    name: "edit_replace_exact",
    input: { path: "app.ts", old_text: "retries = 3", new_text: "retries = 5" },
};

describe("--input-format stream-json", () => {
    it("runs each user line in order in one conversation, one result per prompt", async () => {
        server.enqueue({ text: "The capital is Paris." }, { text: "About 2.1 million." });
        const north = startStreamSession();
        north.send(userLine("What is the capital of France?"));
        north.send(userLine([{ type: "text", text: "And its population?" }]));
        north.closeStdin();
        const { code } = await north.exit;
        expect(code).toBe(0);
        expect(results(north.events).map((r) => r.result)).toEqual([
            "The capital is Paris.",
            "About 2.1 million.",
        ]);
        expect(new Set(results(north.events).map((r) => r.session_id)).size).toBe(1);
        // The second request carries the first exchange: the same conversation.
        const second = JSON.stringify(server.requests[1]!.body);
        expect(second).toContain("What is the capital of France?");
        expect(second).toContain("The capital is Paris.");
        expect(second).toContain("And its population?");
    });

    it("asks for an approval with an approval_request line and applies the edit when approved", async () => {
        server.enqueue({ toolCalls: [edit] }, { text: "Bumped." });
        const north = startStreamSession();
        north.send(userLine("bump retries"));
        const request = await north.waitFor((e) => e.type === "approval_request");
        expect(request).toMatchObject({ kind: "write", tool: "edit_replace_exact" });
        expect(JSON.stringify(request.diffs)).toContain("retries = 5");
        // Nothing is written while the question is open.
        expect(readFileSync(join(repo, "app.ts"), "utf8")).toBe("export const retries = 3;\n");
        north.send({ type: "approval_response", id: request.id, decision: "approve" });
        await north.waitFor((e) => e.type === "result");
        north.closeStdin();
        expect((await north.exit).code).toBe(0);
        expect(readFileSync(join(repo, "app.ts"), "utf8")).toBe("export const retries = 5;\n");
        expect(north.events).toContainEqual(
            expect.objectContaining({ type: "approval", request_id: request.id })
        );
    });

    it("a denial with a reason writes nothing and the model reads the reason", async () => {
        server.enqueue({ toolCalls: [edit] }, { text: "Left it alone." });
        const north = startStreamSession();
        north.send(userLine("bump retries"));
        const request = await north.waitFor((e) => e.type === "approval_request");
        north.send({
            type: "approval_response",
            id: request.id,
            decision: "deny",
            reason: "keep three retries for the flaky CI",
        });
        await north.waitFor((e) => e.type === "result");
        north.closeStdin();
        expect((await north.exit).code).toBe(0);
        expect(readFileSync(join(repo, "app.ts"), "utf8")).toBe("export const retries = 3;\n");
        expect(JSON.stringify(server.requests[1]!.body)).toContain(
            "keep three retries for the flaky CI"
        );
    });

    it("reports bad lines as error events and on stderr, keeps going, and exits 1", async () => {
        server.enqueue({ text: "Still here." });
        const north = startStreamSession();
        north.sendRaw("this is not json\n");
        north.send({ type: "assistant", message: { content: "x" } });
        north.send({ type: "user", message: { role: "user" } });
        north.send({ type: "approval_response", id: "no-such-request", decision: "approve" });
        north.send(userLine("are you alive?"));
        north.closeStdin();
        const { code, stderr } = await north.exit;
        expect(code).toBe(1);
        const errors = north.events.filter((e) => e.type === "error");
        expect(errors.map((e) => e.line)).toEqual([1, 2, 3, 4]);
        expect(errors[1]!.error).toContain('unknown line type "assistant"');
        expect(errors[2]!.error).toContain("message.content");
        expect(errors[3]!.error).toContain("no-such-request");
        expect(stderr).toContain("north: stdin line 1: not a JSON object");
        expect(results(north.events).map((r) => r.result)).toEqual(["Still here."]);
    });

    it("denies a waiting approval when stdin closes, finishes the run and exits", async () => {
        server.enqueue({ toolCalls: [edit] }, { text: "Could not edit." });
        const north = startStreamSession();
        north.send(userLine("bump retries"));
        await north.waitFor((e) => e.type === "approval_request");
        north.closeStdin();
        const { code } = await north.exit;
        expect(code).toBe(0);
        expect(results(north.events).map((r) => r.result)).toEqual(["Could not edit."]);
        expect(readFileSync(join(repo, "app.ts"), "utf8")).toBe("export const retries = 3;\n");
        expect(JSON.stringify(server.requests[1]!.body)).toContain("stdin closed");
    });

    it('an edit approved with "remember":"all" puts the session in accept-edits: the next prompt\'s edit lands unasked', async () => {
        const second = {
            name: "edit_replace_exact",
            input: { path: "app.ts", old_text: "retries = 5", new_text: "retries = 7" },
        };
        server.enqueue(
            { toolCalls: [edit] },
            { text: "Bumped." },
            { toolCalls: [second] },
            { text: "Bumped again." }
        );
        const north = startStreamSession();
        north.send(userLine("bump retries"));
        const request = await north.waitFor((e) => e.type === "approval_request");
        north.send({
            type: "approval_response",
            id: request.id,
            decision: "approve",
            remember: "all",
        });
        await north.waitFor((e) => e.type === "result");
        expect(north.events).toContainEqual({ type: "mode", mode: "accept-edits" });
        north.send(userLine("bump them again"));
        // The second edit either lands unasked (its result) or is asked about again.
        await north.waitFor(
            (e) =>
                (e.type === "result" && e.result === "Bumped again.") ||
                (e.type === "approval_request" && e.id !== request.id)
        );
        north.closeStdin();
        expect((await north.exit).code).toBe(0);
        expect(north.events.filter((e) => e.type === "approval_request")).toHaveLength(1);
        expect(readFileSync(join(repo, "app.ts"), "utf8")).toBe("export const retries = 7;\n");
    });

    it('refuses a "remember" other than "all", or on a command\'s approval, and leaves the request waiting', async () => {
        server.enqueue(
            { toolCalls: [{ name: "shell_run", input: { command: "echo hi" } }] },
            { text: "Ran once." }
        );
        const north = startStreamSession();
        north.send(userLine("say hi"));
        const request = await north.waitFor((e) => e.type === "approval_request");
        north.send({
            type: "approval_response",
            id: request.id,
            decision: "approve",
            remember: "exact",
        });
        north.send({
            type: "approval_response",
            id: request.id,
            decision: "approve",
            remember: "all",
        });
        const errors = async (count: number) => {
            await north.waitFor(
                () => north.events.filter((e) => e.type === "error").length >= count
            );
            return north.events.filter((e) => e.type === "error");
        };
        const [badValue, onCommand] = await errors(2);
        expect(badValue!.error).toContain('"remember" may only be "all"');
        expect(onCommand!.error).toContain("answers an edit's approval only");
        // Still waiting: a plain approval answers it.
        north.send({ type: "approval_response", id: request.id, decision: "approve" });
        await north.waitFor((e) => e.type === "result");
        north.closeStdin();
        expect((await north.exit).code).toBe(1);
        expect(results(north.events).map((r) => r.result)).toEqual(["Ran once."]);
        expect(north.events).not.toContainEqual(expect.objectContaining({ type: "mode" }));
    });

    it("ends on SIGTERM while waiting for the next line, with exit code 143", async () => {
        server.enqueue({ text: "First." });
        const north = startStreamSession();
        north.send(userLine("hello"));
        await north.waitFor((e) => e.type === "result");
        north.kill("SIGTERM");
        expect((await north.exit).code).toBe(143);
        expect(results(north.events)).toHaveLength(1);
    });

    it("exits 0 without a request when stdin closes before any prompt", async () => {
        const north = startStreamSession();
        north.closeStdin();
        expect((await north.exit).code).toBe(0);
        expect(server.requests).toHaveLength(0);
    });

    it("needs --output-format stream-json and no PROMPT argument", async () => {
        const text = await runNorth(["-p", "--input-format", "stream-json", "--path", repo], {
            env,
        });
        expect(text.code).toBe(2);
        expect(text.stderr).toContain(
            "--input-format stream-json needs --output-format stream-json"
        );
        const unknown = await runNorth(["-p", "hi", "--input-format", "xml", "--path", repo], {
            env,
        });
        expect(unknown.code).toBe(2);
        expect(unknown.stderr).toContain("--input-format must be one of text, stream-json");
    });
});
