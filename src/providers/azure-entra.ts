/**
 * Microsoft Entra ID tokens for Azure OpenAI and Foundry: a `RequestSigner`
 * that puts `authorization: Bearer` on every request. The credential chain is
 * `@azure/identity`'s DefaultAzureCredential (environment service principal,
 * workload identity, managed identity, Azure CLI, azd), loaded by `import()`
 * when the first request is signed, never on the launch path.
 */

import { CredentialError } from "./errors";
import { nodeFetch } from "./node-fetch";
import type { OutgoingRequest, RequestSigner } from "./types";

/** Azure OpenAI's token audience. */
export const COGNITIVE_SERVICES_SCOPE = "https://cognitiveservices.azure.com/.default";
/** Foundry's Anthropic endpoint's audience, as Anthropic's Foundry SDK asks for it. */
export const AZURE_AI_SCOPE = "https://ai.azure.com/.default";

/** A token request that has not answered by then fails instead of holding the turn. */
const DEFAULT_TOKEN_TIMEOUT_MS = 60_000;
/** A token this close to expiry is renewed before the request rather than during it. */
const REFRESH_MARGIN_MS = 2 * 60_000;

export interface EntraSignerOptions {
    scope: string;
    /** The variable of the key that would replace Entra ID, named in the error. */
    keyEnv: string;
    timeoutMs?: number;
}

interface AccessToken {
    token: string;
    expiresOnTimestamp: number;
}

interface TokenSource {
    getToken(
        scopes: string | string[],
        options: { abortSignal?: AbortSignal }
    ): Promise<AccessToken | null>;
}

export function createEntraSigner(options: EntraSignerOptions): RequestSigner {
    const timeoutMs = options.timeoutMs ?? DEFAULT_TOKEN_TIMEOUT_MS;
    let credential: Promise<TokenSource> | undefined;
    let cached: AccessToken | undefined;
    return {
        async sign(request: OutgoingRequest, signal: AbortSignal): Promise<void> {
            if (!cached || cached.expiresOnTimestamp - REFRESH_MARGIN_MS <= Date.now()) {
                credential ??= loadCredential();
                cached = await fetchToken(await credential, options, timeoutMs, signal);
            }
            request.headers.authorization = `Bearer ${cached.token}`;
        },
    };
}

async function loadCredential(): Promise<TokenSource> {
    const { DefaultAzureCredential } = await import("@azure/identity");
    const { northHttpClient } = await import("./azure-http-client");
    // Token requests take North's transport, so they follow HTTPS_PROXY / NO_PROXY too.
    const custom = process.env.AZURE_AUTHORITY_HOST?.trim();
    return new DefaultAzureCredential({
        httpClient: northHttpClient(nodeFetch),
        // A private authority (sovereign or test cloud) is not in Microsoft's public discovery list.
        ...(custom ? { authorityHost: custom, disableInstanceDiscovery: true } : {}),
    });
}

async function fetchToken(
    credential: TokenSource,
    options: EntraSignerOptions,
    timeoutMs: number,
    signal: AbortSignal
): Promise<AccessToken> {
    const limit = AbortSignal.timeout(timeoutMs);
    const abortSignal = AbortSignal.any([signal, limit]);
    let token: AccessToken | null;
    try {
        token = await raceAbort(credential.getToken(options.scope, { abortSignal }), abortSignal);
    } catch (error) {
        if (signal.aborted) throw error;
        if (limit.aborted) {
            throw new CredentialError(
                `Entra ID: no token after ${Math.round(timeoutMs / 1000)} s (the token endpoint does not answer): check the network and proxy, or set ${options.keyEnv} to use a key`
            );
        }
        // What to do first: error messages are cut to one short line.
        throw new CredentialError(
            `Entra ID: no token (run \`az login\`, or set ${options.keyEnv}): ${firstLine(error)}`
        );
    }
    if (!token?.token) {
        throw new CredentialError(
            `Entra ID: no token (run \`az login\`, or set ${options.keyEnv}): the credential returned none`
        );
    }
    return token;
}

/** Some credentials (a CLI subprocess) ignore the signal: the wait ends with it anyway. */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
        const onAbort = (): void => reject(signal.reason ?? new Error("aborted"));
        if (signal.aborted) return onAbort();
        signal.addEventListener("abort", onAbort, { once: true });
        work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
}

/**
 * The chain throws an aggregate when no credential was available, and the
 * failing credential's own error when one was found but refused.
 */
function firstLine(error: unknown): string {
    if (error instanceof Error && error.name === "AggregateAuthenticationError") {
        return "no credentials found (AZURE_TENANT_ID/AZURE_CLIENT_ID/AZURE_CLIENT_SECRET, workload or managed identity, Azure CLI, azd)";
    }
    // Entra's own words (AADSTS…) say what is wrong: an expired secret, an unknown app.
    const described = (error as { errorResponse?: { errorDescription?: unknown } })?.errorResponse
        ?.errorDescription;
    const text =
        typeof described === "string" && described.trim()
            ? described
            : error instanceof Error
              ? error.message
              : String(error);
    const aadsts = text.match(/AADSTS\d+:.*?(?:\.(?=\s|$)|$)/m)?.[0];
    return (aadsts ?? text.split(/\r?\n/)[0]!).trim().replace(/\.$/, "");
}
