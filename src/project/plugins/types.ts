/**
 * A Claude Code plugin as North reads it: a folder with an optional
 * `.claude-plugin/plugin.json` and its parts in the documented places
 * (`commands/`, `agents/`, `skills/`, `hooks/hooks.json`, `.mcp.json`,
 * `.lsp.json`, `output-styles/`), or a marketplace entry that defines it
 * (`strict: false`). Reading a plugin runs none of its code.
 */

/** `name@marketplace`, the key of `enabledPlugins` and of North's installed store. */
export type PluginId = string;

export function pluginId(name: string, marketplace: string): PluginId {
    return `${name}@${marketplace}`;
}

/** `name@market` → its parts; undefined when the text is not of that shape. */
export function parsePluginId(id: string): { name: string; marketplace: string } | undefined {
    const at = id.lastIndexOf("@");
    if (at <= 0 || at === id.length - 1) return undefined;
    return { name: id.slice(0, at), marketplace: id.slice(at + 1) };
}

/** A Markdown part (command, agent, output style) of a plugin. */
export interface PluginMarkdownFile {
    /** As the user reaches it: `plugin:command`, `plugin:agent`, `plugin:style`. */
    name: string;
    /** Absolute path inside the plugin folder (symlinks out of it refused). */
    file: string;
}

/** A plugin's hooks file (`hooks/hooks.json`, manifest paths) or inline hooks, variables expanded. */
export interface PluginHooksConfig {
    /** The file it came from, or `plugin.json` / the marketplace entry for inline hooks. */
    source: string;
    /** Claude Code's `{ "PreToolUse": [ { matcher, hooks: [...] } ] }`, as in settings' `hooks`. */
    hooks: Record<string, unknown>;
}

export interface LoadedPlugin {
    id: PluginId;
    name: string;
    marketplace: string;
    version?: string;
    description?: string;
    /** The installed folder: `${CLAUDE_PLUGIN_ROOT}`. */
    root: string;
    /** `${CLAUDE_PLUGIN_DATA}`: survives updates (created when first used). */
    dataDir: string;
    /** `${CLAUDE_PROJECT_DIR}` the plugin was read for (so `expandPluginText(text, plugin)` works). */
    projectDir?: string;
    commands: PluginMarkdownFile[];
    agents: PluginMarkdownFile[];
    /** Folders holding a `SKILL.md`; reached as `plugin:skill`. */
    skillDirs: string[];
    hooks: PluginHooksConfig[];
    /** Server name (as the plugin writes it) → Claude Code's `.mcp.json` entry, variables expanded. */
    mcpServers: Record<string, unknown>;
    /** Server name → Claude Code's `.lsp.json` entry, variables expanded. */
    lspServers: Record<string, unknown>;
    outputStyles: PluginMarkdownFile[];
    /** Fields of the format North does not support (`dependencies`, `userConfig`, …), each named once. */
    unsupported: string[];
    /** Problems that did not stop the plugin (unknown keys, a missing folder a path names). */
    warnings: string[];
}

/**
 * What installing or updating a plugin would let it do, shown before the
 * user's yes: every program it can run is listed as the trust prompt lists a
 * project's.
 */
export interface PluginInventory {
    id: PluginId;
    version?: string;
    /** Where it comes from, as a person reads it: `github:owner/repo@<sha>`, a path. */
    source: string;
    commands: string[];
    agents: string[];
    skills: string[];
    /** Each hook's event, matcher and the command line it runs. */
    hooks: Array<{ event: string; matcher?: string; command: string }>;
    /** `command args…` (stdio, `npx …` included) or the URL. */
    mcpServers: Array<{ name: string; launch: string }>;
    lspServers: Array<{ name: string; launch: string }>;
    outputStyles: string[];
    unsupported: string[];
    warnings: string[];
}
