/**
 * Google Vertex AI: Claude through `streamRawPredict` (the Messages API
 * body and SSE answer, `anthropic_version` in the body, the model in the
 * URL), Google's models (Gemini) through `streamGenerateContent?alt=sse`
 * (the Gemini wire, gemini-wire.ts). Requests carry a Google access token (`google-auth.ts`) unless
 * CLAUDE_CODE_SKIP_VERTEX_AUTH says a gateway adds credentials itself.
 */

import type { MessageCreateParamsStreaming } from "@anthropic-ai/sdk/resources/messages";
import type { AnthropicSdkErrors } from "../anthropic-sdk";
import type { AnthropicTransport } from "../anthropic";
import { CredentialError, classifyError } from "../errors";
import { classifyGoogleError, googleApiErrors } from "../gemini-errors";
import { type GeminiRequestBody, streamGeminiContent } from "../gemini-wire";
import { createGoogleCredentials, type GoogleCredentials } from "../google-auth";
import { customHeadersFromEnv, streamingPoster } from "../streaming-post";
import type { ProbeResult, Provider, ProviderEndpoint, StreamEvent, StreamRequest } from "../types";
import {
    configuredProject,
    defaultBaseUrl,
    modelPath,
    publisherOf,
    regionFor,
} from "./vertex-location";

const LABEL = "Vertex AI";
/** The Messages API version Vertex AI takes, in the body. */
export const VERTEX_ANTHROPIC_VERSION = "vertex-2023-10-16";

type Env = Record<string, string | undefined>;

export interface VertexOptions {
    /** How long a token request may take (default 30 s). */
    tokenTimeoutMs?: number;
}

export function createVertexProvider(
    endpoint: ProviderEndpoint,
    options: VertexOptions = {}
): Provider {
    const env: Env = process.env;
    const configured = configuredProject(endpoint.cloud, env);
    const credentials: GoogleCredentials | undefined = isSet(env.CLAUDE_CODE_SKIP_VERTEX_AUTH)
        ? undefined
        : createGoogleCredentials({
              projectId: configured,
              tokenTimeoutMs: options.tokenTimeoutMs,
          });
    const signed: ProviderEndpoint = { ...endpoint, auth: "google", signer: credentials };
    const project = async (signal: AbortSignal): Promise<string> => {
        const found = configured ?? (await credentials?.projectId(signal));
        if (found) return found;
        throw new CredentialError(
            "no Google Cloud project: set providers.vertex.project in settings, or ANTHROPIC_VERTEX_PROJECT_ID or GOOGLE_CLOUD_PROJECT"
        );
    };
    // The Anthropic SDK's error classes load on a failure only (anthropic-sdk.ts).
    let sdk: Promise<AnthropicSdkErrors> | undefined;
    const loadSdk = (): Promise<AnthropicSdkErrors> =>
        (sdk ??= import("../anthropic-sdk").then((m) => m.createAnthropicSdkErrors()));
    const classify = async (error: unknown, signal: AbortSignal) =>
        classifyError(error, { label: LABEL, sdk: (await loadSdk()).classes, signal });

    const sendClaude = async (
        modelId: string,
        params: MessageCreateParamsStreaming,
        signal: AbortSignal
    ) => {
        const region = regionFor(modelId, endpoint.cloud, env);
        const path = `${modelPath(await project(signal), region, "anthropic", modelId)}:streamRawPredict`;
        // Vertex takes the model from the URL and the API version from the body.
        const { model: _model, ...rest } = params;
        const post = streamingPoster<Record<string, unknown>>({
            endpoint: signed,
            defaultBaseUrl: defaultBaseUrl(region),
            path,
            headers: {
                accept: "application/json",
                ...customHeadersFromEnv(env.ANTHROPIC_CUSTOM_HEADERS),
            },
            logEnv: "ANTHROPIC_LOG",
            errors: async () => (await loadSdk()).errors,
        });
        return post({ ...rest, anthropic_version: VERTEX_ANTHROPIC_VERSION }, signal);
    };

    const sendGemini = async (modelId: string, body: GeminiRequestBody, signal: AbortSignal) => {
        const region = regionFor(modelId, endpoint.cloud, env);
        const path = `${modelPath(await project(signal), region, "google", modelId)}:streamGenerateContent`;
        // The Google Gen AI SDK's variable for another Vertex endpoint wins for its models.
        const baseUrl = env.GOOGLE_VERTEX_BASE_URL || endpoint.baseUrl;
        const post = streamingPoster<GeminiRequestBody>({
            endpoint: { ...signed, baseUrl },
            defaultBaseUrl: defaultBaseUrl(region),
            path,
            query: { alt: "sse" },
            headers: { accept: "text/event-stream" },
            logEnv: "GEMINI_LOG",
            errors: async () => googleApiErrors,
        });
        return post(body, signal);
    };

    return {
        api: "vertex",
        stream(request: StreamRequest, signal: AbortSignal): AsyncIterable<StreamEvent> {
            const modelId = request.apiModelId;
            if (publisherOf(modelId) === "anthropic") {
                const transport: AnthropicTransport = {
                    label: LABEL,
                    send: (params, s) => sendClaude(modelId, params, s),
                    classify,
                };
                return streamClaude(transport, request, signal);
            }
            return streamGeminiContent(
                {
                    label: LABEL,
                    send: (body, s) => sendGemini(modelId, body, s),
                    classify: (error, s) => classifyGoogleError(error, LABEL, s),
                },
                request,
                signal
            );
        },
        async probe(signal: AbortSignal): Promise<ProbeResult> {
            try {
                const who = credentials
                    ? await credentials.check(signal)
                    : "no Google token (CLAUDE_CODE_SKIP_VERTEX_AUTH: the gateway adds credentials)";
                const p = await project(signal);
                const region = regionFor("claude-", endpoint.cloud, env);
                const base = endpoint.baseUrl || defaultBaseUrl(region);
                return { ok: true, detail: `${who}; project ${p}, region ${region} (${base})` };
            } catch (error) {
                return {
                    ok: false,
                    detail: error instanceof Error ? error.message : String(error),
                };
            }
        },
    };
}

/**
 * The Messages stream, from the Anthropic provider's own chunk: a static
 * import would split anthropic.ts into a chunk shared with this one, one
 * more file on every Anthropic print run (test/build/print-path-modules.test.ts).
 */
async function* streamClaude(
    transport: AnthropicTransport,
    request: StreamRequest,
    signal: AbortSignal
): AsyncGenerator<StreamEvent> {
    const { streamAnthropicMessages } = await import("../anthropic");
    yield* streamAnthropicMessages(transport, request, signal);
}

/** Claude Code's switches count as set unless empty, 0 or false. */
function isSet(value: string | undefined): boolean {
    if (!value) return false;
    return !["0", "false", "no", "off"].includes(value.trim().toLowerCase());
}
