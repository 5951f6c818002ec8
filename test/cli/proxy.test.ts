import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome, runNorth } from "../kit/run-north";
import { TEST_CERT_PATH, type TestProxy, startTestProxy, startTlsFront } from "../kit/test-proxy";

let server: FakeLlmServer;
let proxy: TestProxy;
let repo: string;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
    server = await startFakeLlmServer();
    proxy = await startTestProxy();
});
afterAll(async () => {
    await proxy.close();
    await server.close();
});
beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), "north-proxy-repo-"));
    const isolated = isolatedHome();
    home = isolated.home;
    env = { ...isolated.env, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.anthropicBaseUrl };
    server.requests.length = 0;
    proxy.seen.length = 0;
});
afterEach(() => {
    expect(server.remaining()).toBe(0);
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

const print = (extraEnv: NodeJS.ProcessEnv) =>
    runNorth(["-p", "hello", "--path", repo], { env: { ...env, ...extraEnv } });

describe("provider requests through a proxy", () => {
    it("a print session goes through HTTP_PROXY", async () => {
        server.enqueue({ text: "Hello through the proxy." });
        // NO_PROXY set (even empty) decides alone; without it 127.0.0.1 would be reached directly.
        const run = await print({ HTTP_PROXY: proxy.url, NO_PROXY: "" });
        expect(run.stderr).toBe("");
        expect(run.stdout).toBe("Hello through the proxy.\n");
        expect(proxy.seen).toEqual([`POST ${server.anthropicBaseUrl}/v1/messages`]);
    });

    it("without NO_PROXY, a server on this machine is reached directly", async () => {
        server.enqueue({ text: "Local." });
        const run = await print({ HTTP_PROXY: proxy.url });
        expect(run.stdout).toBe("Local.\n");
        expect(proxy.seen).toEqual([]);
    });

    it("NO_PROXY matching the host: the proxy sees nothing", async () => {
        server.enqueue({ text: "Direct." });
        const run = await print({ http_proxy: proxy.url, no_proxy: "example.com,127.0.0.1" });
        expect(run.stdout).toBe("Direct.\n");
        expect(proxy.seen).toEqual([]);
        expect(server.requests).toHaveLength(1);
    });

    it("HTTPS goes through a CONNECT tunnel, trusting NODE_EXTRA_CA_CERTS", async () => {
        const front = await startTlsFront(server.url);
        try {
            server.enqueue({ text: "Hello over TLS." });
            const port = new URL(front.url).port;
            const run = await print({
                ANTHROPIC_BASE_URL: front.url,
                HTTPS_PROXY: new URL(proxy.url).host,
                NO_PROXY: "",
                NODE_EXTRA_CA_CERTS: TEST_CERT_PATH,
            });
            expect(run.stdout).toBe("Hello over TLS.\n");
            expect(proxy.seen).toEqual([`CONNECT localhost:${port}`]);
        } finally {
            await front.close();
        }
    });

    it("an unsupported proxy scheme is a configuration error naming the variable", async () => {
        const run = await print({ HTTP_PROXY: "socks5://127.0.0.1:1080" });
        expect(run.code).toBe(2);
        expect(run.stderr).toBe(
            'north: anthropic: HTTP_PROXY "socks5://127.0.0.1:1080" is a socks5 proxy; North supports http:// and https:// proxies\n'
        );
        expect(server.requests).toEqual([]);
    });
});

describe("provider configuration checked at start", () => {
    const writeConfig = (providers: object) => {
        mkdirSync(join(home, "config"), { recursive: true });
        writeFileSync(
            join(home, "config", "config.json"),
            JSON.stringify({
                providers,
                models: [{ alias: "gw-model", id: "m", provider: "gw" }],
            })
        );
    };

    it("a custom provider whose key variable is unset: exit 2, and `north models` does not call it ready", async () => {
        writeConfig({ gw: { baseUrl: server.openaiBaseUrl, apiKeyEnv: "GW_KEY" } });
        const run = await runNorth(["-p", "hi", "--path", repo, "--model", "gw-model"], { env });
        expect(run.code).toBe(2);
        expect(run.stderr).toMatch(
            /^north: gw: the key variable GW_KEY is not set: export GW_KEY=/
        );
        expect(server.requests).toEqual([]);
        const models = await runNorth(["models"], { env });
        const row = models.stdout.split("\n").find((line) => line.includes("gw-model"));
        expect(row).toMatch(/needs GW_KEY$/);
        const withKey = await runNorth(["models"], { env: { ...env, GW_KEY: "secret" } });
        expect(withKey.stdout.split("\n").find((l) => l.includes("gw-model"))).toMatch(/ready$/);
    });

    it("a base URL without a scheme: exit 2 naming the field, no request", async () => {
        writeConfig({ gw: { baseUrl: "localhost:11434/v1" } });
        const run = await runNorth(["-p", "hi", "--path", repo, "--model", "gw-model"], { env });
        expect(run.code).toBe(2);
        expect(run.stderr).toBe(
            'north: gw: providers.gw.baseUrl "localhost:11434/v1" is not an http:// or https:// URL: write "http://localhost:11434/v1"\n'
        );
        const models = await runNorth(["models"], { env });
        expect(models.stdout.split("\n").find((l) => l.includes("gw-model"))).toMatch(
            /bad base URL$/
        );
        const fromEnv = await runNorth(["-p", "hi", "--path", repo], {
            env: { ...env, ANTHROPIC_BASE_URL: "127.0.0.1:9" },
        });
        expect(fromEnv.code).toBe(2);
        expect(fromEnv.stderr).toContain('anthropic: ANTHROPIC_BASE_URL "127.0.0.1:9"');
    });
});
