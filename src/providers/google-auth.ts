/**
 * Google Cloud credentials for Vertex AI, through `google-auth-library`:
 * application default credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud's
 * `application_default_credentials.json`, the metadata server), scope
 * cloud-platform, tokens cached and refreshed by the library. Its requests go
 * through North's transport (`nodeFetch`: HTTPS_PROXY / NO_PROXY), every
 * token wait is time-limited, and every failure is a `CredentialError` that
 * says how to fix it. The library loads on the first request only.
 */

import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import type * as GoogleAuthModule from "google-auth-library";
import type { AuthClient } from "google-auth-library";
import { CredentialError } from "./errors";
import { nodeFetch } from "./node-fetch";
import type { OutgoingRequest, RequestSigner } from "./types";

type Env = Record<string, string | undefined>;

export const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";
/** Where the library sends every OAuth token request, whatever the key file says. */
const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";
/** A token endpoint or metadata server that answers slower than this is reported, not waited on. */
export const DEFAULT_TOKEN_TIMEOUT_MS = 30_000;

const LOGIN_HINT =
    "run `gcloud auth application-default login`, or set GOOGLE_APPLICATION_CREDENTIALS to a service-account key file";

export interface GoogleCredentialsOptions {
    /** A project already known (settings, variables): the library then skips looking for one. */
    projectId?: string;
    tokenTimeoutMs?: number;
}

/** The fields of a credentials file North reads itself (the library reads the rest). */
interface CredentialsFile {
    path: string;
    type?: string;
    project_id?: string;
    client_email?: string;
    token_uri?: string;
}

/** Google credentials: a request signer, plus what `probe` reports. */
export interface GoogleCredentials extends RequestSigner {
    /** The project the credentials belong to (key file, gcloud, metadata server), if any. */
    projectId(signal: AbortSignal): Promise<string | undefined>;
    /** Obtains a token and says where it came from ("service account x@y (key file /path)"). */
    check(signal: AbortSignal): Promise<string>;
}

export function createGoogleCredentials(options: GoogleCredentialsOptions = {}): GoogleCredentials {
    // The library reads the same variables from process.env.
    const env: Env = process.env;
    const timeoutMs = options.tokenTimeoutMs ?? DEFAULT_TOKEN_TIMEOUT_MS;
    // The library compiles while the session starts (providers are created early); no request yet.
    const library = loadLibrary();
    library.catch(() => undefined);
    let setup: Promise<Setup> | undefined;
    const ready = (signal: AbortSignal): Promise<Setup> => {
        if (!setup) {
            const started = createSetup(library, env, options.projectId, timeoutMs);
            // A failed setup (no credentials yet) is tried afresh on the next request.
            started.catch(() => {
                if (setup === started) setup = undefined;
            });
            setup = started;
        }
        return withinTime(
            setup,
            timeoutMs,
            signal,
            "the Google credentials lookup (key file, gcloud, metadata server)"
        );
    };
    const headers = async (signal: AbortSignal): Promise<Headers> => {
        const { client, source } = await ready(signal);
        return withinTime(
            client.getRequestHeaders().catch((error: unknown) => {
                throw credentialFailure(error, source);
            }),
            timeoutMs,
            signal,
            `the Google token request (${source.endpoint})`
        );
    };
    return {
        async sign(request: OutgoingRequest, signal: AbortSignal): Promise<void> {
            (await headers(signal)).forEach((value, name) => {
                request.headers[name.toLowerCase()] = value;
            });
        },
        async projectId(signal) {
            const { projectId } = await ready(signal);
            return projectId ?? undefined;
        },
        async check(signal) {
            await headers(signal);
            return (await ready(signal)).source.describe;
        },
    };
}

interface CredentialSource {
    /** "service account x@y (key file /path)", "gcloud user credentials (/path)", "the metadata server" */
    describe: string;
    /** Where tokens come from, for messages. */
    endpoint: string;
    type: string;
}

interface Setup {
    client: AuthClient;
    projectId: string | null;
    source: CredentialSource;
}

type GoogleAuthLibrary = typeof GoogleAuthModule;

function loadLibrary(): Promise<GoogleAuthLibrary> {
    // A CommonJS package: its exports are `default` once bundled.
    return import("google-auth-library").then((module) => module.default);
}

