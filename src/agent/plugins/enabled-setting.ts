/**
 * Which plugins the settings switch on or off (`enabledPlugins`), merged in
 * one place for the session's loader, the trust question and `north doctor`.
 * No plugin code is imported here: the trust question reads it in projects
 * with no plugin installed.
 */

/**
 * A project's files that may set `enabledPlugins` (and declare marketplaces),
 * lowest precedence first: the shared files, then the local ones (yours), so
 * a `false` in your own local file beats a shared `true`.
 */
export const PROJECT_PLUGIN_FILES = [
    ".north/settings.json",
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".north/settings.local.json",
] as const;

export type ProjectPluginFile = (typeof PROJECT_PLUGIN_FILES)[number];

/**
 * A trusted project's `enabledPlugins`, its files (as fingerprinted by trust)
 * merged by precedence; a value that is not an object is ignored with a warning.
 */
export function projectEnabledPlugins(
    files: Partial<Record<ProjectPluginFile, string>>,
    warnings: string[] = []
): Record<string, boolean> {
    const out: Record<string, boolean> = {};
    for (const file of PROJECT_PLUGIN_FILES) {
        const text = files[file];
        if (text === undefined) continue;
        let json: unknown;
        try {
            json = JSON.parse(text);
        } catch {
            continue; // The settings and hooks loaders already report a broken file.
        }
        const value = (json as { enabledPlugins?: unknown } | null)?.enabledPlugins;
        if (value === undefined) continue;
        if (typeof value !== "object" || value === null || Array.isArray(value)) {
            warnings.push(`${file}: "enabledPlugins" must be an object; ignored`);
            continue;
        }
        for (const [id, on] of Object.entries(value)) if (typeof on === "boolean") out[id] = on;
    }
    return out;
}
