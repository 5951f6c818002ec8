import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { type FakeOpenRouter, startFakeOpenRouter } from "../kit/fake-openrouter";
import { isolatedHome, runNorth } from "../kit/run-north";

const KEY = "sk-or-v1-print";
const MODEL = "anthropic/claude-sonnet-4.5";

let router: FakeOpenRouter;
let repo: string;
let home: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
    router = await startFakeOpenRouter({
        apiKey: KEY,
        models: [
            {
                id: MODEL,
                name: "Claude Sonnet 4.5",
                context_length: 1_000_000,
                pricing: { prompt: "0.000003", completion: "0.000015" },
                top_provider: { max_completion_tokens: 64_000 },
            },
        ],
    });
    repo = mkdtempSync(join(tmpdir(), "north-gw-"));
    const isolated = isolatedHome();
    home = isolated.home;
    mkdirSync(join(home, "config"), { recursive: true });
    // The preset, pointed at the fake: only the base URL changes.
    writeFileSync(
        join(home, "config", "config.json"),
        JSON.stringify({ providers: { openrouter: { baseUrl: router.baseUrl } } })
    );
    env = { ...isolated.env, OPENROUTER_API_KEY: KEY };
});
afterEach(async () => {
    expect(router.remaining()).toBe(0);
    await router.close();
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

describe("north -p through OpenRouter", () => {
    it("reports the cost OpenRouter states as total_cost_usd, summed over the turns", async () => {
        router.enqueue(
            {
                toolCalls: [{ name: "list_root", input: {} }],
                usage: { input: 900, output: 20 },
                cost: 0.0125,
            },
            {
                text: "Nothing here.",
                usage: { input: 950, output: 5, cacheRead: 800 },
                cacheWrite: 100,
                cost: 0.0031,
            }
        );
        const run = await runNorth(
            [
                "-p",
                "what is here?",
                "--path",
                repo,
                "--model",
                `openrouter:${MODEL}`,
                "--output-format",
                "json",
            ],
            { env }
        );
        expect(run.stderr).toBe("");
        expect(run.code).toBe(0);
        const result = JSON.parse(run.stdout.trim()) as Record<string, unknown>;
        expect(result).toMatchObject({ is_error: false, result: "Nothing here." });
        expect(result.total_cost_usd).toBeCloseTo(0.0156, 8);
        expect(router.requests.every((r) => r.headers["x-title"] === "North")).toBe(true);
    });
});
