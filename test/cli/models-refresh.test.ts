import { readFileSync, rmSync } from "node:fs";
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { refreshListedModels } from "../../src/cli/models-refresh";
import { buildCatalogue } from "../../src/providers/models";
import { FAKE_AWS_KEY_ID, FAKE_AWS_SECRET, startFakeBedrock } from "../kit/fake-bedrock";
import { isolatedHome, runNorth } from "../kit/run-north";

/**
 * Fakes of the two list endpoints, checking what the real ones check:
 * Anthropic's needs a key and `anthropic-version` and pages with
 * `after_id`; OpenAI's needs a bearer key.
 */
interface FakeLists {
    url: string;
    seen: Array<{ path: string; headers: IncomingMessage["headers"] }>;
    close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
}

const ANTHROPIC_PAGES: Record<string, unknown> = {
    "": {
        data: [
            { type: "model", id: "claude-opus-5-5", display_name: "Claude Opus 5.5" },
            { type: "model", id: "claude-sonnet-5-5", display_name: "Claude Sonnet 5.5" },
        ],
        has_more: true,
        first_id: "claude-opus-5-5",
        last_id: "claude-sonnet-5-5",
    },
    "claude-sonnet-5-5": {
        data: [{ type: "model", id: "claude-nova-0-1", display_name: "Claude Nova 0.1" }],
        has_more: false,
        first_id: "claude-nova-0-1",
        last_id: "claude-nova-0-1",
    },
};

async function startFakeLists(openaiStatus = 200): Promise<FakeLists> {
    const seen: FakeLists["seen"] = [];
    const server: Server = createServer((req, res) => {
        const url = new URL(req.url ?? "/", "http://127.0.0.1");
        seen.push({ path: url.pathname + url.search, headers: req.headers });
        if (req.method !== "GET") return send(res, 405, { error: { message: "GET only" } });
        if (url.pathname === "/v1/models" && req.headers["anthropic-version"] !== undefined) {
            const key = req.headers["x-api-key"] ?? req.headers.authorization;
            if (!key) {
                return send(res, 401, {
                    type: "error",
                    error: {
                        type: "authentication_error",
                        message: "x-api-key header is required",
                    },
                });
            }
            const page = ANTHROPIC_PAGES[url.searchParams.get("after_id") ?? ""];
            if (!page) return send(res, 400, { type: "error", error: { message: "bad after_id" } });
            return send(res, 200, page);
        }
        if (url.pathname === "/openai/v1/models") {
            if (req.headers.authorization !== "Bearer sk-openai-test") {
                return send(res, 401, { error: { message: "Incorrect API key provided" } });
            }
            if (openaiStatus !== 200) {
                return send(res, openaiStatus, {
                    error: { message: "The server had an error processing your request" },
                });
            }
            return send(res, 200, {
                object: "list",
                data: [
                    { id: "gpt-6.2-sol", object: "model", created: 1, owned_by: "openai" },
                    { id: "gpt-7-preview", object: "model", created: 2, owned_by: "openai" },
                ],
            });
        }
        return send(res, 404, { error: { message: `no route ${url.pathname}` } });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return {
        url: `http://127.0.0.1:${port}`,
        seen,
        close: () => new Promise((resolve) => server.close(() => resolve())),
    };
}

let fake: FakeLists | undefined;
let home: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
    const isolated = isolatedHome();
    home = isolated.home;
    env = isolated.env;
});
afterEach(async () => {
    await fake?.close();
    fake = undefined;
    rmSync(home, { recursive: true, force: true });
});

function withProviders(base: string): NodeJS.ProcessEnv {
    return {
        ...env,
        ANTHROPIC_API_KEY: "sk-ant-test",
        ANTHROPIC_BASE_URL: base,
        OPENAI_API_KEY: "sk-openai-test",
        OPENAI_BASE_URL: `${base}/openai/v1`,
    };
}

