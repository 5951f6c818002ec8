import type { IncomingMessage } from "node:http";
import OpenAI from "openai";
import { VERSION as SDK_VERSION } from "openai/version";
import {
    type DirectPostErrors,
    directPostApplies,
    postDirect,
    stainlessHeaders,
} from "./direct-post";
import { sdkClientOptions } from "./node-fetch";
import type { ProviderEndpoint } from "./types";

/** Variables that change what the SDK sends: with one set, requests go through the SDK. */
const SDK_ENV = ["OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "OPENAI_CUSTOM_HEADERS", "OPENAI_LOG"];

const errors: DirectPostErrors = {
    aborted: () => new OpenAI.APIUserAbortError(),
    timedOut: () => new OpenAI.APIConnectionTimeoutError(),
    connection: (cause) => new OpenAI.APIConnectionError({ cause }),
    status: (status, body, message, headers) =>
        OpenAI.APIError.generate(status, body, message, headers),
};

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
    const direct = apiKey !== "" && directPostApplies(SDK_ENV);
    return (body, signal) => {
        if (!direct) {
            client ??= new OpenAI(sdkClientOptions(endpoint, apiKey));
            return viaSdk(client, body, signal);
        }
        return postDirect({
            endpoint,
            defaultBaseUrl: "https://api.openai.com/v1",
            path,
            headers: {
                ...stainlessHeaders(SDK_VERSION, undefined),
                "user-agent": `OpenAI/JS ${SDK_VERSION}`,
                authorization: `Bearer ${apiKey}`,
            },
            body,
            signal,
            errors,
        });
    };
}
