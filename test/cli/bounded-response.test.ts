/**
 * One response is bounded: an endless answer ends with a clear error (not a
 * retry), and a tool call refused for its size is not carried in the
 * history. Through the built CLI; needs `npm run build` first.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome, runNorth } from "../kit/run-north";

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
    repo = mkdtempSync(join(tmpdir(), "north-bounded-repo-"));
    writeFileSync(join(repo, "app.ts"), "export const retries = 3;\n");
    const isolated = isolatedHome();
    home = isolated.home;
    env = {
        ...isolated.env,
        ANTHROPIC_API_KEY: "k",
        ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
        OPENAI_API_KEY: "k",
        OPENAI_BASE_URL: server.openaiBaseUrl,
    };
    server.requests.length = 0;
});
afterEach(() => {
    expect(server.remaining()).toBe(0);
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

/** Every file under `dir`, read as text. */
function allFiles(dir: string): Array<{ path: string; text: string }> {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => {
            const path = join(entry.parentPath, entry.name);
            return { path, text: readFileSync(path, "utf8") };
        });
}

function useLocalChatModel(): void {
    mkdirSync(join(home, "config"), { recursive: true });
    writeFileSync(
        join(home, "config", "config.json"),
        JSON.stringify({
            providers: { local: { api: "openai-chat", baseUrl: server.openaiBaseUrl } },
            models: [{ alias: "qwen", id: "qwen2.5-coder:7b", provider: "local" }],
        })
    );
}

describe("an endless response", () => {
    it.each([
        ["Anthropic", ["--model", "sonnet-4-5"], "512,000"],
        ["OpenAI Responses", ["--model", "gpt-5.1"], "1,024,000"],
        ["OpenAI Chat Completions", ["--model", "qwen"], "65,536"],
    ])("through %s ends the run with a clear error, not a retry", async (_api, args, limit) => {
        if (args.includes("qwen")) useLocalChatModel();
        server.enqueue({ fault: "endless", text: "endless text, ".repeat(8) });
        const run = await runNorth(["-p", "talk forever", "--path", repo, ...args], { env });
        expect(run.code).toBe(1);
        expect(run.stderr).toContain(
            `north: the response was cut off: its text, thinking and tool arguments passed North's limit of ${limit} characters`
        );
        expect(run.stdout).toBe("");
        expect(server.requests).toHaveLength(1);
    });

    it("made of one event that never ends is cut off too", async () => {
        server.enqueue({ fault: "endless_event" });
        const run = await runNorth(
            ["-p", "one endless event", "--path", repo, "--output-format", "json"],
            { env }
        );
        expect(run.code).toBe(1);
        const result = JSON.parse(run.stdout) as Record<string, unknown>;
        expect(result).toMatchObject({ subtype: "error_during_execution", is_error: true });
        expect(result.result).toContain("one streamed event passed North's limit of 33,554,432");
        expect(server.requests).toHaveLength(1);
    });
});

describe("a tool call refused for its size", () => {
    const content = "z".repeat(300_000);
    const hugeCall = {
        id: "toolu_huge",
        name: "edit_create_file",
        input: { path: "big.txt", content },
    };

    it.each([
        ["Anthropic", []],
        ["OpenAI Responses", ["--model", "gpt-5.1"]],
    ])(
        "through %s is kept as a short placeholder, in later requests and on disk",
        async (_api, args) => {
            server.enqueue(
                { toolCalls: [hugeCall] },
                { toolCalls: [{ name: "list_root", input: {} }] },
                { text: "I will write it in smaller parts." }
            );
            const run = await runNorth(
                ["-p", "write a big file", "--path", repo, "--allow-edits", ...args],
                { env }
            );
            expect(run.stderr).toBe("");
            expect(run.code).toBe(0);
            expect(run.stdout).toBe("I will write it in smaller parts.\n");

            const [first, second, third] = server.requests;
            expect(first!.bodyBytes).toBeLessThan(100_000);
            // The call is replayed as a placeholder, and the model is told why it was refused.
            for (const request of [second!, third!]) {
                expect(request.bodyBytes).toBeLessThan(first!.bodyBytes + 5_000);
                expect(JSON.stringify(request.body)).not.toContain("zzzzzzzzzz");
            }
            const replay = JSON.stringify(second!.body);
            expect(replay).toContain("_north_omitted");
            const chars = JSON.stringify(hugeCall.input).length.toLocaleString("en-US");
            expect(replay).toContain(`input of ${chars} characters refused: over the 50 KB limit`);
            expect(replay).toContain("input_too_large");
            expect(replay).toContain("NORTH_FILE");
            // Nothing was written, and nothing under HOME (conversation, log) holds the input.
            expect(readdirSync(repo)).toEqual(["app.ts"]);
            const saved = allFiles(home);
            expect(saved.some((f) => f.text.includes("_north_omitted"))).toBe(true);
            expect(saved.filter((f) => f.text.includes("zzzzzzzzzz")).map((f) => f.path)).toEqual(
                []
            );
        }
    );
});
