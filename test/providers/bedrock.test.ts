import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createBedrockProvider } from "../../src/providers/bedrock/bedrock-provider";
import type { ProviderEndpoint, StreamRequest } from "../../src/providers/types";
import {
    FAKE_AWS_KEY_ID,
    FAKE_AWS_SECRET,
    type FakeBedrock,
    SONNET_BEDROCK_ID,
    SONNET_PROFILE_ID,
    startFakeBedrock,
} from "../kit/fake-bedrock";
import { READ_TOOL, collect, doneOf, errorOf, request } from "./helpers";

const ENDPOINT: ProviderEndpoint = { api: "bedrock", apiKey: "not-needed", auth: "aws" };

let fake: FakeBedrock;

beforeAll(async () => {
    fake = await startFakeBedrock({
        keys: {
            [FAKE_AWS_KEY_ID]: { secretAccessKey: FAKE_AWS_SECRET },
            ASIAFAKESESSION00001: { secretAccessKey: "sessionSecret", sessionToken: "tok/en+1" },
            ASIAFAKEEXPIRED00001: {
                secretAccessKey: "expiredSecret",
                sessionToken: "old-token",
                expired: true,
            },
        },
    });
});
afterAll(async () => {
    await fake.close();
});

beforeEach(() => {
    vi.stubEnv("AWS_ACCESS_KEY_ID", FAKE_AWS_KEY_ID);
    vi.stubEnv("AWS_SECRET_ACCESS_KEY", FAKE_AWS_SECRET);
    vi.stubEnv("AWS_SESSION_TOKEN", "");
    vi.stubEnv("AWS_PROFILE", "");
    vi.stubEnv("AWS_BEARER_TOKEN_BEDROCK", "");
    vi.stubEnv("AWS_REGION", "us-east-1");
    vi.stubEnv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", fake.url);
    vi.stubEnv("AWS_ENDPOINT_URL_BEDROCK", fake.url);
    vi.stubEnv("AWS_EC2_METADATA_DISABLED", "true");
});
afterEach(() => {
    vi.unstubAllEnvs();
});

const provider = () => createBedrockProvider(ENDPOINT);
const ask = (overrides: Partial<StreamRequest> = {}) =>
    collect(provider(), request({ apiModelId: SONNET_PROFILE_ID, ...overrides }));

