/**
 * Where a Vertex AI request goes: project, region and base URL, from the
 * provider's settings and the variables Claude Code and Google's tools read.
 */

import type { CloudSettings } from "../types";

type Env = Record<string, string | undefined>;

/** Claude Code's default region for Claude on Vertex. */
export const DEFAULT_CLAUDE_REGION = "us-east5";
/** Gemini's newest models are served from the global endpoint. */
export const DEFAULT_GEMINI_REGION = "global";

/** The project from settings or variables; undefined means "ask the credentials". */
export function configuredProject(cloud: CloudSettings | undefined, env: Env): string | undefined {
    return (
        cloud?.project ||
        env.ANTHROPIC_VERTEX_PROJECT_ID ||
        env.GOOGLE_CLOUD_PROJECT ||
        env.GCLOUD_PROJECT ||
        undefined
    );
}

export type VertexPublisher = "anthropic" | "google";

/** The publisher of a model id: Claude models are Anthropic's, the rest Google's. */
export function publisherOf(modelId: string): VertexPublisher {
    return modelId.startsWith("claude-") ? "anthropic" : "google";
}

/**
 * The region for one model: Claude Code's per-model variable
 * (`VERTEX_REGION_CLAUDE_4_5_SONNET`, `VERTEX_REGION_CLAUDE_HAIKU_4_5`…),
 * then the provider's `region`, `CLOUD_ML_REGION`, `GOOGLE_CLOUD_LOCATION`,
 * then the publisher's default.
 */
export function regionFor(modelId: string, cloud: CloudSettings | undefined, env: Env): string {
    for (const name of claudeRegionVariables(modelId)) {
        const value = env[name];
        if (value) return value;
    }
    return (
        cloud?.region ||
        env.CLOUD_ML_REGION ||
        env.GOOGLE_CLOUD_LOCATION ||
        (publisherOf(modelId) === "anthropic" ? DEFAULT_CLAUDE_REGION : DEFAULT_GEMINI_REGION)
    );
}

/**
 * The names Claude Code gives its per-model region variables, derived from
 * the model id: the version first (`4_5_SONNET`, `4_0_OPUS`, `5_OPUS`), or
 * the family first (`HAIKU_4_5`).
 */
export function claudeRegionVariables(modelId: string): string[] {
    const base = modelId.split("@")[0]!.replace(/-\d{8}$/, "");
    // claude-3-5-haiku (version first) or claude-sonnet-4-5 (family first)
    const m = /^claude-(?:(\d+)(?:-(\d+))?-([a-z]+)|([a-z]+)-(\d+)(?:-(\d+))?)$/.exec(base);
    if (!m) return [];
    const family = (m[3] ?? m[4])!;
    const major = (m[1] ?? m[5])!;
    const minor = m[2] ?? m[6];
    const f = family.toUpperCase();
    const names = [
        `VERTEX_REGION_CLAUDE_${major}_${minor ?? "0"}_${f}`,
        `VERTEX_REGION_CLAUDE_${f}_${major}_${minor ?? "0"}`,
    ];
    if (minor === undefined || minor === "0") {
        names.push(`VERTEX_REGION_CLAUDE_${major}_${f}`, `VERTEX_REGION_CLAUDE_${f}_${major}`);
    }
    return names;
}

/**
 * The API's base URL, `/v1` included (as ANTHROPIC_VERTEX_BASE_URL is
 * written for Claude Code): the global endpoint for `global`, else the
 * region's own host.
 */
export function defaultBaseUrl(region: string): string {
    return region === "global"
        ? "https://aiplatform.googleapis.com/v1"
        : `https://${region}-aiplatform.googleapis.com/v1`;
}

/** The model's path under the base URL, before `:method`. */
export function modelPath(
    project: string,
    region: string,
    publisher: VertexPublisher,
    modelId: string
): string {
    const segment = (value: string) => encodeURIComponent(value).replace(/%40/g, "@");
    return `/projects/${segment(project)}/locations/${segment(region)}/publishers/${publisher}/models/${segment(modelId)}`;
}
