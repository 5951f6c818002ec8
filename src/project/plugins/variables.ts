/**
 * `${CLAUDE_PLUGIN_ROOT}`, `${CLAUDE_PLUGIN_DATA}` and `${CLAUDE_PROJECT_DIR}`,
 * expanded only where Claude Code expands them. Any other `${VAR}` is left
 * for the MCP configuration's own expansion.
 */

/** A `LoadedPlugin` is one: skill and agent bodies are expanded with `expandPluginText(text, plugin)`. */
export interface PluginVariables {
    root: string;
    dataDir: string;
    /** Without it `${CLAUDE_PROJECT_DIR}` is left as written. */
    projectDir?: string;
}

const VARIABLE = /\$\{(CLAUDE_PLUGIN_ROOT|CLAUDE_PLUGIN_DATA|CLAUDE_PROJECT_DIR)\}/g;

/** Expands the three plugin variables in one string. */
export function expandPluginText(text: string, vars: PluginVariables): string {
    return text.replace(VARIABLE, (written, name: string) => {
        if (name === "CLAUDE_PLUGIN_ROOT") return vars.root;
        if (name === "CLAUDE_PLUGIN_DATA") return vars.dataDir;
        return vars.projectDir ?? written;
    });
}

function isObject(value: unknown): value is Record<string, unknown> {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Every string inside `value` expanded (hook configurations: "anywhere"). */
export function expandEverywhere(value: unknown, vars: PluginVariables): unknown {
    if (typeof value === "string") return expandPluginText(value, vars);
    if (Array.isArray(value)) return value.map((item) => expandEverywhere(item, vars));
    if (isObject(value)) {
        return Object.fromEntries(
            Object.entries(value).map(([k, v]) => [k, expandEverywhere(v, vars)])
        );
    }
    return value;
}

/** Only the named fields of `config` expanded (each a string, a list or a map of strings). */
export function expandFields(
    config: Record<string, unknown>,
    fields: readonly string[],
    vars: PluginVariables
): Record<string, unknown> {
    const out: Record<string, unknown> = { ...config };
    for (const field of fields) {
        if (field in out) out[field] = expandEverywhere(out[field], vars);
    }
    return out;
}

/** MCP: stdio `command`/`args`/`env`; http, sse, ws `url`/`headers`/`headersHelper`. */
export const MCP_EXPANDED_FIELDS = [
    "command",
    "args",
    "env",
    "url",
    "headers",
    "headersHelper",
] as const;
/** LSP: `command`/`args`/`env`/`workspaceFolder`. */
export const LSP_EXPANDED_FIELDS = ["command", "args", "env", "workspaceFolder"] as const;
