/**
 * Subagent definitions, as Claude Code's: one Markdown file per agent in
 * `.north/agents/`, `.claude/agents/` or `~/.north/agents/`, frontmatter
 * `name`, `description`, `tools` (comma list or YAML list), `model` and
 * `isolation` (`worktree`: the task runs in a git worktree of its own); the
 * body is added to the child's system prompt.
 */
import { readdir } from "node:fs/promises";
import { basename, join } from "node:path";
import { readRegularTextSync, unreadableText } from "../util/read-regular-file";
import { firstLine, frontmatterString, parseFrontmatter } from "./skills/frontmatter";

const NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const MAX_DESCRIPTION_CHARS = 200;
/** A definition's instructions beyond this are cut (they go into every child request). */
export const MAX_AGENT_PROMPT_CHARS = 16 * 1024;
/** More definitions than this are not loaded: each is listed in the task tool's description. */
export const MAX_AGENT_DEFINITIONS = 12;

export interface AgentDefinition {
    name: string;
    description: string;
    /** Tool names as written (North's or Claude Code's); undefined: the default read-only set. */
    tools?: string[];
    /** A model id or alias; undefined or "inherit": the parent's. */
    model?: string;
    /** `worktree`: each task runs in a new git worktree, its edits kept apart from the project's. */
    isolation?: "worktree";
    /** The body: added to the child's system prompt. */
    prompt: string;
    file: string;
    /** The plugin (`name@marketplace`) it came from: its name is then `plugin:agent`. */
    plugin?: string;
}

export interface AgentDefinitionRoot {
    dir: string;
    /** Project folders are repository content: read only when the project is trusted. */
    scope: "project" | "user";
}

export interface AgentDiscovery {
    agents: AgentDefinition[];
    warnings: string[];
}

function toolList(value: string | string[] | undefined): string[] | undefined {
    if (value === undefined) return undefined;
    const items = Array.isArray(value) ? value : value.split(",");
    const names = items.map((item) => item.trim()).filter((item) => item !== "");
    return names.length > 0 ? names : undefined;
}

async function readDefinition(
    file: string,
    warnings: string[],
    insideRoot: string | undefined
): Promise<AgentDefinition | null> {
    let text: string;
    try {
        text = readRegularTextSync(file, { insideRoot });
    } catch (error) {
        warnings.push(
            unreadableText(error, (message) => `${file}: cannot read (${message}); agent skipped`)
        );
        return null;
    }
    const parsed = parseFrontmatter(text);
    if (parsed.problem) warnings.push(`${file}: ${parsed.problem}; using what could be read`);
    const fallback = basename(file, ".md").toLowerCase();
    let name = frontmatterString(parsed.data, "name") ?? fallback;
    if (!NAME_PATTERN.test(name)) {
        warnings.push(`${file}: invalid agent name ${JSON.stringify(name)}; using the file name`);
        name = fallback;
        if (!NAME_PATTERN.test(name)) return null;
    }
    const description = (
        frontmatterString(parsed.data, "description") ??
        firstLine(parsed.body, MAX_DESCRIPTION_CHARS) ??
        ""
    ).slice(0, MAX_DESCRIPTION_CHARS);
    const model = frontmatterString(parsed.data, "model");
    const isolation = frontmatterString(parsed.data, "isolation");
    if (isolation !== undefined && isolation !== "worktree" && isolation !== "none") {
        warnings.push(`${file}: isolation ${JSON.stringify(isolation)} is not "worktree"; ignored`);
    }
    let prompt = parsed.body.trim();
    if (prompt.length > MAX_AGENT_PROMPT_CHARS) {
        warnings.push(`${file}: instructions cut to ${MAX_AGENT_PROMPT_CHARS} characters`);
        prompt = prompt.slice(0, MAX_AGENT_PROMPT_CHARS);
    }
    return {
        name,
        description,
        tools: toolList(parsed.data.tools),
        model: model && model !== "inherit" ? model : undefined,
        ...(isolation === "worktree" ? { isolation } : {}),
        prompt,
        file,
    };
}

/**
 * Reads the definitions under `roots` in precedence order (the first root
 * with a name wins; the rest are reported). Project roots are skipped unless
 * `trusted`; their files must resolve inside `repoRoot` when given.
 * Missing folders are fine; never throws.
 */
export async function discoverAgentDefinitions(
    roots: AgentDefinitionRoot[],
    trusted: boolean,
    repoRoot?: string
): Promise<AgentDiscovery> {
    const byName = new Map<string, AgentDefinition>();
    const warnings: string[] = [];
    for (const root of roots) {
        if (root.scope === "project" && !trusted) continue;
        let files: string[];
        try {
            files = (await readdir(root.dir)).filter((f) => f.endsWith(".md")).sort();
        } catch {
            continue;
        }
        for (const file of files) {
            const definition = await readDefinition(
                join(root.dir, file),
                warnings,
                root.scope === "project" ? repoRoot : undefined
            );
            if (!definition) continue;
            const winner = byName.get(definition.name);
            if (winner) {
                warnings.push(
                    `agent "${definition.name}" in ${definition.file} is shadowed by ${winner.file}`
                );
                continue;
            }
            if (byName.size >= MAX_AGENT_DEFINITIONS) {
                warnings.push(
                    `${definition.file}: more than ${MAX_AGENT_DEFINITIONS} agents; skipped`
                );
                continue;
            }
            byName.set(definition.name, definition);
        }
    }
    return { agents: [...byName.values()], warnings };
}

/** Frontmatter a plugin's agent may not use: it would run code or widen permissions. */
const PLUGIN_AGENT_IGNORED = ["hooks", "mcpServers", "permissionMode"] as const;

/**
 * A plugin's agents, named `plugin:agent` (as listed by the plugin reader),
 * files inside the plugin folder. `hooks`, `mcpServers` and `permissionMode`
 * in their frontmatter are ignored with a warning.
 */
export async function readPluginAgentDefinitions(
    plugin: { id: string; root: string; agents: ReadonlyArray<{ name: string; file: string }> },
    expand: (text: string) => string
): Promise<AgentDiscovery> {
    const warnings: string[] = [];
    const agents: AgentDefinition[] = [];
    for (const part of plugin.agents) {
        const definition = await readDefinition(part.file, warnings, plugin.root);
        if (!definition) continue;
        const data = parseFrontmatter(readRegularTextSync(part.file, { insideRoot: plugin.root })).data;
        for (const key of PLUGIN_AGENT_IGNORED) {
            if (data[key] !== undefined) {
                warnings.push(
                    `${part.file}: "${key}" is ignored in a plugin's agent (plugin ${plugin.id})`
                );
            }
        }
        agents.push({ ...definition, name: part.name, prompt: expand(definition.prompt), plugin: plugin.id });
    }
    return { agents, warnings };
}
