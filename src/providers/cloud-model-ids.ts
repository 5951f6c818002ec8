/**
 * Claude model ids as each cloud names them, and back: Claude Code's
 * `CLAUDE_CODE_USE_BEDROCK` / `_VERTEX` / `_FOUNDRY` switches route the
 * catalogue's Claude models to that cloud's provider, and a cloud id typed
 * as `bedrock:us.anthropic.claude-…` finds its catalogue entry again.
 */

type Env = Record<string, string | undefined>;

export type ClaudeCloud = "bedrock" | "vertex" | "foundry";

/** Claude Code's switch for each cloud, in the order it checks them. */
const SWITCHES: ReadonlyArray<{ cloud: ClaudeCloud; variable: string }> = [
    { cloud: "bedrock", variable: "CLAUDE_CODE_USE_BEDROCK" },
    { cloud: "vertex", variable: "CLAUDE_CODE_USE_VERTEX" },
    { cloud: "foundry", variable: "CLAUDE_CODE_USE_FOUNDRY" },
];

/** As Claude Code reads its switches: 1, true, yes or on. */
export function isSwitchOn(value: string | undefined): boolean {
    return value !== undefined && /^(1|true|yes|on)$/i.test(value.trim());
}

/** The Claude Code variable that switches this provider on, if it has one. */
export function claudeCloudSwitch(providerId: string): string | undefined {
    return SWITCHES.find((s) => s.cloud === providerId)?.variable;
}

/** The cloud Claude models go to, from Claude Code's switches (the first set one). */
export function claudeCloudFromEnv(env: Env): ClaudeCloud | undefined {
    return SWITCHES.find((s) => isSwitchOn(env[s.variable]))?.cloud;
}

/** `claude-sonnet-4-5-20250929` → name `claude-sonnet-4-5`, date `20250929`. */
function splitDate(id: string): { name: string; date?: string } {
    const match = /^(.*)-(\d{8})$/.exec(id);
    return match ? { name: match[1]!, date: match[2]! } : { name: id };
}

/**
 * The inference-profile prefix for a region: Bedrock serves current Claude
 * models through cross-region profiles only (`us.`, `eu.`, `apac.`), and
 * `global.` where no geography is known.
 */
export function bedrockProfilePrefix(region: string | undefined): string {
    if (!region) return "global.";
    if (region.startsWith("us-gov-")) return "us-gov.";
    if (region.startsWith("us-") || region.startsWith("ca-")) return "us.";
    if (region.startsWith("eu-")) return "eu.";
    if (region.startsWith("ap-")) return "apac.";
    return "global.";
}

/**
 * Bedrock's id: dated models are `anthropic.<id>-v1:0`, undated (Claude 5)
 * `anthropic.<id>`; both behind the region's inference profile.
 */
export function bedrockModelId(catalogueId: string, region: string | undefined): string {
    const { date } = splitDate(catalogueId);
    const base = date ? `anthropic.${catalogueId}-v1:0` : `anthropic.${catalogueId}`;
    return `${bedrockProfilePrefix(region)}${base}`;
}

/** Vertex's id: `claude-sonnet-4-5@20250929`; undated models keep their id. */
export function vertexModelId(catalogueId: string): string {
    const { name, date } = splitDate(catalogueId);
    return date ? `${name}@${date}` : name;
}

/** Foundry's deployment name (its default): the id without its date. */
export function foundryModelId(catalogueId: string): string {
    return splitDate(catalogueId).name;
}

/** The id `cloud` knows a catalogue Claude model by. */
export function cloudModelId(cloud: ClaudeCloud, catalogueId: string, env: Env): string {
    switch (cloud) {
        case "bedrock":
            return bedrockModelId(catalogueId, env.AWS_REGION || env.AWS_DEFAULT_REGION);
        case "vertex":
            return vertexModelId(catalogueId);
        case "foundry":
            return foundryModelId(catalogueId);
    }
}

const BEDROCK_PROFILE = /^(?:us-gov|us|eu|apac|jp|au|ca|global)\./;

/**
 * The catalogue-style id inside a cloud or gateway id, for looking the
 * model up: `us.anthropic.claude-opus-4-5-20251101-v1:0`,
 * `claude-opus-4-5@20251101`, `anthropic/claude-opus-4.5` all give
 * `claude-opus-4-5…`. A Bedrock ARN's last segment is read the same way.
 */
export function catalogueIdOf(cloudId: string): string {
    let id = cloudId.trim();
    const slash = id.lastIndexOf("/");
    if (id.startsWith("arn:") && slash >= 0) id = id.slice(slash + 1);
    id = id.replace(BEDROCK_PROFILE, "");
    if (id.startsWith("anthropic.")) id = id.slice("anthropic.".length);
    // OpenRouter and other gateways: `anthropic/claude-sonnet-4.5`, `google/gemini-3.8-flash`.
    if (id.includes("/")) {
        id = id.slice(id.indexOf("/") + 1);
        if (id.startsWith("claude-")) id = id.replace(/(\d)\.(\d)/g, "$1-$2");
    }
    id = id.replace(/-v\d+(?::\d+)?$/, "");
    id = id.replace(/@(\d{8})$/, "-$1").replace(/@.*$/, "");
    return id;
}

/** Whether a catalogue id names the same model as a looked-up id (dates optional). */
export function sameModel(catalogueId: string, lookedUp: string): boolean {
    if (catalogueId === lookedUp) return true;
    return splitDate(catalogueId).name === lookedUp;
}
