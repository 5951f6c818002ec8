/**
 * Where Bedrock requests go and as whom: the region, the runtime and control
 * endpoints, the AWS profile and a Bedrock API key, read from the provider's
 * settings and the variables the AWS tools and Claude Code read.
 */

import type { CloudSettings } from "../types";

type Env = Record<string, string | undefined>;

/** Claude Code's default when no region is set anywhere. */
export const DEFAULT_BEDROCK_REGION = "us-east-1";

/** How the requests of one Bedrock provider are authorised. */
export type BedrockAuthMode =
    /** SigV4 with credentials from the AWS chain. */
    | { kind: "sigv4"; profile: string | undefined }
    /** A Bedrock API key (`AWS_BEARER_TOKEN_BEDROCK`) as a bearer token. */
    | { kind: "bearer"; token: string }
    /** A gateway that signs for us (Claude Code's `CLAUDE_CODE_SKIP_BEDROCK_AUTH`). */
    | { kind: "none" };

export function bedrockAuthMode(cloud: CloudSettings | undefined, env: Env): BedrockAuthMode {
    if (isTrue(env.CLAUDE_CODE_SKIP_BEDROCK_AUTH)) return { kind: "none" };
    const token = env.AWS_BEARER_TOKEN_BEDROCK?.trim();
    if (token) return { kind: "bearer", token };
    return { kind: "sigv4", profile: cloud?.profile || env.AWS_PROFILE || undefined };
}

/**
 * The region: the provider's setting, AWS_REGION, AWS_DEFAULT_REGION, the
 * profile's `region` in the shared config file, else us-east-1.
 */
export async function bedrockRegion(
    cloud: CloudSettings | undefined,
    env: Env,
    profileRegion: (profile: string | undefined) => Promise<string | undefined>
): Promise<string> {
    const named = cloud?.region || env.AWS_REGION || env.AWS_DEFAULT_REGION;
    if (named) return named.trim();
    const profile = cloud?.profile || env.AWS_PROFILE || undefined;
    return (await profileRegion(profile)) || DEFAULT_BEDROCK_REGION;
}

/** The `region` of a profile in the shared config file (AWS_CONFIG_FILE, ~/.aws/config). */
export async function sharedConfigRegion(profile: string | undefined): Promise<string | undefined> {
    const { loadSharedConfigFiles } = await import("@smithy/core/config");
    const files = await loadSharedConfigFiles({ ignoreCache: true });
    const name = profile || "default";
    return files.configFile[name]?.region || files.credentialsFile[name]?.region || undefined;
}

/**
 * The InvokeModel endpoint: the provider's base URL (or ANTHROPIC_BEDROCK_BASE_URL,
 * already folded into it by `resolveEndpoint`), the standard
 * AWS_ENDPOINT_URL_BEDROCK_RUNTIME / AWS_ENDPOINT_URL, else the region's.
 */
export function runtimeBaseUrl(baseUrl: string | undefined, region: string, env: Env): string {
    return trimSlash(
        baseUrl ||
            env.AWS_ENDPOINT_URL_BEDROCK_RUNTIME ||
            env.AWS_ENDPOINT_URL ||
            `https://bedrock-runtime.${region}.${dnsSuffix(region)}`
    );
}

/** The control-plane endpoint (model and inference-profile lists). */
export function controlBaseUrl(region: string, env: Env): string {
    return trimSlash(
        env.AWS_ENDPOINT_URL_BEDROCK ||
            env.AWS_ENDPOINT_URL ||
            `https://bedrock.${region}.${dnsSuffix(region)}`
    );
}

/** China's regions live under amazonaws.com.cn. */
function dnsSuffix(region: string): string {
    return region.startsWith("cn-") ? "amazonaws.com.cn" : "amazonaws.com";
}

function trimSlash(url: string): string {
    return url.replace(/\/+$/, "");
}

function isTrue(value: string | undefined): boolean {
    return value !== undefined && ["1", "true", "yes"].includes(value.trim().toLowerCase());
}
