import http from "node:http";
import type { AddressInfo } from "node:net";
import { BaseAnthropic } from "@anthropic-ai/sdk/client";
import * as anthropicErrors from "@anthropic-ai/sdk/error";
import { Messages } from "@anthropic-ai/sdk/resources/messages/messages";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createAnthropicProvider } from "../../src/providers/anthropic";
import { CredentialError, classifyError } from "../../src/providers/errors";
import { createOpenAIChatProvider } from "../../src/providers/openai-chat";
import { createOpenAIResponsesProvider } from "../../src/providers/openai-responses";
import type { ProviderEndpoint } from "../../src/providers/types";
import { collect, errorOf, request } from "./helpers";

interface Recorded {
    url: string;
    headers: http.IncomingHttpHeaders;
    body: unknown;
}

// Every request is answered with the same 400, so both paths end in the SDK's status error.
const ERROR_BODY = {
    type: "error",
    error: { type: "invalid_request_error", message: "max_tokens: too large" },
};

let server: http.Server;
let baseUrl: string;
const recorded: Recorded[] = [];

beforeAll(async () => {
    server = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (chunk: Buffer) => chunks.push(chunk));
        req.on("end", () => {
            recorded.push({
                url: req.url ?? "",
                headers: req.headers,
                body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown,
            });
            res.writeHead(400, { "content-type": "application/json", "request-id": "req_1" });
            res.end(JSON.stringify(ERROR_BODY));
        });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
});

function endpoint(api: ProviderEndpoint["api"], path = ""): ProviderEndpoint {
    return {
        api,
        baseUrl: baseUrl + path,
        apiKey: "sk-test-key",
        headers: { "X-Custom-Header": "custom-value" },
        timeoutMs: 90_000,
    };
}

/** The SDK's options for an endpoint, as North configured it before it sent requests itself. */
function sdkOptions(ep: ProviderEndpoint) {
    return { apiKey: ep.apiKey, baseURL: ep.baseUrl, maxRetries: 0, defaultHeaders: ep.headers };
}

/** The headers a service reads: credentials, API version, body type and the user's own. */
const SERVICE_HEADERS = [
    "authorization",
    "anthropic-version",
    "content-type",
    "openai-organization",
    "openai-project",
    "x-custom-header",
    "x-env-header",
];

function serviceHeaders(headers: http.IncomingHttpHeaders): Record<string, unknown> {
    return Object.fromEntries(SERVICE_HEADERS.map((name) => [name, headers[name]]));
}

/**
 * The SDK's request and North's for the same call: same URL, body, the
 * headers a service reads, and the same classified error.
 */
async function compare(
    viaSdk: (signal: AbortSignal) => Promise<unknown>,
    sdkErrors: Parameters<typeof classifyError>[1]["sdk"],
    viaNorth: () => ReturnType<typeof collect>
): Promise<void> {
    recorded.length = 0;
    const sdkError = await viaSdk(new AbortController().signal).then(
        () => undefined,
        (error: unknown) => error
    );
    const northError = errorOf(await viaNorth()).error;
    expect(recorded).toHaveLength(2);
    const [sdk, north] = recorded as [Recorded, Recorded];
    expect(north.url).toBe(sdk.url);
    expect(north.body).toEqual(sdk.body);
    expect(serviceHeaders(north.headers)).toEqual(serviceHeaders(sdk.headers));
    expect(north.headers["x-custom-header"]).toBe("custom-value");
    expect(north.headers["x-env-header"]).toBe("from-env");
    expect(north.headers["authorization"]).toBe("Bearer sk-test-key");
    expect(northError).toEqual(classifyError(sdkError, { label: northLabel, sdk: sdkErrors }));
    expect(northError).toMatchObject({ kind: "bad_request", status: 400 });
}

let northLabel = "";

describe("requests North sends, next to the SDK's for the same call", () => {
    // The SDKs' variables for extra headers, organization and project, read by both sides.
    const saved = { ...process.env };
    beforeAll(() => {
        process.env.ANTHROPIC_CUSTOM_HEADERS = "X-Env-Header: from-env\nmalformed line";
        process.env.OPENAI_CUSTOM_HEADERS = "X-Env-Header: from-env";
        process.env.OPENAI_ORG_ID = "org-test";
        process.env.OPENAI_PROJECT_ID = "proj-test";
    });
    afterAll(() => {
        for (const name of [
            "ANTHROPIC_CUSTOM_HEADERS",
            "OPENAI_CUSTOM_HEADERS",
            "OPENAI_ORG_ID",
            "OPENAI_PROJECT_ID",
        ])
            if (saved[name] === undefined) delete process.env[name];
            else process.env[name] = saved[name];
    });

    it("Anthropic: the same headers, body and error as the SDK", async () => {
        northLabel = "Anthropic API";
        const ep = endpoint("anthropic");
        const params = {
            model: "test-model",
            max_tokens: 1024,
            messages: [
                {
                    role: "user" as const,
                    content: [
                        {
                            type: "text" as const,
                            text: "Hi",
                            cache_control: { type: "ephemeral" as const },
                        },
                    ],
                },
            ],
            system: [
                {
                    type: "text" as const,
                    text: "You are a test.",
                    cache_control: { type: "ephemeral" as const },
                },
            ],
            stream: true as const,
        };
        await compare(
            (signal) =>
                new Messages(new BaseAnthropic(sdkOptions(ep)))
                    .create(params, { signal })
                    .asResponse(),
            anthropicErrors,
            () => collect(createAnthropicProvider(ep), request())
        );
    });

    it("OpenAI Responses: the same headers, body and error as the SDK", async () => {
        northLabel = "OpenAI API";
        const ep = endpoint("openai-responses", "/v1");
        const provider = createOpenAIResponsesProvider(ep);
        recorded.length = 0;
        await collect(provider, request());
        const params = recorded[0]!.body as OpenAI.Responses.ResponseCreateParamsStreaming;
        await compare(
            (signal) =>
                new OpenAI(sdkOptions(ep)).responses.create(params, { signal }).asResponse(),
            OpenAI,
            () => collect(provider, request())
        );
    });

    it("OpenAI Chat Completions: the same headers, body and error as the SDK", async () => {
        northLabel = "OpenAI-compatible API";
        const ep = endpoint("openai-chat", "/v1");
        const provider = createOpenAIChatProvider(ep);
        recorded.length = 0;
        await collect(provider, request());
        const params = recorded[0]!.body as OpenAI.Chat.ChatCompletionCreateParamsStreaming;
        await compare(
            (signal) =>
                new OpenAI(sdkOptions(ep)).chat.completions.create(params, { signal }).asResponse(),
            OpenAI,
            () => collect(provider, request())
        );
    });
});

