/**
 * Tool names for MCP tools: `mcp__<server>__<tool>`, as Claude Code names
 * them, so allowlists and hook matchers carry over. Providers accept
 * `[a-zA-Z0-9_-]{1,64}`; longer or clashing names get a short hash suffix.
 */
import { createHash } from "node:crypto";

export const MCP_TOOL_PREFIX = "mcp__";
export const MAX_TOOL_NAME_LENGTH = 64;

/** Replaces every character outside `[a-zA-Z0-9_-]` with `_`. */
export function sanitizeNamePart(part: string): string {
    const clean = part.replace(/[^a-zA-Z0-9_-]/g, "_");
    return clean === "" ? "_" : clean;
}

function shortHash(text: string): string {
    return createHash("sha256").update(text).digest("hex").slice(0, 8);
}

/**
 * The provider-facing name of `tool` on `server`. `taken` holds names already
 * given out; a clash (two raw names sanitising alike) or an over-long name
 * keeps a prefix and appends a hash of the raw pair, so names stay stable.
 */
export function mcpToolName(server: string, tool: string, taken?: ReadonlySet<string>): string {
    const name = `${MCP_TOOL_PREFIX}${sanitizeNamePart(server)}__${sanitizeNamePart(tool)}`;
    if (name.length <= MAX_TOOL_NAME_LENGTH && !taken?.has(name)) return name;
    const suffix = `_${shortHash(`${server}\u0000${tool}`)}`;
    return name.slice(0, MAX_TOOL_NAME_LENGTH - suffix.length) + suffix;
}

/**
 * One line for the approval prompt: the tool and its arguments as compact
 * JSON, cut to `maxChars`. Also a natural allowlist key is the tool name.
 */
export function describeMcpCall(toolName: string, input: unknown, maxChars = 200): string {
    let args: string;
    try {
        args = JSON.stringify(input ?? {}) ?? "{}";
    } catch {
        args = "{…}";
    }
    const line = `${toolName} ${args}`;
    return line.length <= maxChars ? line : `${line.slice(0, maxChars - 1)}…`;
}