describe("north models --refresh", () => {
    it("lists every page of Anthropic's models and OpenAI's, marks unknown prices, saves the lists", async () => {
        fake = await startFakeLists();
        const run = await runNorth(["models", "--refresh"], { env: withProviders(fake.url) });
        expect(run.stderr).toBe("");
        expect(run.code).toBe(0);
        expect(run.stdout).toContain("anthropic: 3 models");
        expect(run.stdout).toMatch(/claude-opus-5-5\s+in catalogue, \$4\.00\/\$20\.00 per 1M/);
        expect(run.stdout).toMatch(/claude-nova-0-1\s+price unknown \(\$\?\)/);
        expect(run.stdout).toContain("openai: 2 models");
        expect(run.stdout).toMatch(/gpt-7-preview\s+price unknown/);
        // Cloud providers have no key variable to tell whether they are in use: not asked unless they are.
        expect(run.stdout).toContain(
            "bedrock: skipped (not in use: configure providers.bedrock or set CLAUDE_CODE_USE_BEDROCK=1)"
        );
        expect(run.stdout).toContain("azure: skipped (not in use: configure providers.azure)");
        // The second page was asked for with the first's last id, with the version header.
        const pages = fake.seen.filter((r) => r.path.startsWith("/v1/models"));
        expect(pages.map((r) => r.path)).toEqual([
            "/v1/models?limit=1000",
            "/v1/models?limit=1000&after_id=claude-sonnet-5-5",
        ]);
        expect(pages.every((r) => typeof r.headers["anthropic-version"] === "string")).toBe(true);

        const cache = JSON.parse(
            readFileSync(join(env.NORTH_DATA_DIR!, "listed-models.json"), "utf8")
        ) as { providers: Record<string, { models: Array<{ id: string }> }> };
        expect(cache.providers.anthropic!.models.map((m) => m.id)).toContain("claude-nova-0-1");
        expect(cache.providers.openai!.models.map((m) => m.id)).toContain("gpt-7-preview");

        // A listed model not in the catalogue is offered by completion as provider:id.
        const completion = await runNorth(["completion", "bash"], { env: withProviders(fake.url) });
        expect(completion.stdout).toContain("anthropic:claude-nova-0-1");
    });

    it("reports a failing provider on its line and still lists the others", async () => {
        fake = await startFakeLists(500);
        const run = await runNorth(["models", "--refresh"], { env: withProviders(fake.url) });
        expect(run.code).toBe(1);
        expect(run.stdout).toMatch(
            /openai: failed: GET \S+\/openai\/v1\/models answered 500: The server had an error processing your request/
        );
        expect(run.stdout).toContain("anthropic: 3 models");
        const cache = JSON.parse(
            readFileSync(join(env.NORTH_DATA_DIR!, "listed-models.json"), "utf8")
        ) as { providers: Record<string, { error?: string }> };
        expect(cache.providers.openai!.error).toContain("answered 500");
    });

    it("asks a cloud provider that Claude Code's switch turns on", async () => {
        fake = await startFakeLists();
        const bedrock = await startFakeBedrock({ region: "us-east-1" });
        try {
            const run = await runNorth(["models", "--refresh"], {
                env: {
                    ...withProviders(fake.url),
                    CLAUDE_CODE_USE_BEDROCK: "1",
                    AWS_REGION: "us-east-1",
                    AWS_ACCESS_KEY_ID: FAKE_AWS_KEY_ID,
                    AWS_SECRET_ACCESS_KEY: FAKE_AWS_SECRET,
                    AWS_ENDPOINT_URL: bedrock.url,
                    AWS_EC2_METADATA_DISABLED: "true",
                },
            });
            expect(run.stdout).toMatch(/^bedrock: [1-9]\d* models$/m);
            expect(run.stdout).toContain("azure: skipped (not in use");
        } finally {
            await bedrock.close();
        }
    });

    it("skips providers without a key, and says so when none is ready", async () => {
        const run = await runNorth(["models", "--refresh"], { env });
        expect(run.code).toBe(1);
        expect(run.stdout).toContain("anthropic: skipped");
        expect(run.stdout).toContain("ANTHROPIC_API_KEY");
        expect(run.stdout).toContain("no provider is ready to list its models");
    });

    it("refuses an unknown argument", async () => {
        const run = await runNorth(["models", "--refersh"], { env });
        expect(run.code).toBe(2);
        expect(run.stderr).toContain("--refersh");
    });

    it("gives up on a provider that never answers within the time limit; the others still list", async () => {
        fake = await startFakeLists();
        // A server that takes the request and never answers.
        const hanging = createServer(() => undefined);
        await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
        const { port } = hanging.address() as AddressInfo;
        try {
            const runEnv = {
                ...withProviders(fake.url),
                OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`,
            };
            let out = "";
            const code = await refreshListedModels(
                buildCatalogue({}, [], { env: runEnv }),
                runEnv,
                (text) => void (out += text),
                300
            );
            expect(code).toBe(1);
            expect(out).toContain("openai: failed: no answer within 300 ms");
            expect(out).toContain("anthropic: 3 models");
        } finally {
            hanging.closeAllConnections();
            await new Promise<void>((resolve) => hanging.close(() => resolve()));
        }
    });
});