describe("Bedrock streaming", () => {
    it("streams text from a SigV4-signed request whose body is the Messages body with Bedrock's version", async () => {
        fake.enqueue({ text: "Hello from Bedrock", usage: { input: 12, output: 4 } });
        const result = await ask();
        expect(result.text).toBe("Hello from Bedrock");
        const done = doneOf(result);
        expect(done.stopReason).toBe("end_turn");
        expect(done.usage).toMatchObject({ inputTokens: 12, outputTokens: 4 });
        const sent = fake.requests.at(-1)!;
        expect(sent.auth).toBe("sigv4");
        expect(sent.modelId).toBe(SONNET_PROFILE_ID);
        expect(sent.path).toBe(
            "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream"
        );
        expect(sent.headers.accept).toBe("application/vnd.amazon.eventstream");
        const body = sent.body as Record<string, unknown>;
        expect(body.anthropic_version).toBe("bedrock-2023-05-31");
        expect(body).not.toHaveProperty("model");
        expect(body).not.toHaveProperty("stream");
        expect(body.system).toEqual([
            { type: "text", text: "You are a test.", cache_control: { type: "ephemeral" } },
        ]);
    });

    it("streams tool calls and thinking, then replays them (signature kept, results paired)", async () => {
        fake.enqueue({
            thinking: { text: "Let me read it.", signature: "sig-bedrock-1" },
            toolCalls: [{ id: "toolu_bdrk_1", name: "read_file", input: { path: "a.ts" } }],
            usage: { input: 30, output: 9, cacheRead: 100, cacheWrite: 50 },
        });
        const first = await ask({ tools: [READ_TOOL], thinking: { budgetTokens: 2048 } });
        const done = doneOf(first);
        expect(first.thinking).toBe("Let me read it.");
        expect(done.stopReason).toBe("tool_use");
        expect(done.usage).toEqual({
            inputTokens: 30,
            outputTokens: 9,
            cacheReadTokens: 100,
            cacheWriteTokens: 50,
        });
        expect(done.message.content).toEqual([
            { type: "thinking", thinking: "Let me read it.", signature: "sig-bedrock-1" },
            {
                type: "tool_call",
                id: "toolu_bdrk_1",
                name: "read_file",
                input: { path: "a.ts" },
                rawInput: '{"path":"a.ts"}',
            },
        ]);
        const firstBody = fake.requests.at(-1)!.body as Record<string, unknown>;
        expect(firstBody.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });

        fake.enqueue({ text: "It exports main." });
        const second = await ask({
            tools: [READ_TOOL],
            thinking: { budgetTokens: 2048 },
            messages: [
                { role: "user", content: "What is in a.ts?" },
                done.message,
                {
                    role: "user",
                    content: [
                        {
                            type: "tool_result",
                            toolCallId: "toolu_bdrk_1",
                            content: "export function main() {}",
                            isError: false,
                        },
                    ],
                },
            ],
        });
        expect(doneOf(second).message.content).toEqual([
            { type: "text", text: "It exports main." },
        ]);
        const replayed = (fake.requests.at(-1)!.body as { messages: Array<{ content: unknown }> })
            .messages[1]!.content as Array<Record<string, unknown>>;
        expect(replayed[0]).toEqual({
            type: "thinking",
            thinking: "Let me read it.",
            signature: "sig-bedrock-1",
        });
    });

    it("takes the region from the provider's settings before AWS_REGION", async () => {
        vi.stubEnv("AWS_REGION", "eu-west-3");
        fake.enqueue({ text: "east" });
        const east = createBedrockProvider({ ...ENDPOINT, cloud: { region: "us-east-1" } });
        const result = await collect(east, request({ apiModelId: SONNET_BEDROCK_ID }));
        expect(result.text).toBe("east");
        expect(fake.requests.at(-1)!.headers.authorization).toContain(
            "/us-east-1/bedrock/aws4_request"
        );
    });

    it("signs with a session token and accepts a Bedrock model ARN", async () => {
        vi.stubEnv("AWS_ACCESS_KEY_ID", "ASIAFAKESESSION00001");
        vi.stubEnv("AWS_SECRET_ACCESS_KEY", "sessionSecret");
        vi.stubEnv("AWS_SESSION_TOKEN", "tok/en+1");
        fake.enqueue({ text: "ok" });
        const arn = `arn:aws:bedrock:us-east-1:123456789012:inference-profile/${SONNET_PROFILE_ID}`;
        expect(doneOf(await ask({ apiModelId: arn })).message.content).toEqual([
            { type: "text", text: "ok" },
        ]);
        const sent = fake.requests.at(-1)!;
        expect(sent.accessKeyId).toBe("ASIAFAKESESSION00001");
        expect(sent.headers["x-amz-security-token"]).toBe("tok/en+1");
        expect(sent.modelId).toBe(arn);
    });

    it("sends a Bedrock API key as a bearer token, without SigV4", async () => {
        vi.stubEnv("AWS_ACCESS_KEY_ID", "");
        vi.stubEnv("AWS_SECRET_ACCESS_KEY", "");
        vi.stubEnv("AWS_BEARER_TOKEN_BEDROCK", "ABSKZmFrZS1iZWRyb2NrLWFwaS1rZXk=");
        fake.enqueue({ text: "keyed" });
        expect((await ask()).text).toBe("keyed");
        const sent = fake.requests.at(-1)!;
        expect(sent.auth).toBe("bearer");
        expect(sent.headers["x-amz-date"]).toBeUndefined();
    });
});

