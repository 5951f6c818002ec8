import { createServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { checkProviders } from "../../src/cli/doctor-checks";
import type { ProviderInfo } from "../../src/providers/catalogue";
import type { ModelCatalogue } from "../../src/providers/models";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";

let server: FakeLlmServer;

beforeAll(async () => {
    server = await startFakeLlmServer();
});
afterAll(async () => {
    await server.close();
});
beforeEach(() => {
    server.requests.length = 0;
});

function catalogue(...providers: ProviderInfo[]): ModelCatalogue {
    return { models: [], providers: new Map(providers.map((p) => [p.id, p])), defaultModelId: "" };
}

const statusLines = (checks: Array<{ status: string; label: string; detail: string }>) =>
    checks.map((c) => `${c.status} ${c.label}: ${c.detail}`);

describe("doctor's provider checks", () => {
    // A cloud provider here speaks the Messages API with no signer, so the fake refuses it.
    const vertex: ProviderInfo = {
        id: "vertex",
        api: "anthropic",
        display: "Vertex",
        auth: "google",
        baseUrl: "",
    };

    it("leaves a cloud provider alone until it is configured, selected or switched on", async () => {
        const cloud = { ...vertex, baseUrl: server.url };
        const idle = await checkProviders(catalogue(cloud), new Set(), undefined, {});
        expect(statusLines(idle)).toEqual([
            "info vertex: not in use (configure providers.vertex or set CLAUDE_CODE_USE_VERTEX=1); credentials from Google application default credentials",
        ]);
        expect(server.requests).toEqual([]);

        const off = await checkProviders(catalogue(cloud), new Set(), undefined, {
            CLAUDE_CODE_USE_VERTEX: "0",
        });
        expect(off[0]!.status).toBe("info");

        for (const [configured, inUse, env, why] of [
            [new Set(["vertex"]), undefined, {}, "configured"],
            [new Set<string>(), "vertex", {}, "the selected model's provider"],
            [
                new Set<string>(),
                undefined,
                { CLAUDE_CODE_USE_VERTEX: "1" },
                "CLAUDE_CODE_USE_VERTEX is set",
            ],
        ] as const) {
            const checks = await checkProviders(catalogue(cloud), configured, inUse, env);
            expect(statusLines(checks)).toEqual([
                `ok vertex: ${why}; credentials from Google application default credentials`,
                `fail vertex api: GET ${server.url}/v1/models: credentials refused (HTTP 401): authentication_error: x-api-key header is required`,
            ]);
        }
        expect(server.requests.every((r) => r.method === "GET")).toBe(true);
    });

    it("fails a switched-on provider whose key variable is unset", async () => {
        const foundry: ProviderInfo = {
            id: "foundry",
            api: "anthropic",
            display: "Microsoft Foundry",
            apiKeyEnv: "ANTHROPIC_FOUNDRY_API_KEY",
            baseUrl: server.url,
        };
        const checks = await checkProviders(catalogue(foundry), new Set(), undefined, {
            CLAUDE_CODE_USE_FOUNDRY: "true",
        });
        expect(statusLines(checks)).toEqual(["fail foundry: ANTHROPIC_FOUNDRY_API_KEY is not set"]);
    });

    it("names a bad base URL and an endpoint that does not serve the provider's API", async () => {
        const checks = await checkProviders(
            catalogue(
                { id: "bad", api: "openai-chat", display: "Bad", baseUrl: "ftp://example.test" },
                { id: "gem", api: "gemini", display: "Gem", baseUrl: server.url }
            ),
            new Set(),
            undefined,
            {}
        );
        const lines = statusLines(checks);
        expect(lines[1]).toMatch(/^fail bad api: bad: .*ftp:\/\/example\.test/);
        // The fake serves Anthropic's and OpenAI's routes only, so Gemini's model list is not found.
        expect(lines[3]).toMatch(/^fail gem api: Gemini API 404: .*GET \/v1beta\/models/);
    });

    it("gives up on a hanging endpoint after the time limit, checking the others in parallel", async () => {
        const sockets = new Set<Socket>();
        const hang = createServer(() => {});
        hang.on("connection", (socket: Socket) => sockets.add(socket));
        await new Promise<void>((resolve) => hang.listen(0, "127.0.0.1", resolve));
        const hangUrl = `http://127.0.0.1:${(hang.address() as AddressInfo).port}`;
        try {
            const started = performance.now();
            const checks = await checkProviders(
                catalogue(
                    { id: "stuck", api: "openai-chat", display: "Stuck", baseUrl: hangUrl },
                    {
                        id: "local",
                        api: "openai-chat",
                        display: "Local",
                        baseUrl: server.openaiBaseUrl,
                    }
                ),
                new Set(),
                undefined,
                {},
                { timeoutMs: 300 }
            );
            expect(performance.now() - started).toBeLessThan(5000);
            expect(statusLines(checks)).toEqual([
                "ok stuck: no key variable needed",
                "fail stuck api: no answer in 0.3 s (credentials or endpoint hang; check the network, proxy and token endpoint)",
                "ok local: no key variable needed",
                `ok local api: GET ${server.openaiBaseUrl}/models: credentials accepted (HTTP 200, 2 model(s) listed)`,
            ]);
        } finally {
            for (const socket of sockets) socket.destroy();
            await new Promise<void>((resolve) => hang.close(() => resolve()));
        }
    });
});
