import { readFileSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { nodeFetch } from "../../src/providers/node-fetch";
import { bypassesProxy, proxiedRequest, proxyFor } from "../../src/providers/proxy";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { TEST_CERT_PATH, type TestProxy, startTestProxy, startTlsFront } from "../kit/test-proxy";

describe("NO_PROXY", () => {
    const bypass = (target: string, list: string) => bypassesProxy(new URL(target), list);

    it("matches hosts, their subdomains, ports and *", () => {
        expect(bypass("https://api.example.com/v1", "example.com")).toBe(true);
        expect(bypass("https://api.example.com/v1", ".example.com")).toBe(true);
        expect(bypass("https://api.example.com/v1", "*.example.com")).toBe(true);
        expect(bypass("https://example.com/v1", ".example.com")).toBe(true);
        expect(bypass("https://notexample.com/v1", "example.com")).toBe(false);
        expect(bypass("http://localhost:11434/v1", "foo, LOCALHOST")).toBe(true);
        expect(bypass("http://127.0.0.1:11434/v1", "127.0.0.1:11434")).toBe(true);
        expect(bypass("http://127.0.0.1:8080/v1", "127.0.0.1:11434")).toBe(false);
        expect(bypass("https://api.openai.com/v1", "example.com:443 api.openai.com")).toBe(true);
        expect(bypass("http://[::1]:8080/", "::1")).toBe(true);
        expect(bypass("http://[::1]:8080/", "[::1]:8080")).toBe(true);
        expect(bypass("https://anything.test/", "*")).toBe(true);
        expect(bypass("https://anything.test/", "")).toBe(false);
    });
});

describe("proxyFor", () => {
    const target = new URL("https://api.anthropic.com/v1/messages");

    it("takes HTTPS_PROXY for https and HTTP_PROXY for http, the lowercase name first", () => {
        const env = {
            HTTPS_PROXY: "http://upper:1",
            https_proxy: "http://lower:2",
            HTTP_PROXY: "http://plain:3",
        };
        const found = proxyFor(target, env);
        expect(found.ok && found.proxy?.href).toBe("http://lower:2/");
        expect(found.ok && found.variable).toBe("https_proxy");
        const plain = proxyFor(new URL("http://10.0.0.5:11434/v1"), env);
        expect(plain.ok && plain.proxy?.host).toBe("plain:3");
        expect(proxyFor(target, { HTTP_PROXY: "http://plain:3" })).toEqual({
            ok: true,
            proxy: undefined,
        });
    });

    it("reads a proxy without a scheme as http:// and refuses other schemes by name", () => {
        const bare = proxyFor(target, { HTTPS_PROXY: "proxy.corp:8080" });
        expect(bare.ok && bare.proxy?.href).toBe("http://proxy.corp:8080/");
        const socks = proxyFor(target, { HTTPS_PROXY: "socks5://proxy.corp:1080" });
        expect(!socks.ok && socks.error).toBe(
            'HTTPS_PROXY "socks5://proxy.corp:1080" is a socks5 proxy; North supports http:// and https:// proxies'
        );
        const broken = proxyFor(target, { https_proxy: "http://[oops" });
        expect(!broken.ok && broken.error).toMatch(
            /^https_proxy "http:\/\/\[oops" is not a proxy URL/
        );
    });

    it("reaches this machine directly unless NO_PROXY is set, even empty", () => {
        for (const host of ["localhost", "127.0.0.1", "127.1.2.3", "[::1]", "api.localhost"]) {
            const local = new URL(`http://${host}:11434/v1`);
            expect(proxyFor(local, { HTTP_PROXY: "http://proxy:1" })).toEqual({
                ok: true,
                proxy: undefined,
            });
            expect(proxyFor(local, { HTTP_PROXY: "http://proxy:1", NO_PROXY: "" })).toMatchObject({
                ok: true,
                variable: "HTTP_PROXY",
            });
        }
        expect(
            proxyFor(new URL("http://10.0.0.2:8000"), { HTTP_PROXY: "http://proxy:1" })
        ).toMatchObject({ variable: "HTTP_PROXY" });
    });

    it("goes direct when NO_PROXY covers the host", () => {
        const env = { HTTPS_PROXY: "http://proxy:1", no_proxy: "anthropic.com" };
        expect(proxyFor(target, env)).toEqual({ ok: true, proxy: undefined });
    });
});

describe("requests through a proxy", () => {
    let server: FakeLlmServer;
    let proxy: TestProxy;

    beforeAll(async () => {
        server = await startFakeLlmServer();
    });
    afterAll(async () => {
        await server.close();
    });
    afterEach(async () => {
        vi.unstubAllEnvs();
        await proxy.close();
    });

    it("sends plain HTTP to the proxy in absolute form with the proxy's credentials", async () => {
        proxy = await startTestProxy({ auth: "me:s3cret" });
        const url = new URL(proxy.url);
        vi.stubEnv("HTTP_PROXY", `http://me:s3cret@${url.host}`);
        vi.stubEnv("NO_PROXY", "");
        server.enqueue({ text: "hi" });
        const res = await nodeFetch(`${server.url}/v1/chat/completions`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
                model: "m",
                stream: true,
                messages: [{ role: "user", content: "hi" }],
            }),
        });
        expect(res.status).toBe(200);
        await res.text();
        expect(proxy.seen).toEqual([`POST ${server.url}/v1/chat/completions`]);
        expect(server.requests.at(-1)?.headers.authorization).toBeUndefined();
    });

    it("tunnels HTTPS with CONNECT, and a refusal names the proxy and its status", async () => {
        proxy = await startTestProxy({ auth: "me:s3cret" });
        const front = await startTlsFront(server.url);
        const target = new URL(`${front.url}/v1/no-such-route`);
        const get = (proxyUrl: string) =>
            new Promise<IncomingMessage>((resolve, reject) => {
                const route = proxiedRequest(target, new URL(proxyUrl), {});
                const req = route.transport.request(route.url, {
                    ...route.options,
                    ca: readFileSync(TEST_CERT_PATH),
                });
                req.on("response", resolve).on("error", reject).end();
            });
        try {
            const host = new URL(proxy.url).host;
            await expect(get(`http://${host}`)).rejects.toThrow(
                `proxy ${host} refused the tunnel to localhost:${target.port}: 407 Proxy Authentication Required`
            );
            const res = await get(`http://me:s3cret@${host}`);
            res.resume();
            // The fake server answers 404 to a path it does not serve: the TLS session reached it.
            expect(res.statusCode).toBe(404);
            expect(proxy.seen).toEqual([
                `CONNECT localhost:${target.port}`,
                `CONNECT localhost:${target.port}`,
            ]);
        } finally {
            await front.close();
        }
    });
});
