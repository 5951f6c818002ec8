/**
 * Everything of the OpenAI providers that needs the SDK's runtime code: the
 * client (for requests the SDK sends itself) and its error classes. Loaded by
 * `import()` only on those paths: a successful direct request uses none of it,
 * and the SDK is ~230 KB to compile on every run.
 *
 * Imports only types of North's, so the bundle keeps the SDK in a chunk of its own.
 */

import OpenAI, { type ClientOptions } from "openai";
import type { DirectPostErrors } from "./direct-post";
import type { SdkErrorClasses } from "./errors";

/** The SDK's error classes, for `classifyError`. */
export const openAIErrorClasses: SdkErrorClasses = OpenAI;

/** The SDK's errors for the failures of a direct request. */
export const openAIErrors: DirectPostErrors = {
    aborted: () => new OpenAI.APIUserAbortError(),
    timedOut: () => new OpenAI.APIConnectionTimeoutError(),
    connection: (cause) => new OpenAI.APIConnectionError({ cause }),
    status: (status, body, message, headers) =>
        OpenAI.APIError.generate(status, body, message, headers),
};

export function createOpenAIClient(options: ClientOptions): OpenAI {
    return new OpenAI(options);
}
