import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTrustStore, readProjectConfig } from "../../src/storage/trust";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome, runNorth } from "../kit/run-north";
import { TEST_CERT_PATH, startTestProxy, startTlsFront } from "../kit/test-proxy";

const MCP_FIXTURE = fileURLToPath(
    new URL("../tools/mcp/fixtures/fake-server.mjs", import.meta.url)
);
const SECRET = "sk-doctor-secret-4242";

let server: FakeLlmServer;
let closedPort: number;
let repo: string;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
    server = await startFakeLlmServer();
    // A port that was just free: nothing listens there once the server is closed.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    closedPort = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
});
afterAll(async () => {
    await server.close();
});
beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), "north-doctor-repo-"));
    mkdirSync(join(repo, ".git"));
    const isolated = isolatedHome();
    home = isolated.home;
    env = { ...isolated.env, ANTHROPIC_API_KEY: SECRET, ANTHROPIC_BASE_URL: server.url };
    server.requests.length = 0;
});
afterEach(() => {
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

function put(path: string, value: unknown): void {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value));
}

const userConfig = () => join(env.NORTH_CONFIG_DIR!, "config.json");
const doctor = () => runNorth(["doctor", "--path", repo], { env });
const line = (output: string, label: string) =>
    output.split("\n").find((l) => l.slice(2).startsWith(`${label} `)) ?? "";