async function createSetup(
    library: Promise<GoogleAuthLibrary>,
    env: Env,
    projectId: string | undefined,
    timeoutMs: number
): Promise<Setup> {
    const file = await readCredentialsFile(env);
    const tokenUrl =
        file?.token_uri && file.token_uri !== GOOGLE_TOKEN_URL ? file.token_uri : undefined;
    const lib = await library;
    const fetchImplementation = transportFetch(tokenUrl);
    // The metadata server is reached by the library's shared request instance: same transport.
    lib.gaxios.instance.defaults.fetchImplementation = fetchImplementation;
    const auth = new lib.GoogleAuth({
        scopes: [CLOUD_PLATFORM_SCOPE],
        ...(projectId ? { projectId } : {}),
        clientOptions: { transporterOptions: { fetchImplementation, timeout: timeoutMs } },
    });
    const source = describeSource(file, tokenUrl, env);
    if (!file && !mayHaveMetadataServer(env, lib.gcpMetadata)) throw noCredentials();
    try {
        const client = await auth.getClient();
        const found = projectId ?? (await auth.getProjectId().catch(() => null));
        return { client, projectId: found ?? null, source };
    } catch (error) {
        if (!file && !(await lib.gcpMetadata.isAvailable().catch(() => false))) {
            throw noCredentials();
        }
        throw credentialFailure(error, source);
    }
}

function noCredentials(): CredentialError {
    return new CredentialError(
        `no Google credentials found (no GOOGLE_APPLICATION_CREDENTIALS, no gcloud application default credentials, not on Google Cloud): ${LOGIN_HINT}`
    );
}

/**
 * Whether the metadata server is worth asking: on Google Cloud (the
 * library's BIOS and serverless check) or where the variables point at one.
 * Elsewhere the library's probe would cost a timeout and print a warning.
 */
function mayHaveMetadataServer(env: Env, metadata: { getGCPResidency(): boolean }): boolean {
    if (env.GCE_METADATA_HOST || env.GCE_METADATA_IP || env.METADATA_SERVER_DETECTION) return true;
    return metadata.getGCPResidency();
}

/** The credentials file the library will read: GOOGLE_APPLICATION_CREDENTIALS, else gcloud's. */
async function readCredentialsFile(env: Env): Promise<CredentialsFile | undefined> {
    const named = env.GOOGLE_APPLICATION_CREDENTIALS;
    const path = named || wellKnownFile(env);
    if (!path) return undefined;
    let text: string;
    try {
        text = await readFile(path, "utf8");
    } catch (error) {
        if (!named) return undefined;
        const code = (error as NodeJS.ErrnoException).code ?? String(error);
        throw new CredentialError(
            `GOOGLE_APPLICATION_CREDENTIALS names ${path}, which cannot be read (${code}): point it at a service-account key file, or unset it and ${LOGIN_HINT.replace(/, or set .*$/, "")}`
        );
    }
    try {
        const parsed = JSON.parse(text) as Omit<CredentialsFile, "path">;
        if (typeof parsed !== "object" || parsed === null) throw new Error("not an object");
        return { ...parsed, path };
    } catch {
        throw new CredentialError(
            `the Google credentials file ${path} is not JSON: ${named ? "point GOOGLE_APPLICATION_CREDENTIALS at a service-account key file" : "run `gcloud auth application-default login` to write it again"}`
        );
    }
}

function wellKnownFile(env: Env): string | undefined {
    if (env.CLOUDSDK_CONFIG)
        return join(env.CLOUDSDK_CONFIG, "application_default_credentials.json");
    if (process.platform === "win32") {
        return env.APPDATA
            ? join(env.APPDATA, "gcloud", "application_default_credentials.json")
            : undefined;
    }
    const home = env.HOME ?? homedir();
    return join(home, ".config", "gcloud", "application_default_credentials.json");
}

function describeSource(
    file: CredentialsFile | undefined,
    tokenUrl: string | undefined,
    env: Env
): CredentialSource {
    const endpoint = tokenUrl ?? GOOGLE_TOKEN_URL;
    if (!file) {
        const host = env.GCE_METADATA_HOST || env.GCE_METADATA_IP || "169.254.169.254";
        return { describe: `the metadata server (${host})`, endpoint: host, type: "metadata" };
    }
    const type = file.type ?? "unknown";
    if (type === "service_account") {
        return {
            describe: `service account ${file.client_email ?? "?"} (key file ${file.path})`,
            endpoint,
            type,
        };
    }
    if (type === "authorized_user") {
        return { describe: `gcloud user credentials (${file.path})`, endpoint, type };
    }
    return { describe: `${type} credentials (${file.path})`, endpoint, type };
}

