/**
 * AWS credentials from the standard chain (environment, shared config and
 * credentials files with their profiles, SSO cache, web identity, container
 * and instance metadata) through the AWS library, which caches them and
 * fetches new ones before they expire. Failures become `CredentialError`s
 * that say how to refresh.
 */

import { CredentialError } from "../errors";
import { createProxyRequestHandler } from "./proxy-request-handler";

export interface AwsCredentials {
    accessKeyId: string;
    secretAccessKey: string;
    sessionToken?: string;
    expiration?: Date;
}

/** Resolves credentials for one request; gives up when `signal` aborts or the deadline passes. */
export type AwsCredentialSource = (signal?: AbortSignal) => Promise<AwsCredentials>;

/**
 * How long the chain may take. The library's own timeouts do not cover every
 * link (a container endpoint that accepts and never answers held a request
 * for minutes), and a turn must never hang on credentials.
 */
export const DEFAULT_CREDENTIAL_DEADLINE_MS = 20_000;

/** The library logs through this; its console fallback would draw over the chat. */
const QUIET_LOGGER = {
    debug: (): void => {},
    info: (): void => {},
    warn: (): void => {},
    error: (): void => {},
};

/**
 * A source that resolves the chain on first use and then asks the library's
 * memoised chain each time (it refreshes credentials 5 minutes before expiry).
 */
export function createAwsCredentialSource(
    profile: string | undefined,
    deadlineMs: number = DEFAULT_CREDENTIAL_DEADLINE_MS
): AwsCredentialSource {
    let chain: Promise<() => Promise<AwsCredentials>> | undefined;
    const load = () =>
        (chain ??= envKeysAnswer(profile)
            ? import("./aws-env-credentials").then((m) => m.fromEnv({ logger: QUIET_LOGGER }))
            : import("@aws-sdk/credential-providers").then((m) => {
                  // The STS/SSO clients' notice about their future Node versions would print over the chat.
                  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
                  return m.fromNodeProviderChain({
                      ...(profile ? { profile } : {}),
                      logger: QUIET_LOGGER,
                      // STS (assume role, web identity) and SSO go through North's transport.
                      clientConfig: { requestHandler: createProxyRequestHandler() },
                  });
              }));
    return async (signal) => {
        let credentials: AwsCredentials;
        try {
            credentials = await withDeadline(
                load().then((chain) => chain()),
                deadlineMs,
                signal
            );
        } catch (error) {
            if (signal?.aborted) throw error;
            throw new CredentialError(await credentialFailure(profile, error));
        }
        const expiration = credentials.expiration;
        if (expiration && expiration.getTime() <= Date.now()) {
            throw new CredentialError(
                `the AWS credentials expired at ${expiration.toISOString()}: ${await refreshHint(profile)}`
            );
        }
        return credentials;
    };
}

/**
 * Whether the chain would answer from the environment's keys: its first link
 * does unless a profile is named (then it skips them, as the AWS CLI does).
 */
function envKeysAnswer(profile: string | undefined): boolean {
    const env = process.env;
    return !profile && !env.AWS_PROFILE && !!env.AWS_ACCESS_KEY_ID && !!env.AWS_SECRET_ACCESS_KEY;
}

async function credentialFailure(profile: string | undefined, error: unknown): Promise<string> {
    const reason = error instanceof Error ? error.message : String(error);
    const whose = profile ? `profile "${profile}"` : "the default chain";
    return `no usable AWS credentials from ${whose} (${reason}): ${await refreshHint(profile)}`;
}

/** What to run: the SSO login for an SSO profile, else where credentials come from. */
export async function refreshHint(profile: string | undefined): Promise<string> {
    if (profile && (await isSsoProfile(profile)))
        return `run \`aws sso login --profile ${profile}\``;
    if (profile) {
        return `check profile "${profile}" in ~/.aws/config and ~/.aws/credentials, or run \`aws sso login --profile ${profile}\` if it uses SSO`;
    }
    return "set AWS_PROFILE to a configured profile (then `aws sso login` if it uses SSO), export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or set AWS_BEARER_TOKEN_BEDROCK to a Bedrock API key";
}

async function isSsoProfile(profile: string): Promise<boolean> {
    try {
        const { loadSharedConfigFiles } = await import("@smithy/core/config");
        const section = (await loadSharedConfigFiles({ ignoreCache: true })).configFile[profile];
        return Boolean(section?.sso_session || section?.sso_start_url);
    } catch {
        return false;
    }
}

/** `work`, or a rejection once `ms` pass or `signal` aborts (the work is left to finish on its own). */
function withDeadline<T>(
    work: Promise<T>,
    ms: number,
    signal: AbortSignal | undefined
): Promise<T> {
    return new Promise<T>((resolve, reject) => {
        const onAbort = (): void => {
            clearTimeout(timer);
            reject(signal?.reason ?? new Error("aborted"));
        };
        const timer = setTimeout(() => {
            signal?.removeEventListener("abort", onAbort);
            const limit = ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
            reject(new Error(`the credential chain did not answer within ${limit}`));
        }, ms);
        if (signal?.aborted) onAbort();
        signal?.addEventListener("abort", onAbort, { once: true });
        work.then(
            (value) => {
                clearTimeout(timer);
                signal?.removeEventListener("abort", onAbort);
                resolve(value);
            },
            (error: unknown) => {
                clearTimeout(timer);
                signal?.removeEventListener("abort", onAbort);
                reject(error instanceof Error ? error : new Error(String(error)));
            }
        );
    });
}
