/**
 * A loaded plugin's parts in the shapes the session already runs: Markdown
 * commands, skills, agent definitions, hook groups, MCP server specs and
 * language server definitions, each carrying the plugin's id. Reading them
 * runs nothing; the variables (`${CLAUDE_PLUGIN_ROOT}` …) are expanded in
 * command, skill and agent text here (the reader already expanded configs).
 */
import { basename, dirname } from "node:path";
import { type CustomCommand } from "../../project/custom-commands";
import { readPluginAgentDefinitions } from "../../project/agent-definitions";
import { expandPluginText } from "../../project/plugins/variables";
import type { LoadedPlugin } from "../../project/plugins/types";
import { type Skill, readSkill } from "../../project/skills";
import { firstLine, frontmatterString, parseFrontmatter } from "../../project/skills/frontmatter";
import { parsePluginMcpServers, type McpConfigResult } from "../../tools/mcp/config";
import { readRegularFileSync, unreadableText } from "../../util/read-regular-file";
import { type HookSettings } from "../hooks/types";
import { parseHookSettings } from "../hooks/settings";

const MAX_COMMAND_BYTES = 64 * 1024;

/** Expands the three plugin variables in text the plugin wrote. */
export function pluginExpander(plugin: LoadedPlugin, projectDir: string): (text: string) => string {
    const vars = { root: plugin.root, dataDir: plugin.dataDir, projectDir };
    return (text) => expandPluginText(text, vars);
}

/** Its `commands/*.md` as Markdown commands named `plugin:command`. */
export function pluginCommands(
    plugin: LoadedPlugin,
    projectDir: string
): { commands: CustomCommand[]; warnings: string[] } {
    const expand = pluginExpander(plugin, projectDir);
    const commands: CustomCommand[] = [];
    const warnings: string[] = [];
    for (const part of plugin.commands) {
        let text: string;
        try {
            const read = readRegularFileSync(part.file, {
                cap: MAX_COMMAND_BYTES,
                insideRoot: plugin.root,
                label: part.file,
                rootName: `plugin ${plugin.id}`,
            });
            if (read.truncated) {
                warnings.push(`${part.file}: larger than 64 KB; skipped`);
                continue;
            }
            text = read.bytes.toString("utf8");
        } catch (error) {
            warnings.push(unreadableText(error, (m) => `${part.file}: cannot read (${m}); skipped`));
            continue;
        }
        const parsed = parseFrontmatter(text);
        if (parsed.problem) warnings.push(`${part.file}: ${parsed.problem}; using what could be read`);
        const argumentHint =
            parsed.raw["argument-hint"] ?? frontmatterString(parsed.data, "argument-hint");
        commands.push({
            name: part.name,
            description:
                frontmatterString(parsed.data, "description") ?? firstLine(parsed.body, 80) ?? "",
            ...(argumentHint ? { argumentHint } : {}),
            body: expand(parsed.body),
            file: part.file,
            scope: "user",
            plugin: plugin.id,
        });
    }
    return { commands, warnings };
}

/** Its skills, named `plugin:skill` (the skill's own name, else its folder's). */
export async function pluginSkills(
    plugin: LoadedPlugin,
    projectDir: string
): Promise<{ skills: Skill[]; warnings: string[] }> {
    const expand = pluginExpander(plugin, projectDir);
    const skills: Skill[] = [];
    const warnings: string[] = [];
    for (const dir of plugin.skillDirs) {
        const skill = await readSkill(dirname(dir), basename(dir), warnings, plugin.root);
        if (!skill) continue;
        skills.push({
            ...skill,
            name: `${plugin.name}:${skill.name}`,
            plugin: plugin.id,
            expandBody: expand,
        });
    }
    return { skills, warnings };
}

export async function pluginAgents(plugin: LoadedPlugin, projectDir: string) {
    return readPluginAgentDefinitions(plugin, pluginExpander(plugin, projectDir));
}

/**
 * Its hooks as hook groups: each group names the plugin, gets the plugin's
 * variables in its environment, and runs only while `stillApproved` says so.
 */
export function pluginHooks(
    plugin: LoadedPlugin,
    projectDir: string,
    stillApproved: () => boolean
): { settings: HookSettings; warnings: string[] } {
    const settings: HookSettings = {};
    const warnings: string[] = [];
    const env = {
        CLAUDE_PLUGIN_ROOT: plugin.root,
        CLAUDE_PLUGIN_DATA: plugin.dataDir,
        CLAUDE_PROJECT_DIR: projectDir,
    };
    for (const config of plugin.hooks) {
        const parsed = parseHookSettings(
            { hooks: config.hooks },
            `plugin ${plugin.id} (${config.source})`
        );
        warnings.push(...parsed.warnings);
        for (const [event, groups] of Object.entries(parsed.settings)) {
            const tagged = (groups ?? []).map((group) => ({
                ...group,
                plugin: plugin.id,
                env,
                stillTrusted: stillApproved,
            }));
            const key = event as keyof HookSettings;
            settings[key] = [...(settings[key] ?? []), ...tagged];
        }
    }
    return { settings, warnings };
}

export function pluginMcpServers(plugin: LoadedPlugin, projectDir: string, env?: NodeJS.ProcessEnv): McpConfigResult {
    return parsePluginMcpServers(plugin, projectDir, env);
}

/** Adds `extra`'s groups to `into`, in place (the session holds `into`). */
export function addHookGroups(into: HookSettings, extra: HookSettings): void {
    for (const [event, groups] of Object.entries(extra)) {
        const key = event as keyof HookSettings;
        into[key] = [...(into[key] ?? []), ...(groups ?? [])];
    }
}

/** Removes a plugin's groups from `from`, in place. */
export function removeHookGroups(from: HookSettings, plugin: string): void {
    for (const event of Object.keys(from) as Array<keyof HookSettings>) {
        const kept = (from[event] ?? []).filter((group) => group.plugin !== plugin);
        if (kept.length > 0) from[event] = kept;
        else delete from[event];
    }
}