describe("Bedrock failures", () => {
    it("reports throttling (HTTP 429 ThrottlingException) as a retryable rate limit", async () => {
        fake.enqueue({
            error: { status: 429, message: "Too many requests, please wait before trying again." },
        });
        const error = errorOf(await ask()).error;
        expect(error).toMatchObject({ kind: "rate_limit", retryable: true, status: 429 });
        expect(error.message).toBe(
            "Amazon Bedrock 429: ThrottlingException: Too many requests, please wait before trying again."
        );
    });

    it("reports a throttlingException inside the stream as a retryable rate limit, keeping the partial text", async () => {
        fake.enqueue({
            bedrockFault: "exception",
            exceptionType: "throttlingException",
            message: "Too many tokens",
        });
        const result = await ask();
        const failed = errorOf(result);
        expect(failed.error).toMatchObject({ kind: "rate_limit", retryable: true });
        expect(failed.error.message).toBe(
            "Amazon Bedrock error: throttlingException: Too many tokens"
        );
        expect(result.text).toBe("partial ");
        fake.enqueue({
            bedrockFault: "exception",
            exceptionType: "modelStreamErrorException",
            message: "boom",
        });
        expect(errorOf(await ask()).error).toMatchObject({ kind: "server", retryable: true });
        fake.enqueue({
            bedrockFault: "exception",
            exceptionType: "validationException",
            message: "bad",
        });
        expect(errorOf(await ask()).error).toMatchObject({ kind: "bad_request", retryable: false });
    });

    it("names the region and the inference-profile way out for a model the region does not serve on demand", async () => {
        const error = errorOf(
            await ask({ apiModelId: "anthropic.claude-opus-4-1-20250805-v1:0" })
        ).error;
        expect(error).toMatchObject({ kind: "bad_request", retryable: false, status: 400 });
        expect(error.message).toContain(
            "ValidationException: Invocation of model ID anthropic.claude-opus-4-1-20250805-v1:0 with on-demand throughput"
        );
        expect(error.message).toContain(
            'model "anthropic.claude-opus-4-1-20250805-v1:0" in us-east-1'
        );
        fake.enqueue({ error: { status: 404, message: "Model not found" } });
        const missing = errorOf(await ask()).error;
        expect(missing.kind).toBe("not_found");
        expect(missing.message).toContain(`is not served in us-east-1`);
    });

    it("ends with a clear incomplete_stream error on a frame whose CRC does not match", async () => {
        fake.enqueue({ bedrockFault: "corrupt_frame" });
        const error = errorOf(await ask()).error;
        expect(error.kind).toBe("incomplete_stream");
        expect(error.message).toMatch(
            /^Amazon Bedrock stream ended early: a corrupt event-stream frame \(The message checksum/
        );
    });

    it("reports a stream cut inside a tool call and a reset connection", async () => {
        fake.enqueue({ fault: "cut_mid_tool_call" });
        expect(errorOf(await ask()).error).toMatchObject({
            kind: "incomplete_stream",
            message:
                'Amazon Bedrock stream ended early: connection closed while tool call "write_file" was being generated',
        });
        fake.enqueue({ fault: "reset_mid_stream" });
        expect(errorOf(await ask()).error).toMatchObject({ kind: "network", retryable: true });
    });

    it("says how to refresh expired credentials (403 ExpiredTokenException)", async () => {
        vi.stubEnv("AWS_ACCESS_KEY_ID", "ASIAFAKEEXPIRED00001");
        vi.stubEnv("AWS_SECRET_ACCESS_KEY", "expiredSecret");
        vi.stubEnv("AWS_SESSION_TOKEN", "old-token");
        const error = errorOf(await ask()).error;
        expect(error).toMatchObject({ kind: "auth", retryable: false, status: 403 });
        expect(error.message).toContain(
            "ExpiredTokenException: The security token included in the request is expired"
        );
        expect(error.message).toContain("refresh the AWS credentials: set AWS_PROFILE");
    });

    it("refuses a wrong secret through the fake's independent SigV4 check", async () => {
        vi.stubEnv("AWS_SECRET_ACCESS_KEY", "not-the-secret");
        const error = errorOf(await ask()).error;
        expect(error).toMatchObject({ kind: "auth", status: 403 });
        expect(error.message).toContain(
            "InvalidSignatureException: The request signature we calculated does not match"
        );
    });

    it("refuses a request signed for another region", async () => {
        vi.stubEnv("AWS_REGION", "eu-west-3");
        vi.stubEnv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", fake.url);
        const error = errorOf(await ask()).error;
        expect(error.message).toContain("Credential should be scoped to a valid region");
    });

    it("says which credentials are missing and how to provide them", async () => {
        vi.stubEnv("AWS_ACCESS_KEY_ID", "");
        vi.stubEnv("AWS_SECRET_ACCESS_KEY", "");
        vi.stubEnv("AWS_CONFIG_FILE", "/nonexistent/north-aws-config");
        vi.stubEnv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/north-aws-credentials");
        vi.stubEnv("AWS_WEB_IDENTITY_TOKEN_FILE", "");
        vi.stubEnv("AWS_CONTAINER_CREDENTIALS_FULL_URI", "");
        vi.stubEnv("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "");
        const before = fake.requests.length;
        const error = errorOf(await ask()).error;
        expect(error).toMatchObject({ kind: "auth", retryable: false });
        expect(error.message).toMatch(
            /^Amazon Bedrock: no usable AWS credentials from the default chain \(/
        );
        expect(error.message).toContain("set AWS_PROFILE to a configured profile");
        expect(fake.requests.length).toBe(before);
    });
});
