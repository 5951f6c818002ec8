import type { IncomingMessage } from "node:http";
import { classifyError } from "./errors";
import { customHeadersFromEnv, streamingPoster } from "./streaming-post";
import type { GetSpec } from "./probe-get";
import type { ProbeResult, ProviderEndpoint, ProviderError } from "./types";

/** The SDK's error classes, loaded on a failure only (openai-sdk.ts). */
const loadSdk = () => import("./openai-sdk");

/** Classifies a failure with the SDK's error classes (`classifyError`). */
export async function classifyOpenAIError(
    error: unknown,
    label: string,
    signal: AbortSignal
): Promise<ProviderError> {
    const { openAIErrorClasses } = await loadSdk();
    return classifyError(error, { label, sdk: openAIErrorClasses, signal });
}

/**
 * The headers the OpenAI SDK takes from the environment: OPENAI_CUSTOM_HEADERS,
 * and the organization and project of OPENAI_ORG_ID and OPENAI_PROJECT_ID.
 */
export function openAIEnvHeaders(env: NodeJS.ProcessEnv): Record<string, string> {
    const headers = customHeadersFromEnv(env.OPENAI_CUSTOM_HEADERS);
    const organization = env.OPENAI_ORG_ID?.trim();
    const project = env.OPENAI_PROJECT_ID?.trim();
    if (organization) headers["openai-organization"] = organization;
    if (project) headers["openai-project"] = project;
    return headers;
}

const OPENAI_BASE_URL = "https://api.openai.com/v1";

/**
 * The key as a bearer token; a provider with `keyHeader` (Azure's `api-key`)
 * puts it in that header, and a signed provider (Entra ID) sends none.
 */
export function openAIAuthHeaders(
    endpoint: ProviderEndpoint,
    apiKey: string
): Record<string, string> {
    if (endpoint.signer || (endpoint.auth && endpoint.auth !== "key")) return {};
    if (endpoint.keyHeader) return { [endpoint.keyHeader.toLowerCase()]: apiKey };
    return { authorization: `Bearer ${apiKey}` };
}

/** Azure OpenAI's `api-version`, when the endpoint names one. */
export function openAIQuery(endpoint: ProviderEndpoint): Record<string, string> | undefined {
    const version = endpoint.cloud?.apiVersion;
    return version ? { "api-version": version } : undefined;
}

function openAIHeaders(endpoint: ProviderEndpoint, apiKey: string): Record<string, string> {
    return {
        accept: "application/json",
        ...openAIEnvHeaders(process.env),
        ...openAIAuthHeaders(endpoint, apiKey),
    };
}

/** `GET {base}/models` with the endpoint's credentials: model lists and the doctor's probe. */
export function openAIModelsGet(endpoint: ProviderEndpoint): GetSpec {
    return {
        endpoint,
        defaultBaseUrl: OPENAI_BASE_URL,
        path: "/models",
        query: openAIQuery(endpoint),
        headers: openAIHeaders(endpoint, endpoint.apiKey || "not-needed"),
    };
}

/** `Provider.probe`: GET /models with the key (local servers list their models there too). */
export function openAIModelsProbe(
    endpoint: ProviderEndpoint
): (signal: AbortSignal) => Promise<ProbeResult> {
    // `north doctor` only: the GET loads then, never on a run's path.
    return async (signal) =>
        (await import("./probe-get")).probeModelList(openAIModelsGet(endpoint), signal);
}

/** A streaming POST to an OpenAI API path ("/responses", "/chat/completions"). */
export function openAISender<Body extends object>(
    endpoint: ProviderEndpoint,
    apiKey: string,
    path: string
): (body: Body, signal: AbortSignal) => Promise<IncomingMessage> {
    return streamingPoster<Body>({
        endpoint,
        defaultBaseUrl: OPENAI_BASE_URL,
        path,
        query: openAIQuery(endpoint),
        headers: openAIHeaders(endpoint, apiKey),
        logEnv: "OPENAI_LOG",
        errors: async () => (await loadSdk()).openAIErrors,
    });
}
