import { createServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { CredentialError } from "../../src/providers/errors";
import { createProvider } from "../../src/providers/index";
import { getJson, probeModelList } from "../../src/providers/probe-get";
import type { ProviderEndpoint } from "../../src/providers/types";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { type TestProxy, startTestProxy } from "../kit/test-proxy";

let server: FakeLlmServer;
let proxy: TestProxy;

beforeAll(async () => {
    server = await startFakeLlmServer({ keys: ["good-key"], models: ["m-1", "m-2", "m-3"] });
    proxy = await startTestProxy();
});
afterAll(async () => {
    await server.close();
    await proxy.close();
});
afterEach(() => {
    vi.unstubAllEnvs();
    server.requests.length = 0;
    proxy.seen.length = 0;
});

const never = new AbortController().signal;

describe("Provider.probe of the key providers", () => {
    it("Anthropic: GET /v1/models with the key and anthropic-version, no prompt", async () => {
        const provider = await createProvider({
            api: "anthropic",
            baseUrl: server.anthropicBaseUrl,
            apiKey: "good-key",
        });
        expect(await provider.probe!(never)).toEqual({
            ok: true,
            detail: `GET ${server.url}/v1/models: credentials accepted (HTTP 200, 3 model(s) listed)`,
        });
        const [request] = server.requests;
        expect(request!.method).toBe("GET");
        expect(request!.headers.authorization).toBe("Bearer good-key");
        expect(request!.headers["anthropic-version"]).toBeTruthy();
    });

    it("OpenAI Responses and Chat: GET /models with a bearer key; a refused key names the API's reason", async () => {
        for (const api of ["openai-responses", "openai-chat"] as const) {
            const good = await createProvider({
                api,
                baseUrl: server.openaiBaseUrl,
                apiKey: "good-key",
            });
            expect((await good.probe!(never)).ok).toBe(true);
            const bad = await createProvider({ api, baseUrl: server.openaiBaseUrl, apiKey: "bad" });
            expect(await bad.probe!(never)).toEqual({
                ok: false,
                detail: `GET ${server.openaiBaseUrl}/models: credentials refused (HTTP 401): invalid_request_error: Incorrect API key provided.`,
            });
        }
        expect(server.requests.every((r) => r.method === "GET" && r.path === "/v1/models")).toBe(
            true
        );
    });

    it("goes through HTTP_PROXY like the provider's POSTs", async () => {
        vi.stubEnv("HTTP_PROXY", proxy.url);
        vi.stubEnv("NO_PROXY", "");
        const provider = await createProvider({
            api: "anthropic",
            baseUrl: server.anthropicBaseUrl,
            apiKey: "good-key",
        });
        expect((await provider.probe!(never)).ok).toBe(true);
        expect(proxy.seen).toEqual([`GET ${server.url}/v1/models`]);
    });
});

describe("probe-get", () => {
    const spec = (endpoint: Partial<ProviderEndpoint>) => ({
        endpoint: {
            api: "anthropic" as const,
            apiKey: "",
            auth: "aws" as const,
            baseUrl: server.url,
            ...endpoint,
        },
        defaultBaseUrl: "https://unused.invalid",
        path: "/v1/models",
        headers: { "anthropic-version": "2023-06-01" },
    });

    it("runs the endpoint's signer on the GET (empty body) before it is sent", async () => {
        const seen: string[] = [];
        const answer = await getJson(
            spec({
                signer: {
                    sign: async (request) => {
                        seen.push(`${request.method} ${request.url.href} ${request.body.length}`);
                        request.headers["x-api-key"] = "good-key";
                    },
                },
            }),
            never
        );
        expect(answer.status).toBe(200);
        expect(seen).toEqual([`GET ${server.url}/v1/models 0`]);
        expect(server.requests[0]!.headers["x-api-key"]).toBe("good-key");
    });

    it("reports a CredentialError's message (how to refresh) and sends nothing", async () => {
        const result = await probeModelList(
            spec({
                signer: {
                    sign: async () => {
                        throw new CredentialError(
                            "the SSO session has expired: run `aws sso login --profile dev`"
                        );
                    },
                },
            }),
            never
        );
        expect(result).toEqual({
            ok: false,
            detail: "the SSO session has expired: run `aws sso login --profile dev`",
        });
        expect(server.requests).toEqual([]);
    });

    it("stops when the signal aborts an endpoint that never answers", async () => {
        const sockets = new Set<Socket>();
        const silent = createServer(() => {});
        silent.on("connection", (socket: Socket) => sockets.add(socket));
        await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
        const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
        try {
            const controller = new AbortController();
            const result = probeModelList(spec({ baseUrl: url }), controller.signal);
            // Abort once the request has reached the server, so the wait is real.
            await vi.waitFor(() => expect(sockets.size).toBe(1));
            controller.abort();
            expect(await result).toEqual({
                ok: false,
                detail: `GET ${url}/v1/models: no answer in time`,
            });
        } finally {
            for (const socket of sockets) socket.destroy();
            await new Promise<void>((resolve) => silent.close(() => resolve()));
        }
    });

    it("reads a 404 as reachable without a model list", async () => {
        const listless = await probeModelList({ ...spec({}), path: "/v1/nothing-here" }, never);
        expect(listless).toEqual({
            ok: true,
            detail: `GET ${server.url}/v1/nothing-here: reachable, lists no models (HTTP 404), so the credentials are not checked`,
        });
    });
});
