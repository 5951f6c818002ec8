/**
 * Everything of the Anthropic provider that needs the SDK's runtime code: the
 * client (for requests the SDK sends itself) and its error classes. Loaded by
 * `import()` only on those paths: a successful direct request uses none of it,
 * and the SDK is ~200 KB to compile on every run.
 *
 * Imports only types of North's, so the bundle keeps the SDK in a chunk of its own.
 */

import { type ClientOptions, BaseAnthropic } from "@anthropic-ai/sdk/client";
import * as sdkErrors from "@anthropic-ai/sdk/error";
import { Messages } from "@anthropic-ai/sdk/resources/messages/messages";
import type { MessageCreateParamsStreaming } from "@anthropic-ai/sdk/resources/messages";
import type { DirectPostErrors } from "./direct-post";
import type { SdkErrorClasses } from "./errors";

/** The base client, with its status-error factory (which picks error-code subclasses) in reach. */
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

export interface AnthropicSdk {
    /** The SDK's error classes, for `classifyError`. */
    classes: SdkErrorClasses;
    /** The SDK's errors for the failures of a direct request. */
    errors: DirectPostErrors;
    /** Sends the request through the SDK and resolves with the raw 2xx response. */
    send(params: MessageCreateParamsStreaming, signal: AbortSignal): Promise<Response>;
}

export function createAnthropicSdk(options: ClientOptions): AnthropicSdk {
    let base: AnthropicClient | undefined;
    let client: Messages | undefined;
    const getBase = (): AnthropicClient => (base ??= new AnthropicClient(options));
    // The base client with only the Messages resource: the full client's other
    // resources (beta, files, tool runners...) are two thirds of the SDK's code.
    const getClient = (): Messages => (client ??= new Messages(getBase()));
    return {
        classes: sdkErrors,
        errors: {
            aborted: () => new sdkErrors.APIUserAbortError(),
            timedOut: () => new sdkErrors.APIConnectionTimeoutError(),
            connection: (cause) => new sdkErrors.APIConnectionError({ cause }),
            status: (status, body, message, headers) =>
                getBase().statusError(status, body, message, headers),
        },
        send: (params, signal) => getClient().create(params, { signal }).asResponse(),
    };
}