describe("request logging", () => {
    it("ANTHROPIC_LOG=info logs each request's outcome to stderr, as the SDK's variable does", async () => {
        const lines: string[] = [];
        const write = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
            lines.push(String(chunk));
            return true;
        });
        process.env.ANTHROPIC_LOG = "info";
        try {
            await collect(createAnthropicProvider(endpoint("anthropic")), request());
        } finally {
            delete process.env.ANTHROPIC_LOG;
            write.mockRestore();
        }
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(
            /^ANTHROPIC_LOG: POST http:\/\/127\.0\.0\.1:\d+\/v1\/messages 400 after \d+ ms\n$/
        );
    });
});

describe("failures before the response", () => {
    let silent: http.Server;
    let silentUrl: string;
    beforeAll(async () => {
        // Accepts requests and never answers.
        silent = http.createServer(() => undefined);
        await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
        silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
        silent.closeAllConnections();
        await new Promise<void>((resolve) => silent.close(() => resolve()));
    });

    it("a server that never answers is a retryable timeout", async () => {
        const provider = createAnthropicProvider({
            api: "anthropic",
            baseUrl: silentUrl,
            apiKey: "sk-test-key",
            timeoutMs: 50,
        });
        const error = errorOf(await collect(provider, request())).error;
        expect(error).toMatchObject({ kind: "timeout", retryable: true });
    });

    it("cancelling while waiting for the answer reports a cancel", async () => {
        const provider = createOpenAIResponsesProvider({
            api: "openai-responses",
            baseUrl: silentUrl,
            apiKey: "sk-test-key",
        });
        const controller = new AbortController();
        const collecting = collect(provider, request(), controller.signal);
        // Abort once the request reached the server.
        await new Promise<void>((resolve) => silent.once("request", () => resolve()));
        controller.abort();
        expect(errorOf(await collecting).error.kind).toBe("cancelled");
    });

    it("a refused connection is a retryable network error", async () => {
        const closed = http.createServer();
        await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
        const port = (closed.address() as AddressInfo).port;
        await new Promise<void>((resolve) => closed.close(() => resolve()));
        const provider = createOpenAIChatProvider({
            api: "openai-chat",
            baseUrl: `http://127.0.0.1:${port}/v1`,
            apiKey: "",
        });
        const error = errorOf(await collect(provider, request())).error;
        expect(error).toMatchObject({ kind: "network", retryable: true });
    });
});

describe("signed requests (cloud credentials)", () => {
    it("a signer sees the final URL, headers and body and its headers are sent", async () => {
        recorded.length = 0;
        const seen: string[] = [];
        const ep: ProviderEndpoint = {
            ...endpoint("anthropic"),
            auth: "aws",
            signer: {
                sign: (req) => {
                    seen.push(`${req.method} ${req.url.pathname} ${req.body.length > 0}`);
                    req.headers["x-signed"] = "yes";
                    return Promise.resolve();
                },
            },
        };
        await collect(createAnthropicProvider(ep), request());
        expect(seen).toEqual(["POST /v1/messages true"]);
        expect(recorded[0]?.headers["x-signed"]).toBe("yes");
        // A signed provider sends no key of its own.
        expect(recorded[0]?.headers.authorization).toBeUndefined();
    });

    it("credentials that fail before sending end the stream with an auth error, nothing sent", async () => {
        recorded.length = 0;
        const ep: ProviderEndpoint = {
            ...endpoint("anthropic"),
            auth: "aws",
            signer: {
                sign: () =>
                    Promise.reject(
                        new CredentialError("the SSO session expired: run `aws sso login`")
                    ),
            },
        };
        const error = errorOf(await collect(createAnthropicProvider(ep), request())).error;
        expect(error).toMatchObject({ kind: "auth", retryable: false });
        expect(error.message).toContain("aws sso login");
        expect(recorded).toHaveLength(0);
    });
});
