/**
 * Azure hosts of North's wire protocols (`auth: "azure"`): Azure OpenAI (the
 * Responses or Chat Completions API on `{resource}.openai.azure.com`) and
 * Microsoft Foundry's Anthropic endpoint (`{resource}.services.ai.azure.com/anthropic`).
 * Each takes its key variable when set, else Entra ID tokens, as the Azure
 * SDKs and Claude Code do. The API modules then speak to the endpoint as to
 * any other host of their protocol.
 */

import { AZURE_AI_SCOPE, COGNITIVE_SERVICES_SCOPE, createEntraSigner } from "./azure-entra";
import { CredentialError } from "./errors";
import type { ProviderEndpoint } from "./types";

type Env = Record<string, string | undefined>;

export const AZURE_OPENAI_KEY_ENV = "AZURE_OPENAI_API_KEY";
export const FOUNDRY_KEY_ENV = "ANTHROPIC_FOUNDRY_API_KEY";

export function azureEndpoint(
    endpoint: ProviderEndpoint,
    env: Env = process.env
): ProviderEndpoint {
    return endpoint.api === "anthropic"
        ? foundryEndpoint(endpoint, env)
        : azureOpenAIEndpoint(endpoint, env);
}

function foundryEndpoint(endpoint: ProviderEndpoint, env: Env): ProviderEndpoint {
    const resource = env.ANTHROPIC_FOUNDRY_RESOURCE?.trim();
    const baseUrl =
        endpoint.baseUrl ??
        (resource ? `https://${resource}.services.ai.azure.com/anthropic` : undefined);
    if (!baseUrl) {
        return unusable(
            endpoint,
            "Foundry: no endpoint: export ANTHROPIC_FOUNDRY_RESOURCE=<resource name> (or ANTHROPIC_FOUNDRY_BASE_URL=https://<resource>.services.ai.azure.com/anthropic)"
        );
    }
    const key = env[FOUNDRY_KEY_ENV]?.trim();
    // Anthropic's Foundry SDK sends a key in `x-api-key`, a token as a bearer.
    if (key) return keyed({ ...endpoint, baseUrl }, key, endpoint.keyHeader ?? "x-api-key");
    return {
        ...endpoint,
        baseUrl,
        signer: createEntraSigner({ scope: AZURE_AI_SCOPE, keyEnv: FOUNDRY_KEY_ENV }),
    };
}

function azureOpenAIEndpoint(endpoint: ProviderEndpoint, env: Env): ProviderEndpoint {
    const resource = endpoint.baseUrl ?? env.AZURE_OPENAI_ENDPOINT?.trim();
    if (!resource) {
        return unusable(
            endpoint,
            "Azure OpenAI: no endpoint: export AZURE_OPENAI_ENDPOINT=https://<resource>.openai.azure.com (or set providers.azure.baseUrl)"
        );
    }
    const apiVersion =
        endpoint.cloud?.apiVersion ??
        (env.AZURE_OPENAI_API_VERSION?.trim() || env.OPENAI_API_VERSION?.trim() || undefined);
    const prepared: ProviderEndpoint = {
        ...endpoint,
        baseUrl: azureOpenAIBase(resource, apiVersion),
        cloud: { ...endpoint.cloud, ...(apiVersion ? { apiVersion } : {}) },
    };
    const key = env[AZURE_OPENAI_KEY_ENV]?.trim();
    if (key) return keyed(prepared, key, endpoint.keyHeader ?? "api-key");
    return {
        ...prepared,
        signer: createEntraSigner({
            scope: COGNITIVE_SERVICES_SCOPE,
            keyEnv: AZURE_OPENAI_KEY_ENV,
        }),
    };
}

/**
 * An endpoint the settings do not name: every request (and probe) stops
 * before it is sent, with what to set, as a missing credential does.
 */
function unusable(endpoint: ProviderEndpoint, problem: string): ProviderEndpoint {
    return {
        ...endpoint,
        signer: {
            sign: () => Promise.reject(new CredentialError(problem)),
        },
    };
}

function keyed(endpoint: ProviderEndpoint, apiKey: string, keyHeader: string): ProviderEndpoint {
    const { auth: _auth, signer: _signer, ...rest } = endpoint;
    return { ...rest, apiKey, keyHeader };
}

/**
 * The API root under an Azure OpenAI resource URL. The v1 API
 * (`/openai/v1/responses`) needs no `api-version`; a dated one
 * (`2025-04-01-preview`) takes the older `/openai/responses?api-version=…`.
 * A URL that already names an `/openai` path is used as given.
 */
export function azureOpenAIBase(resource: string, apiVersion: string | undefined): string {
    const url = new URL(resource);
    const path = url.pathname.replace(/\/+$/, "");
    if (/\/openai(\/|$)/.test(path)) return `${url.origin}${path}`;
    const dated = apiVersion !== undefined && /^\d{4}-\d{2}-\d{2}/.test(apiVersion);
    return `${url.origin}${path}/openai${dated ? "" : "/v1"}`;
}
