/**
 * Claude on Vertex AI through the real client code: Google credentials from
 * a generated service-account key (its JWT verified by the fake token
 * endpoint) or gcloud user credentials, tokens on every request, the
 * streamRawPredict URL and body, and the failures a user meets.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createVertexProvider } from "../../src/providers/vertex/index";
import {
    claudeRegionVariables,
    defaultBaseUrl,
    modelPath,
    regionFor,
} from "../../src/providers/vertex/vertex-location";
import type { ProviderEndpoint } from "../../src/providers/types";
import { type FakeGoogleToken, startFakeGoogleToken } from "../kit/fake-google-token";
import { type FakeVertex, startFakeVertex } from "../kit/fake-vertex";
import { type TestProxy, startTestProxy } from "../kit/test-proxy";
import { READ_TOOL, collect, doneOf, errorOf, request } from "./helpers";

const MODEL = "claude-sonnet-4-5@20250929";
const PROJECT = "north-test-project";

let tokens: FakeGoogleToken;
let vertex: FakeVertex;
let dir: string;

beforeAll(async () => {
    tokens = await startFakeGoogleToken();
    vertex = await startFakeVertex({
        project: PROJECT,
        models: {
            "us-east5": [MODEL],
            "europe-west1": ["claude-haiku-4-5@20251001"],
            global: ["gemini-2.5-pro", "gemini-3-flash"],
        },
        tokenValid: (token) => tokens.issued(token),
    });
});
afterAll(async () => {
    await vertex.close();
    await tokens.close();
});
beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "north-vertex-"));
    tokens.mode = "ok";
    tokens.expiresInSeconds = 3599;
    tokens.seen.length = 0;
    vertex.requests.length = 0;
    // No gcloud files, no metadata server: only what each test names.
    vi.stubEnv("HOME", dir);
    vi.stubEnv("CLOUDSDK_CONFIG", join(dir, "gcloud"));
    vi.stubEnv("METADATA_SERVER_DETECTION", "none");
    for (const name of [
        "GOOGLE_APPLICATION_CREDENTIALS",
        "ANTHROPIC_VERTEX_PROJECT_ID",
        "GOOGLE_CLOUD_PROJECT",
        "GCLOUD_PROJECT",
        "CLOUD_ML_REGION",
        "GOOGLE_CLOUD_LOCATION",
        "CLAUDE_CODE_SKIP_VERTEX_AUTH",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "http_proxy",
        "https_proxy",
        "NO_PROXY",
        "no_proxy",
    ]) {
        vi.stubEnv(name, undefined);
    }
});
afterEach(() => {
    vi.unstubAllEnvs();
    expect(vertex.remaining()).toBe(0);
    rmSync(dir, { recursive: true, force: true });
});

function keyFile(json: Record<string, string>): string {
    const path = join(dir, "key.json");
    writeFileSync(path, JSON.stringify(json));
    return path;
}

function endpoint(overrides: Partial<ProviderEndpoint> = {}): ProviderEndpoint {
    return {
        api: "vertex",
        auth: "google",
        apiKey: "not-needed",
        baseUrl: vertex.baseUrl,
        ...overrides,
    };
}

describe("Claude on Vertex AI with a service-account key", () => {
    it("streams an answer: token from the JWT grant, model in the URL, vertex anthropic_version in the body", async () => {
        vi.stubEnv("GOOGLE_APPLICATION_CREDENTIALS", keyFile(tokens.serviceAccount(PROJECT)));
        const provider = createVertexProvider(endpoint());
        vertex.enqueue({ text: "Hello from Vertex" }, { text: "again" });
        const first = await collect(provider, request({ apiModelId: MODEL }));
        expect(first.text).toBe("Hello from Vertex");
        expect(doneOf(first).stopReason).toBe("end_turn");
        const sent = vertex.requests[0]!;
        expect(sent.path).toBe(
            `/v1/projects/${PROJECT}/locations/us-east5/publishers/anthropic/models/${MODEL}:streamRawPredict`
        );
        expect(sent.body["anthropic_version"]).toBe("vertex-2023-10-16");
        expect(sent.body).not.toHaveProperty("model");
        expect(sent.body["stream"]).toBe(true);
        expect(sent.headers["anthropic-version"]).toBeUndefined();
        // The project came from the key file; the token is cached for the next request.
        await collect(provider, request({ apiModelId: MODEL }));
        expect(tokens.seen).toEqual(["POST /token urn:ietf:params:oauth:grant-type:jwt-bearer"]);
        expect(vertex.requests[1]!.headers.authorization).toBe(sent.headers.authorization);
    });

    it("replays a tool loop with its thinking signature, which the fake checks", async () => {
        vi.stubEnv("GOOGLE_APPLICATION_CREDENTIALS", keyFile(tokens.serviceAccount(PROJECT)));
        const provider = createVertexProvider(endpoint());
        vertex.enqueue(
            {
                thinking: { text: "Read it first.", signature: "sig-vertex-1" },
                toolCalls: [{ id: "toolu_v1", name: "read_file", input: { path: "a.ts" } }],
            },
            { text: "Done." }
        );
        const req = request({
            apiModelId: MODEL,
            tools: [READ_TOOL],
            thinking: { budgetTokens: 2048 },
        });
        const first = doneOf(await collect(provider, req));
        expect(first.stopReason).toBe("tool_use");
        const second = await collect(provider, {
            ...req,
            messages: [
                ...req.messages,
                first.message,
                {
                    role: "user",
                    content: [
                        {
                            type: "tool_result",
                            toolCallId: "toolu_v1",
                            content: "x",
                            isError: false,
                        },
                    ],
                },
            ],
        });
        expect(second.text).toBe("Done.");
    });

    it("honours the region and project settings and Claude Code's per-model region variable", async () => {
        vi.stubEnv(
            "GOOGLE_APPLICATION_CREDENTIALS",
            keyFile(tokens.serviceAccount("other-project"))
        );
        vi.stubEnv("CLOUD_ML_REGION", "global");
        vi.stubEnv("VERTEX_REGION_CLAUDE_HAIKU_4_5", "europe-west1");
        const provider = createVertexProvider(endpoint({ cloud: { project: PROJECT } }));
        vertex.enqueue({ text: "haiku" });
        const done = await collect(provider, request({ apiModelId: "claude-haiku-4-5@20251001" }));
        expect(done.text).toBe("haiku");
        expect(vertex.requests[0]!.location).toBe("europe-west1");
        expect(vertex.requests[0]!.project).toBe(PROJECT);
    });

    it("reports a region without the model as not found, with Google's message", async () => {
        vi.stubEnv("GOOGLE_APPLICATION_CREDENTIALS", keyFile(tokens.serviceAccount(PROJECT)));
        const provider = createVertexProvider(endpoint({ cloud: { region: "europe-west1" } }));
        const error = errorOf(await collect(provider, request({ apiModelId: MODEL }))).error;
        expect(error.kind).toBe("not_found");
        expect(error.retryable).toBe(false);
        expect(error.message).toContain(
            `Vertex AI 404: Publisher Model \`projects/${PROJECT}/locations/europe-west1/publishers/anthropic/models/${MODEL}\` not found.`
        );
    });

    it("marks a quota error retryable with the server's delay", async () => {
        vi.stubEnv("GOOGLE_APPLICATION_CREDENTIALS", keyFile(tokens.serviceAccount(PROJECT)));
        const provider = createVertexProvider(endpoint());
        vertex.enqueue({
            error: {
                status: 429,
                statusName: "RESOURCE_EXHAUSTED",
                message:
                    "Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model",
                headers: { "retry-after": "2" },
            },
        });
        const error = errorOf(await collect(provider, request({ apiModelId: MODEL }))).error;
        expect(error).toMatchObject({
            kind: "rate_limit",
            retryable: true,
            retryAfterMs: 2000,
            status: 429,
        });
        expect(error.message).toContain("Quota exceeded");
    });

    it("sends token and prompt through HTTP_PROXY", async () => {
        let proxy: TestProxy | undefined;
        try {
            proxy = await startTestProxy();
            vi.stubEnv("HTTP_PROXY", proxy.url);
            vi.stubEnv("NO_PROXY", "");
            vi.stubEnv("GOOGLE_APPLICATION_CREDENTIALS", keyFile(tokens.serviceAccount(PROJECT)));
            const provider = createVertexProvider(endpoint());
            vertex.enqueue({ text: "proxied" });
            expect((await collect(provider, request({ apiModelId: MODEL }))).text).toBe("proxied");
            expect(proxy.seen).toEqual([
                `POST ${tokens.tokenUrl}`,
                `POST ${vertex.baseUrl}/projects/${PROJECT}/locations/us-east5/publishers/anthropic/models/${MODEL}:streamRawPredict`,
            ]);
        } finally {
            await proxy?.close();
        }
    });
});

describe("Gemini on Vertex AI", () => {
    it("streams through streamGenerateContent with the Google token, in the global location by default", async () => {
        vi.stubEnv("GOOGLE_APPLICATION_CREDENTIALS", keyFile(tokens.serviceAccount(PROJECT)));
        const provider = createVertexProvider(endpoint());
        vertex.enqueue({ text: "Hello from Gemini on Vertex" });
        const done = await collect(provider, request({ apiModelId: "gemini-2.5-pro" }));
        expect(done.text).toBe("Hello from Gemini on Vertex");
        expect(doneOf(done).stopReason).toBe("end_turn");
        const sent = vertex.requests[0]!;
        expect(sent.path).toBe(
            `/v1/projects/${PROJECT}/locations/global/publishers/google/models/gemini-2.5-pro:streamGenerateContent`
        );
        expect(sent.headers.authorization).toMatch(/^Bearer ya29\.fake-/);
        expect(sent.headers["x-goog-api-key"]).toBeUndefined();
    });

    it("replays a function call with its thought signature, which the fake checks", async () => {
        vi.stubEnv("GOOGLE_APPLICATION_CREDENTIALS", keyFile(tokens.serviceAccount(PROJECT)));
        const provider = createVertexProvider(endpoint());
        vertex.enqueue(
            {
                thinking: { text: "Look at the file.", signature: "unused" },
                toolCalls: [{ name: "read_file", input: { path: "a.ts" } }],
            },
            { text: "It exports one constant." }
        );
        const req = request({
            apiModelId: "gemini-3-flash",
            tools: [READ_TOOL],
            thinking: { budgetTokens: 2048 },
        });
        const first = doneOf(await collect(provider, req));
        expect(first.stopReason).toBe("tool_use");
        const call = first.message.content.find((b) => b.type === "tool_call");
        expect(call?.type).toBe("tool_call");
        const second = await collect(provider, {
            ...req,
            messages: [
                ...req.messages,
                first.message,
                {
                    role: "user",
                    content: [
                        {
                            type: "tool_result",
                            toolCallId: call?.type === "tool_call" ? call.id : "",
                            content: "export const a = 1;",
                            isError: false,
                        },
                    ],
                },
            ],
        });
        expect(second.text).toBe("It exports one constant.");
    });
});

describe("credential failures", () => {
    it("says how to sign in again when gcloud user credentials are refused", async () => {
        mkdirSync(join(dir, "gcloud"));
        writeFileSync(
            join(dir, "gcloud", "application_default_credentials.json"),
            JSON.stringify(tokens.userCredentials())
        );
        tokens.mode = "refuse";
        const provider = createVertexProvider(endpoint({ cloud: { project: PROJECT } }));
        const error = errorOf(await collect(provider, request({ apiModelId: MODEL }))).error;
        expect(error.kind).toBe("auth");
        expect(error.retryable).toBe(false);
        expect(error.message).toContain("Token has been expired or revoked.");
        expect(error.message).toContain(
            "run `gcloud auth application-default login` to sign in again"
        );
        expect(vertex.requests).toHaveLength(0);
        // The same credentials work once refreshed.
        tokens.mode = "ok";
        vertex.enqueue({ text: "signed in" });
        expect((await collect(provider, request({ apiModelId: MODEL }))).text).toBe("signed in");
        expect(tokens.seen.at(-1)).toBe("POST /token refresh_token");
    });

    it("gives up on a token endpoint that hangs, and says so", async () => {
        vi.stubEnv("GOOGLE_APPLICATION_CREDENTIALS", keyFile(tokens.serviceAccount(PROJECT)));
        tokens.mode = "hang";
        const provider = createVertexProvider(endpoint(), { tokenTimeoutMs: 300 });
        const error = errorOf(await collect(provider, request({ apiModelId: MODEL }))).error;
        expect(error.kind).toBe("auth");
        expect(error.message).toContain(
            `the Google token request (${tokens.tokenUrl}) did not answer within 300 ms`
        );
    });

    it("stops waiting for a token when the run is cancelled", async () => {
        vi.stubEnv("GOOGLE_APPLICATION_CREDENTIALS", keyFile(tokens.serviceAccount(PROJECT)));
        tokens.mode = "hang";
        const provider = createVertexProvider(endpoint());
        const controller = new AbortController();
        const run = collect(provider, request({ apiModelId: MODEL }), controller.signal);
        await vi.waitFor(() => expect(tokens.seen).toHaveLength(1));
        controller.abort();
        expect(errorOf(await run).error.kind).toBe("cancelled");
    });

    it("lets the library refresh a token about to expire", async () => {
        vi.stubEnv("GOOGLE_APPLICATION_CREDENTIALS", keyFile(tokens.serviceAccount(PROJECT)));
        // Inside the library's five-minute margin: every request wants a fresh token.
        tokens.expiresInSeconds = 120;
        const provider = createVertexProvider(endpoint());
        vertex.enqueue({ text: "one" }, { text: "two" });
        await collect(provider, request({ apiModelId: MODEL }));
        await collect(provider, request({ apiModelId: MODEL }));
        expect(tokens.seen).toHaveLength(2);
        expect(vertex.requests[0]!.headers.authorization).not.toBe(
            vertex.requests[1]!.headers.authorization
        );
    });

    it("names the fixes when there are no credentials or no project", async () => {
        const none = createVertexProvider(endpoint({ cloud: { project: PROJECT } }));
        const missing = errorOf(await collect(none, request({ apiModelId: MODEL }))).error;
        expect(missing.kind).toBe("auth");
        expect(missing.message).toContain("no Google credentials found");
        expect(missing.message).toContain("gcloud auth application-default login");
        const probe = await none.probe!(new AbortController().signal);
        expect(probe.ok).toBe(false);

        vi.stubEnv("GOOGLE_APPLICATION_CREDENTIALS", join(dir, "absent.json"));
        const absent = errorOf(
            await collect(createVertexProvider(endpoint()), request({ apiModelId: MODEL }))
        ).error;
        expect(absent.message).toContain(
            `GOOGLE_APPLICATION_CREDENTIALS names ${join(dir, "absent.json")}, which cannot be read (ENOENT)`
        );

        const key = tokens.serviceAccount(PROJECT);
        delete key["project_id"];
        vi.stubEnv("GOOGLE_APPLICATION_CREDENTIALS", keyFile(key));
        const noProject = errorOf(
            await collect(createVertexProvider(endpoint()), request({ apiModelId: MODEL }))
        ).error;
        expect(noProject.message).toContain(
            "no Google Cloud project: set providers.vertex.project"
        );
    });

    it("sends no token when a gateway adds credentials (CLAUDE_CODE_SKIP_VERTEX_AUTH)", async () => {
        vi.stubEnv("CLAUDE_CODE_SKIP_VERTEX_AUTH", "1");
        vi.stubEnv("ANTHROPIC_VERTEX_PROJECT_ID", PROJECT);
        const provider = createVertexProvider(endpoint());
        // The fake wants a token: the refusal proves none was sent and none fetched.
        const error = errorOf(await collect(provider, request({ apiModelId: MODEL }))).error;
        expect(error.kind).toBe("auth");
        expect(error.message).toContain(
            "Vertex AI 401: Request had invalid authentication credentials"
        );
        expect(tokens.seen).toEqual([]);
    });

    it("probes: which credentials, project and region, without a prompt", async () => {
        vi.stubEnv("GOOGLE_APPLICATION_CREDENTIALS", keyFile(tokens.serviceAccount(PROJECT)));
        const probe = await createVertexProvider(endpoint()).probe!(new AbortController().signal);
        expect(probe.ok).toBe(true);
        expect(probe.detail).toContain(
            `service account north-test@${PROJECT}.iam.gserviceaccount.com`
        );
        expect(probe.detail).toContain(`project ${PROJECT}, region us-east5`);
        expect(vertex.requests).toHaveLength(0);
    });
});

describe("Vertex locations", () => {
    it("builds the host from the region, global included", () => {
        expect(defaultBaseUrl("global")).toBe("https://aiplatform.googleapis.com/v1");
        expect(defaultBaseUrl("us-east5")).toBe("https://us-east5-aiplatform.googleapis.com/v1");
        expect(modelPath("p", "global", "anthropic", "claude-opus-4-1@20250805")).toBe(
            "/projects/p/locations/global/publishers/anthropic/models/claude-opus-4-1@20250805"
        );
    });

    it("derives Claude Code's per-model region variable names", () => {
        expect(claudeRegionVariables("claude-3-5-haiku@20241022")).toContain(
            "VERTEX_REGION_CLAUDE_3_5_HAIKU"
        );
        expect(claudeRegionVariables("claude-haiku-4-5@20251001")).toContain(
            "VERTEX_REGION_CLAUDE_HAIKU_4_5"
        );
        expect(claudeRegionVariables("claude-sonnet-4@20250514")).toContain(
            "VERTEX_REGION_CLAUDE_4_0_SONNET"
        );
        expect(claudeRegionVariables("claude-opus-4-1")).toContain("VERTEX_REGION_CLAUDE_4_1_OPUS");
        expect(claudeRegionVariables("claude-opus-5")).toContain("VERTEX_REGION_CLAUDE_5_OPUS");
        expect(claudeRegionVariables("gemini-2.5-pro")).toEqual([]);
    });

    it("falls back from the settings to CLOUD_ML_REGION, GOOGLE_CLOUD_LOCATION and the default", () => {
        vi.stubEnv("GOOGLE_CLOUD_LOCATION", "asia-southeast1");
        expect(regionFor(MODEL, { region: "europe-west4" }, process.env)).toBe("europe-west4");
        expect(regionFor(MODEL, undefined, process.env)).toBe("asia-southeast1");
        vi.stubEnv("CLOUD_ML_REGION", "global");
        expect(regionFor(MODEL, undefined, process.env)).toBe("global");
        expect(regionFor(MODEL, undefined, {})).toBe("us-east5");
    });
});
