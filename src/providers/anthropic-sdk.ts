/**
 * The Anthropic SDK's error classes, which `classifyError` tells failures
 * apart by, and its status-error factory (which picks error-code subclasses).
 * Loaded by `import()` on a failure only: a successful request uses none of
 * the SDK's runtime code (src/cli/launch-boundary.ts has the figure).
 */

import { BaseAnthropic } from "@anthropic-ai/sdk/client";
import * as sdkErrors from "@anthropic-ai/sdk/error";
import type { PostErrors } from "./streaming-post";
import type { SdkErrorClasses } from "./errors";

/** The base client, with its status-error factory in reach. */
class AnthropicClient extends BaseAnthropic {
    statusError(
        status: number,
        body: object | undefined,
        message: string | undefined,
        headers: Headers
    ) {
        return this.makeStatusError(status, body ?? {}, message, headers);
    }
}

export interface AnthropicSdkErrors {
    /** The SDK's error classes, for `classifyError`. */
    classes: SdkErrorClasses;
    /** The SDK's errors for the failures of a request. */
    errors: PostErrors;
}

export function createAnthropicSdkErrors(): AnthropicSdkErrors {
    let client: AnthropicClient | undefined;
    // The client only builds errors: no request, so any key does.
    const getClient = (): AnthropicClient =>
        (client ??= new AnthropicClient({ apiKey: "unused", maxRetries: 0 }));
    return {
        classes: sdkErrors,
        errors: {
            aborted: () => new sdkErrors.APIUserAbortError(),
            timedOut: () => new sdkErrors.APIConnectionTimeoutError(),
            connection: (cause) => new sdkErrors.APIConnectionError({ cause }),
            status: (status, body, message, headers) =>
                getClient().statusError(status, body, message, headers),
        },
    };
}
