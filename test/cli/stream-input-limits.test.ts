/**
 * A stream-json prompt that is too large is refused whole, with an error line
 * that names the limit; nothing of it is kept, so the process stays up and the
 * next prompt is answered. Needs `npm run build` first.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { promptSizeProblem } from "../../src/cli/prompt-size";
import { BUILTIN_MODELS, DEFAULT_MODEL_ID } from "../../src/providers/catalogue";
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
    repo = mkdtempSync(join(tmpdir(), "north-stream-limits-"));
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

const userLine = (content: string): string =>
    `${JSON.stringify({ type: "user", message: { role: "user", content } })}\n`;

/** Runs a stream-json session fed `input` on stdin; its events, stderr and exit code. */
function streamSession(
    input: string[],
    extraArgs: string[] = []
): Promise<{ events: Event[]; stderr: string; code: number | null }> {
    return new Promise((resolve, reject) => {
        const child = spawn(
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
        let stdout = "";
        let stderr = "";
        child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
        child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
        child.on("error", reject);
        child.on("close", (code) =>
            resolve({
                events: stdout
                    .trim()
                    .split("\n")
                    .map((line) => JSON.parse(line) as Event),
                stderr,
                code,
            })
        );
        for (const chunk of input) child.stdin.write(chunk);
        child.stdin.end();
    });
}

describe("stream-json input limits", () => {
    it("refuses a 12 MB line with an error naming the limit, and answers the next prompt", async () => {
        server.enqueue({ text: "Still here." });
        const huge = userLine(`HUGE${"a".repeat(12 * 1024 * 1024)}`);
        // Sent in 64 KB pieces, as a pipe delivers it.
        const pieces = huge.match(/[\s\S]{1,65536}/g)!;
        const run = await streamSession([...pieces, userLine("are you alive?")]);

        const errors = run.events.filter((e) => e.type === "error");
        expect(errors).toHaveLength(1);
        expect(errors[0]).toMatchObject({ line: 1 });
        expect(errors[0]!.error).toContain("over the 10 MB limit of one stdin line");
        expect(run.stderr).toContain(
            "north: stdin line 1: the line is 12 MB, over the 10 MB limit"
        );
        const results = run.events.filter((e) => e.type === "result");
        expect(results.map((r) => [r.result, r.is_error])).toEqual([["Still here.", false]]);
        // The refused line never reached the model.
        expect(server.requests).toHaveLength(1);
        expect(JSON.stringify(server.requests[0]!.body)).not.toContain("HUGE");
        expect(JSON.stringify(server.requests[0]!.body)).toContain("are you alive?");
        expect(run.code).toBe(1);
    });

    it("refuses a prompt larger than the model's window, keeps nothing of it, and answers the next", async () => {
        server.enqueue({ text: "Fine." });
        // 4 MB is about 1.26M tokens by North's estimate: over Opus 5.5's 1M window, under 10 MB.
        const run = await streamSession([
            userLine(`BIG${"b".repeat(4 * 1024 * 1024)}`),
            userLine("a small question"),
        ]);
        const errors = run.events.filter((e) => e.type === "error");
        expect(errors).toHaveLength(1);
        expect(errors[0]!.error).toMatch(
            /more than .*'s 1000000-token context window; nothing was sent or saved/
        );
        const results = run.events.filter((e) => e.type === "result");
        expect(results.map((r) => [r.result, r.is_error])).toEqual([["Fine.", false]]);
        expect(server.requests).toHaveLength(1);
        expect(JSON.stringify(server.requests[0]!.body)).not.toContain("BIG");
        expect(run.code).toBe(1);
    });
});

/**
 * The largest prompt the up-front check (prompt-size.ts, which counts the
 * prompt alone) lets through: North's system prompt and tools take it over
 * the model's window.
 */
function promptJustUnderWindow(marker: string): string {
    const model = BUILTIN_MODELS.find((m) => m.id === DEFAULT_MODEL_ID)!;
    let chars = Math.floor(model.contextLimitTokens * 3.5);
    while (promptSizeProblem(marker + "c".repeat(chars), model) !== null) chars -= 1000;
    return marker + "c".repeat(chars);
}

/** The text of every request the fake server got, as sent. */
const sentBodies = (): string => server.requests.map((r) => JSON.stringify(r.body)).join("\n");

describe("a prompt that no request can carry is not kept", () => {
    it("refuses a prompt that fits the window alone but not with the system prompt, answers the next, and resume leaves it out", async () => {
        server.enqueue({ text: "Answered." });
        const run = await streamSession([
            userLine(promptJustUnderWindow("NEARLY-WINDOW")),
            userLine("a normal question"),
        ]);
        const results = run.events.filter((e) => e.type === "result");
        expect(results).toHaveLength(2);
        expect(results[0]!.is_error).toBe(true);
        expect(String(results[0]!.result)).toMatch(
            /^not sent: the prompt is about \d+ tokens; with the system prompt and tools \(about \d+\) the request would be about \d+ tokens, more than .*'s 1000000-token window\. The prompt was not kept/
        );
        expect(results[1]).toMatchObject({ result: "Answered.", is_error: false });
        // Only the normal prompt was sent, and without the refused one.
        expect(server.requests).toHaveLength(1);
        expect(sentBodies()).not.toContain("NEARLY-WINDOW");
        expect(sentBodies()).toContain("a normal question");

        server.enqueue({ text: "Resumed." });
        const id = String(results[1]!.session_id);
        const resumed = await runNorth(["-p", "and now?", "--resume", id, "--path", repo], { env });
        expect(resumed.stdout).toContain("Resumed.");
        expect(server.requests).toHaveLength(2);
        const body = JSON.stringify(server.requests[1]!.body);
        expect(body).toContain("a normal question");
        expect(body).toContain("Answered.");
        expect(body).not.toContain("NEARLY-WINDOW");
    });

    it("takes back a prompt the provider refuses for its size: later prompts and a resume go on without it", async () => {
        server.enqueue(
            { text: "First answer." },
            {
                error: {
                    status: 400,
                    message: "prompt is too long: 210000 tokens > 200000 maximum",
                },
            },
            { text: "Second answer." }
        );
        const run = await streamSession([
            userLine("first question"),
            userLine("REFUSED-BY-PROVIDER"),
            userLine("second question"),
        ]);
        const results = run.events.filter((e) => e.type === "result");
        expect(results.map((r) => r.is_error)).toEqual([false, true, false]);
        expect(String(results[1]!.result)).toContain(
            "prompt is too long: 210000 tokens > 200000 maximum. The prompt was not kept"
        );
        expect(server.requests).toHaveLength(3);
        const third = JSON.stringify(server.requests[2]!.body);
        expect(third).toContain("second question");
        expect(third).not.toContain("REFUSED-BY-PROVIDER");

        // It was in the log before the provider refused it: the log says it was taken back.
        server.enqueue({ text: "Resumed." });
        const id = String(results[2]!.session_id);
        const resumed = await runNorth(["-p", "and now?", "--resume", id, "--path", repo], { env });
        expect(resumed.stdout).toContain("Resumed.");
        const body = JSON.stringify(server.requests[3]!.body);
        expect(body).toContain("first question");
        expect(body).toContain("second question");
        expect(body).not.toContain("REFUSED-BY-PROVIDER");
    });
});