/** How to fix credentials of this kind once Google refused them. */
function refreshHint(source: CredentialSource): string {
    if (source.type === "authorized_user") {
        return "run `gcloud auth application-default login` to sign in again";
    }
    if (source.type === "service_account") {
        return "the key may be deleted, disabled or expired: create a new key and point GOOGLE_APPLICATION_CREDENTIALS at it";
    }
    if (source.type === "metadata") {
        return "check the instance's service account and its cloud-platform scope, or use GOOGLE_APPLICATION_CREDENTIALS";
    }
    return LOGIN_HINT;
}

interface GaxiosLikeError {
    message: string;
    response?: { status?: number; data?: unknown };
    cause?: unknown;
}

/** A library failure, as a `CredentialError` naming the credentials and the fix. */
function credentialFailure(error: unknown, source: CredentialSource): CredentialError {
    if (error instanceof CredentialError) return error;
    const e = (typeof error === "object" && error !== null ? error : {}) as GaxiosLikeError;
    const status = e.response?.status;
    if (status !== undefined) {
        const data = e.response?.data;
        const detail = errorDetail(data) ?? (e.message || "no detail");
        return new CredentialError(
            `Google refused the ${source.describe} (${status}: ${detail}): ${refreshHint(source)}`
        );
    }
    const message = innermostMessage(error);
    return new CredentialError(
        `Google credentials from ${source.describe} failed: ${message} (token endpoint ${source.endpoint}; check the network and HTTPS_PROXY / NO_PROXY, or ${refreshHint(source)})`
    );
}

/** The OAuth error body: `{error, error_description}` or Google's `{error:{message}}`. */
function errorDetail(data: unknown): string | undefined {
    if (typeof data === "string") return data.slice(0, 200) || undefined;
    if (typeof data !== "object" || data === null) return undefined;
    const record = data as Record<string, unknown>;
    const inner = record["error"];
    if (typeof inner === "string") {
        const description = record["error_description"];
        return typeof description === "string" ? `${inner}: ${description}` : inner;
    }
    if (typeof inner === "object" && inner !== null) {
        const message = (inner as Record<string, unknown>)["message"];
        if (typeof message === "string") return message;
    }
    return undefined;
}

function innermostMessage(error: unknown): string {
    let message = error instanceof Error ? error.message : String(error);
    let e: unknown = error;
    for (let depth = 0; depth < 6 && typeof e === "object" && e !== null; depth++) {
        const m = (e as { message?: unknown }).message;
        if (typeof m === "string" && m) message = m;
        e = (e as { cause?: unknown }).cause;
    }
    return message;
}

/**
 * `fetch` for the library over North's transport. The library posts token
 * requests to Google's fixed URL; a key file's own `token_uri` (private
 * endpoints) is honoured by sending them there instead, as Google's other
 * client libraries do.
 */
function transportFetch(tokenUrl: string | undefined): typeof fetch {
    return (input, init = {}) => {
        const raw = input instanceof Request ? input.url : String(input);
        const url = tokenUrl && raw === GOOGLE_TOKEN_URL ? tokenUrl : raw;
        const headers = new Headers(init.headers);
        let body = init.body;
        if (body instanceof URLSearchParams) {
            if (!headers.has("content-type")) {
                headers.set("content-type", "application/x-www-form-urlencoded;charset=UTF-8");
            }
            body = body.toString();
        }
        return nodeFetch(url, { method: init.method ?? "GET", headers, body, signal: init.signal });
    };
}

function abortError(): Error {
    const error = new Error("This operation was aborted");
    error.name = "AbortError";
    return error;
}

/** `work`, unless the caller cancels or `ms` pass first (then a `CredentialError` says what hung). */
function withinTime<T>(
    work: Promise<T>,
    ms: number,
    signal: AbortSignal,
    what: string
): Promise<T> {
    if (signal.aborted) return Promise.reject(abortError());
    return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
            cleanup();
            reject(
                new CredentialError(
                    `${what} did not answer within ${ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`}: check the network and HTTPS_PROXY / NO_PROXY`
                )
            );
        }, ms);
        const onAbort = (): void => {
            cleanup();
            reject(abortError());
        };
        const cleanup = (): void => {
            clearTimeout(timer);
            signal.removeEventListener("abort", onAbort);
        };
        signal.addEventListener("abort", onAbort, { once: true });
        work.then(
            (value) => {
                cleanup();
                resolve(value);
            },
            (error: unknown) => {
                cleanup();
                reject(error);
            }
        );
    });
}
