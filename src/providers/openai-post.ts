import type { IncomingMessage } from "node:http";
import { classifyError } from "./errors";
import { customHeadersFromEnv, streamingPoster } from "./streaming-post";
import { probeModelList } from "./probe-get";
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

function openAIHeaders(apiKey: string): Record<string, string> {
    return {
        accept: "application/json",
        ...openAIEnvHeaders(process.env),
        authorization: `Bearer ${apiKey}`,
    };
}

/** `Provider.probe`: GET /models with the key (local servers list their models there too). */
export function openAIModelsProbe(
    endpoint: ProviderEndpoint,
    apiKey: string
): (signal: AbortSignal) => Promise<ProbeResult> {
    return (signal) =>
        probeModelList(
            {
                endpoint,
                defaultBaseUrl: OPENAI_BASE_URL,
                path: "/models",
                headers: openAIHeaders(apiKey),
            },
            signal
        );
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
        headers: openAIHeaders(apiKey),
        logEnv: "OPENAI_LOG",
        errors: async () => (await loadSdk()).openAIErrors,
    });
}
