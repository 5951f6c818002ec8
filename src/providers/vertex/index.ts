/**
 * Google Vertex AI: Claude through `streamRawPredict` (the Messages API
 * body and SSE answer, `anthropic_version` in the body, the model in the
 * URL). Requests carry a Google access token (`google-auth.ts`) unless
 * CLAUDE_CODE_SKIP_VERTEX_AUTH says a gateway adds credentials itself.
 */

import type { MessageCreateParamsStreaming } from "@anthropic-ai/sdk/resources/messages";
import type { AnthropicSdkErrors } from "../anthropic-sdk";
import { streamAnthropicMessages } from "../anthropic";
import { CredentialError, classifyError, makeProviderError } from "../errors";
import { createGoogleCredentials, type GoogleCredentials } from "../google-auth";
import { customHeadersFromEnv, streamingPoster } from "../streaming-post";
import { EMPTY_USAGE } from "../types";
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

    return {
        api: "vertex",
        stream(request: StreamRequest, signal: AbortSignal): AsyncIterable<StreamEvent> {
            const modelId = request.apiModelId;
            if (publisherOf(modelId) === "anthropic") {
                return streamAnthropicMessages(
                    {
                        label: LABEL,
                        send: (params, s) => sendClaude(modelId, params, s),
                        classify,
                    },
                    request,
                    signal
                );
            }
            return unsupportedModel(modelId);
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

async function* unsupportedModel(modelId: string): AsyncGenerator<StreamEvent> {
    yield {
        type: "error",
        error: makeProviderError(
            "bad_request",
            `${LABEL}: "${modelId}" is not a Claude model; North sends only Claude models (claude-…) to Vertex AI so far`
        ),
        partial: { role: "assistant", content: [] },
        usage: { ...EMPTY_USAGE },
    };
}

/** Claude Code's switches count as set unless empty, 0 or false. */
function isSet(value: string | undefined): boolean {
    if (!value) return false;
    return !["0", "false", "no", "off"].includes(value.trim().toLowerCase());
}
