/**
 * The OpenAI SDK's error classes, which `classifyError` tells failures apart
 * by. Loaded by `import()` on a failure only: a successful request uses none
 * of the SDK's runtime code (src/cli/launch-boundary.ts has the figure).
 */

import OpenAI from "openai";
import type { SdkErrorClasses } from "./errors";
import type { PostErrors } from "./streaming-post";

export const openAIErrorClasses: SdkErrorClasses = OpenAI;

/** The SDK's errors for the failures of a request. */
export const openAIErrors: PostErrors = {
    aborted: () => new OpenAI.APIUserAbortError(),
    timedOut: () => new OpenAI.APIConnectionTimeoutError(),
    connection: (cause) => new OpenAI.APIConnectionError({ cause }),
    status: (status, body, message, headers) =>
        OpenAI.APIError.generate(status, body, message, headers),
};
