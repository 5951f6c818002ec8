import type { IncomingMessage } from "node:http";
import type OpenAI from "openai";
import { directSender } from "./direct-post";
import { classifyError } from "./errors";
import { sdkClientOptions } from "./node-fetch";
import type { ProviderEndpoint, ProviderError } from "./types";

/** Variables that change what the SDK sends: with one set, requests go through the SDK. */
const SDK_ENV = ["OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "OPENAI_CUSTOM_HEADERS", "OPENAI_LOG"];

/**
 * The SDK release the direct request's headers name. Written out rather than
 * imported: the SDK's `version` module, shared with the lazily loaded client,
 * would become a bundle chunk of its own
 * (test/providers/sdk-versions.test.ts checks it against the SDK).
 */
export const OPENAI_SDK_VERSION = "6.49.0";

/** The SDK's runtime, loaded on a failure or an SDK-sent request only (openai-sdk.ts). */
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
 * Sends a streaming POST to an OpenAI API path ("/responses",
 * "/chat/completions") as the SDK would, without the SDK's `Headers` when the
 * configuration is the plain case (`direct-post.ts`), through the SDK otherwise.
 */
export function openAISender<Body extends object>(
    endpoint: ProviderEndpoint,
    apiKey: string,
    path: string,
    viaSdk: (client: OpenAI, body: Body, signal: AbortSignal) => Promise<Response>
): (body: Body, signal: AbortSignal) => Promise<Response | IncomingMessage> {
    let client: OpenAI | undefined;
    return directSender<Body>({
        endpoint,
        apiKey,
        sdkEnv: SDK_ENV,
        sdkName: "OpenAI",
        sdkVersion: OPENAI_SDK_VERSION,
        sendsTimeout: false,
        defaultBaseUrl: "https://api.openai.com/v1",
        path,
        errors: async () => (await loadSdk()).openAIErrors,
        viaSdk: async (body, signal) => {
            const { createOpenAIClient } = await loadSdk();
            client ??= createOpenAIClient(sdkClientOptions(endpoint, apiKey));
            return viaSdk(client, body, signal);
        },
    });
}