describe("north doctor", () => {
    it("passes with a provider that accepts its key (a model list, no prompt), never printing the key", async () => {
        const run = await doctor();
        expect(run.stderr).toBe("");
        expect(run.code).toBe(0);
        expect(line(run.stdout, "node")).toMatch(/^✓ node +v\d+\./);
        expect(line(run.stdout, "anthropic")).toMatch(/^✓ .*ANTHROPIC_API_KEY is set/);
        expect(line(run.stdout, "anthropic api")).toContain(
            `✓ anthropic api  GET ${server.url}/v1/models: credentials accepted (HTTP 200, 2 model(s) listed)`
        );
        expect(line(run.stdout, "openai")).toMatch(/^! .*OPENAI_API_KEY is not set/);
        expect(line(run.stdout, "git")).toMatch(/^✓ git +git version/);
        expect(line(run.stdout, "trust")).toMatch(
            /^✓ .*no project hooks, MCP servers or approvals/
        );
        expect(line(run.stdout, "log")).toContain(join(home, "state", "north", "north.log"));
        expect(line(run.stdout, "data")).toContain(join(home, "data"));
        expect(run.stdout).not.toContain(SECRET);
        // The key goes only where the chat would send it, and no prompt is sent.
        expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /v1/models"]);
        expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);
    });

    it("fails on a key the API refuses, with the API's message", async () => {
        const strict = await startFakeLlmServer({ keys: ["the-right-key"] });
        try {
            env.ANTHROPIC_BASE_URL = strict.url;
            env.OPENAI_API_KEY = "sk-wrong";
            env.OPENAI_BASE_URL = strict.openaiBaseUrl;
            const run = await doctor();
            expect(run.code).toBe(1);
            expect(line(run.stdout, "anthropic api")).toBe(
                `✗ anthropic api  GET ${strict.url}/v1/models: credentials refused (HTTP 401): authentication_error: invalid x-api-key`
            );
            expect(line(run.stdout, "openai api")).toMatch(
                /^✗ openai api +GET .*\/v1\/models: credentials refused \(HTTP 401\): invalid_request_error: Incorrect API key provided\.$/
            );
            expect(run.stdout).not.toContain(SECRET);
            expect(run.stdout).not.toContain("sk-wrong");
        } finally {
            await strict.close();
        }
    });

    it("checks the OpenAI key with GET /models and a bearer key", async () => {
        env.OPENAI_API_KEY = "sk-openai-doctor";
        env.OPENAI_BASE_URL = server.openaiBaseUrl;
        const run = await doctor();
        expect(run.code).toBe(0);
        expect(line(run.stdout, "openai api")).toMatch(
            /^✓ openai api +GET .*\/v1\/models: credentials accepted \(HTTP 200, 2 model\(s\) listed\)$/
        );
        const openai = server.requests.find(
            (r) => r.headers.authorization === "Bearer sk-openai-doctor"
        );
        expect(openai && `${openai.method} ${openai.path}`).toBe("GET /v1/models");
    });

    it("fails on a closed port (with the error code) and on an unset key variable", async () => {
        put(userConfig(), {
            providers: {
                gw: {
                    api: "openai-chat",
                    baseUrl: `http://127.0.0.1:${closedPort}/v1`,
                    apiKeyEnv: "GW_KEY",
                },
                lan: { api: "openai-chat", baseUrl: server.openaiBaseUrl, apiKeyEnv: "LAN_KEY" },
            },
        });
        env.GW_KEY = "gw-secret-value";
        const run = await doctor();
        expect(run.code).toBe(1);
        expect(line(run.stdout, "gw api")).toMatch(
            /^✗ gw api +GET http:\/\/127\.0\.0\.1:\d+\/v1\/models failed: ECONNREFUSED$/
        );
        expect(line(run.stdout, "lan")).toMatch(/^✗ lan +LAN_KEY is not set/);
        expect(line(run.stdout, "anthropic api")).toMatch(/^✓ /);
        expect(run.stdout).toMatch(/2 problem\(s\)/);
        expect(run.stdout).not.toContain("gw-secret-value");
        expect(run.stdout).not.toContain(SECRET);
    });

    it("rejects arguments and a missing --path with exit 2", async () => {
        const extra = await runNorth(["doctor", "now"], { env, cwd: repo });
        expect(extra.code).toBe(2);
        expect(extra.stderr).toContain("north doctor takes no arguments");
        const missing = await runNorth(["doctor", "--path", join(repo, "nope")], { env });
        expect(missing.code).toBe(2);
        expect(missing.stderr).toContain("does not exist");
    });

    it("fails on a config.json that is not JSON, naming the file", async () => {
        put(userConfig(), '{"selectedModel": "sonnet-4",');
        const run = await doctor();
        expect(run.code).toBe(1);
        expect(line(run.stdout, "config")).toMatch(/^✗ config +.*config\.json is not valid JSON/);
        expect(line(run.stdout, "config")).toContain(userConfig());
    });

    it("fails on a .mcp.json that is not JSON, naming the file", async () => {
        put(join(repo, ".mcp.json"), "{ mcpServers: }");
        const run = await doctor();
        expect(run.code).toBe(1);
        expect(run.stdout).toContain(`✗ config`);
        expect(run.stdout).toContain(`${join(repo, ".mcp.json")} is not valid JSON`);
    });

    it("checks the provider through HTTP_PROXY, as the providers would go", async () => {
        const seen: string[] = [];
        const proxy = createServer((req, res) => {
            seen.push(`${req.method} ${req.url}`);
            res.writeHead(200, { "content-type": "application/json" }).end('{"data":[]}');
        });
        await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
        env.ANTHROPIC_BASE_URL = "http://llm.doctor.invalid:8080";
        env.HTTP_PROXY = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
        try {
            const run = await doctor();
            expect(run.code).toBe(0);
            expect(line(run.stdout, "anthropic api")).toContain(
                "GET http://llm.doctor.invalid:8080/v1/models: credentials accepted (HTTP 200, 0 model(s) listed) via HTTP_PROXY"
            );
            expect(seen).toEqual(["GET http://llm.doctor.invalid:8080/v1/models"]);
        } finally {
            await new Promise<void>((resolve) => proxy.close(() => resolve()));
        }
    });

    it("checks an https endpoint through HTTPS_PROXY, trusting NODE_EXTRA_CA_CERTS", async () => {
        const proxy = await startTestProxy();
        const front = await startTlsFront(server.url);
        try {
            env.ANTHROPIC_BASE_URL = front.url;
            env.HTTPS_PROXY = proxy.url;
            env.NO_PROXY = "";
            env.NODE_EXTRA_CA_CERTS = TEST_CERT_PATH;
            const run = await doctor();
            expect(line(run.stdout, "anthropic api")).toBe(
                `✓ anthropic api  GET ${front.url}/v1/models: credentials accepted (HTTP 200, 2 model(s) listed) via HTTPS_PROXY`
            );
            expect(proxy.seen).toContain(`CONNECT ${new URL(front.url).host}`);
        } finally {
            await front.close();
            await proxy.close();
        }
    });

    it("warns about an unknown project key without failing", async () => {
        put(join(repo, ".north", "settings.json"), { editsAutoAcept: true });
        const run = await doctor();
        expect(run.code).toBe(0);
        const config = line(run.stdout, "config");
        expect(config).toMatch(/^! /);
        expect(config).toContain("editsAutoAcept");
        expect(config).toContain(join(repo, ".north", "settings.json"));
    });

    it("lists an untrusted project's MCP servers as not started", async () => {
        put(join(repo, ".mcp.json"), {
            mcpServers: { evil: { command: "sh", args: ["-c", "touch pwned-mcp"] } },
        });
        const run = await doctor();
        expect(run.code).toBe(0);
        expect(line(run.stdout, "trust")).toMatch(
            /^! .*is not trusted, so these stay off: 1 MCP server \(\.mcp\.json\)/
        );
        expect(line(run.stdout, "mcp evil")).toMatch(
            /^! .*not started: the project is not trusted/
        );
        expect(existsSync(join(repo, "pwned-mcp"))).toBe(false);
    });

    it("starts a trusted project's MCP servers: one comes up, one fails", async () => {
        put(join(repo, ".mcp.json"), {
            mcpServers: {
                good: { command: process.execPath, args: [MCP_FIXTURE] },
                broken: { command: process.execPath, args: [MCP_FIXTURE, "exit-at-start"] },
            },
        });
        const fingerprint = readProjectConfig(repo).fingerprint!;
        createTrustStore(env.NORTH_DATA_DIR!).trust(repo, fingerprint);
        const run = await doctor();
        expect(run.code).toBe(1);
        expect(line(run.stdout, "trust")).toMatch(/^✓ .*is trusted/);
        expect(line(run.stdout, "mcp good")).toMatch(/^✓ .*stdio, project: started, \d+ tool\(s\)/);
        expect(line(run.stdout, "mcp broken")).toMatch(/^✗ .*stdio, project: /);
    });
});
