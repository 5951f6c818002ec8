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
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { NORTH_BIN, isolatedHome } from "../kit/run-north";

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
    input: string[]
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
        // 1 MB is about 315K tokens by North's estimate: over Claude's 200K window, under 10 MB.
        const run = await streamSession([
            userLine(`BIG${"b".repeat(1024 * 1024)}`),
            userLine("a small question"),
        ]);
        const errors = run.events.filter((e) => e.type === "error");
        expect(errors).toHaveLength(1);
        expect(errors[0]!.error).toMatch(
            /more than .*'s 200000-token context window; nothing was sent or saved/
        );
        const results = run.events.filter((e) => e.type === "result");
        expect(results.map((r) => [r.result, r.is_error])).toEqual([["Fine.", false]]);
        expect(server.requests).toHaveLength(1);
        expect(JSON.stringify(server.requests[0]!.body)).not.toContain("BIG");
        expect(run.code).toBe(1);
    });
});
