/**
 * Model text, file contents and server errors never reach the terminal as
 * control sequences in print mode. Needs `npm run build` first.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome, runNorth } from "../kit/run-north";

// ESC, CSI/OSC/DCS/ST in their 8-bit forms, and every other C0 (but \n, \t) or C1 control
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

/** Each sequence a hostile model or file could use, with the text around it. */
const HOSTILE =
    "A\x1b]52;c;cm0gLXJmIH4vKgo=\x07B\x1b]0;pwned-title\x07C\x1b[2J\x1b[3JD" +
    "\x1bPtmux;\x1b\x1b]52;c;eA==\x07\x1b\\E\x9b2JF\x9d0;pwned-8bit\x9cG\x07\x08\rH";
const VISIBLE = "ABCDEFGH";

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
    repo = mkdtempSync(join(tmpdir(), "north-term-repo-"));
    writeFileSync(join(repo, "evil.txt"), `line one ${HOSTILE} end\n`);
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

describe("print mode on a terminal", () => {
    it("strips sequences from model text, whatever deltas split them", async () => {
        // Every sequence cut in two between deltas: "…\x1b]0;pwn" | "ed-title\x07…".
        const chunks = HOSTILE.match(/[\s\S]{1,5}/g)!;
        server.enqueue({ text: ["Answer: ", ...chunks, " — ünïcödé 🎉\tok\r\nnext line"] });
        const run = await runNorth(["-p", "hello", "--path", repo], { env });
        expect(run.stderr).toBe("");
        expect(run.code).toBe(0);
        expect(run.stdout).toBe(`Answer: ${VISIBLE} — ünïcödé 🎉\tok\r\nnext line\n`);
        expect(run.stderr).not.toMatch(RAW_CONTROL);
    });

    it("strips sequences from a file the model reads and quotes", async () => {
        server.enqueue(
            { toolCalls: [{ id: "toolu_1", name: "read_file", input: { path: "evil.txt" } }] },
            { text: `The file says: line one ${HOSTILE} end` }
        );
        const run = await runNorth(["-p", "what is in evil.txt?", "--path", repo], { env });
        expect(run.code).toBe(0);
        expect(run.stdout).toBe(`The file says: line one ${VISIBLE} end\n`);
        // The model itself still read the file as it is.
        const body = server.requests[1]!.body as {
            messages: Array<{ content: Array<{ type: string; content?: string }> | string }>;
        };
        const blocks = body.messages.at(-1)!.content as Array<{ type: string; content?: string }>;
        const result = JSON.parse(blocks.find((b) => b.type === "tool_result")!.content!) as {
            content: string;
        };
        expect(result.content).toBe(`line one ${HOSTILE} end`);
    });

    it("strips sequences from a server's error message on stderr", async () => {
        server.enqueue({
            error: { status: 400, message: `bad request ${HOSTILE}` },
        });
        const run = await runNorth(["-p", "hello", "--path", repo], { env });
        expect(run.code).toBe(1);
        // (Error messages are flattened to one line: the CR became a space.)
        expect(run.stderr).toContain("bad request ABCDEFG H");
        expect(run.stderr).not.toMatch(RAW_CONTROL);
        expect(run.stderr).not.toContain("pwned");
    });

    it("escapes C1 controls in JSON output, which still parses to the exact text", async () => {
        server.enqueue({ text: ["x", HOSTILE.slice(0, 20), HOSTILE.slice(20)] });
        const run = await runNorth(["-p", "hi", "--path", repo, "--output-format", "json"], {
            env,
        });
        expect(run.code).toBe(0);
        expect(run.stdout).not.toMatch(RAW_CONTROL);
        expect(JSON.parse(run.stdout).result).toBe(`x${HOSTILE}`);
    });

    it("escapes them in stream-json lines too", async () => {
        server.enqueue({ text: ["x", HOSTILE] });
        const run = await runNorth(["-p", "hi", "--path", repo, "--output-format", "stream-json"], {
            env,
        });
        expect(run.code).toBe(0);
        expect(run.stdout).not.toMatch(RAW_CONTROL);
        const lines = run.stdout
            .trim()
            .split("\n")
            .map((line) => JSON.parse(line) as { type: string; text?: string });
        const streamed = lines
            .filter((l) => l.type === "text_delta")
            .map((l) => l.text)
            .join("");
        expect(streamed).toBe(`x${HOSTILE}`);
    });
});
