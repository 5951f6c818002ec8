/**
 * The `statusLine` command in force: North's settings (user, then the
 * trusted project's), else a trusted project's Claude Code files
 * (`.claude/settings.local.json`, then `.claude/settings.json`), whose other
 * keys North does not read.
 */
import type { HookFileSource } from "../storage/settings/load";
import type { Settings } from "../storage/settings/schema";

export type StatusLineSetting = NonNullable<Settings["statusLine"]>;

function fromClaudeFile(source: HookFileSource): StatusLineSetting | undefined {
    if (!/[\\/]\.claude[\\/]settings(\.local)?\.json$/.test(source.source)) return undefined;
    let json: unknown = source.json;
    if (json === undefined && source.text !== undefined) {
        try {
            json = JSON.parse(source.text) as unknown;
        } catch {
            return undefined;
        }
    }
    const raw = (json as { statusLine?: unknown } | null | undefined)?.statusLine as
        { type?: unknown; command?: unknown; padding?: unknown } | undefined;
    if (raw?.type !== "command" || typeof raw.command !== "string" || raw.command === "")
        return undefined;
    const padding =
        typeof raw.padding === "number" && Number.isInteger(raw.padding) && raw.padding >= 0
            ? Math.min(raw.padding, 20)
            : undefined;
    return { type: "command", command: raw.command, ...(padding !== undefined ? { padding } : {}) };
}

export function statusLineSetting(
    merged: Settings,
    hookSources: readonly HookFileSource[]
): StatusLineSetting | undefined {
    if (merged.statusLine) return merged.statusLine;
    // The local file is the more personal one: it wins, as in Claude Code.
    const claude = hookSources.map(fromClaudeFile).filter((s) => s !== undefined);
    return claude.at(-1);
}
