import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
    FAKE_GEMINI_KEY,
    type FakeGemini,
    type GeminiFakeTurn,
    startFakeGemini,
} from "../kit/fake-gemini";
import { isolatedHome, runNorth } from "../kit/run-north";

// `north -p --web-search` on Gemini's own API: Google Search grounding end to end through bin/north.js.

let fake: FakeGemini;
let repo: string;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
    fake = await startFakeGemini();
});
afterAll(() => fake.close());
beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), "north-gemini-search-"));
    const isolated = isolatedHome();
    home = isolated.home;
    env = { ...isolated.env, GEMINI_API_KEY: FAKE_GEMINI_KEY, GOOGLE_GEMINI_BASE_URL: fake.url };
    fake.requests.length = 0;
});
afterEach(() => {
    expect(fake.remaining()).toBe(0);
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

// The API names the pages by redirect URIs, with the site as the title.
const RELEASES = {
    uri: "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQnodejs",
    title: "nodejs.org",
};
const BLOG = {
    uri: "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQgithub",
    title: "github.com",
};

const groundedTurn = (): GeminiFakeTurn => ({
    text: "Node 24 is the active LTS. It came out in 2025.",
    usage: { input: 1000, output: 200 },
    gemini: {
        grounding: {
            queries: ["node lts", "node 24 release date"],
            pages: [RELEASES, BLOG],
            supports: [
                { text: "Node 24 is the active LTS.", pages: [0] },
                { text: "It came out in 2025.", pages: [0, 1] },
            ],
        },
    },
});

// gemini-3.8-flash: $0.75 / $3.75 per million tokens, and $14 per 1,000 search queries.
const COST = (1000 * 0.75 + 200 * 3.75) / 1e6 + 2 * 0.014;

const searchArgs = () => ["--web-search", "--model", "gemini:gemini-3.8-flash", "--path", repo];

describe("north -p --web-search with a Gemini model", () => {
    it("offers Google Search and shows its queries, pages and citations, counting each query", async () => {
        fake.enqueue(groundedTurn());
        const run = await runNorth(
            ["-p", "which node is lts?", ...searchArgs(), "--output-format", "stream-json"],
            { env }
        );
        expect(run.stderr).toBe("");
        expect(run.code).toBe(0);
        const tools = (fake.requests[0]!.body as { tools: unknown[] }).tools;
        expect(tools).toContainEqual({ googleSearch: {} });
        const out = run.stdout
            .trim()
            .split("\n")
            .map((line) => JSON.parse(line) as Record<string, unknown>);
        expect(out.find((l) => l.type === "web_search")).toMatchObject({
            query: "node lts; node 24 release date",
            sources: [
                { url: RELEASES.uri, title: "nodejs.org" },
                { url: BLOG.uri, title: "github.com" },
            ],
        });
        expect(out.find((l) => l.type === "citations")).toEqual({
            type: "citations",
            citations: [
                { url: RELEASES.uri, title: "nodejs.org" },
                { url: BLOG.uri, title: "github.com" },
            ],
        });
        expect(out.at(-1)).toMatchObject({
            type: "result",
            result: "Node 24 is the active LTS. It came out in 2025.",
            usage: { web_search_requests: 2 },
        });
    });

    it("prices the searches with the tokens in --output-format json", async () => {
        fake.enqueue(groundedTurn());
        const run = await runNorth(
            ["-p", "which node is lts?", ...searchArgs(), "--output-format", "json"],
            { env }
        );
        // Google Search has no per-answer limit, which North says once.
        expect(run.stderr).toBe(
            "north: warning: Web search: this provider's web search cannot be limited per answer, so maxUses (5) does not apply.\n"
        );
        expect(run.code).toBe(0);
        const result = JSON.parse(run.stdout) as Record<string, unknown>;
        expect(result).toMatchObject({
            type: "result",
            is_error: false,
            result: "Node 24 is the active LTS. It came out in 2025.",
            usage: { input_tokens: 1000, output_tokens: 200, web_search_requests: 2 },
        });
        expect(result.total_cost_usd).toBeCloseTo(COST, 6);
    });
});
