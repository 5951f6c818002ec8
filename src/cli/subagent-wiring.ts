import { join } from "node:path";
import { createSubagents } from "../agent/subagent-tool";
import { type ModelCatalogue, resolveEndpoint, resolveModel } from "../providers/models";
import {
    type AgentDefinition,
    MAX_AGENT_DEFINITIONS,
    discoverAgentDefinitions,
} from "../project/agent-definitions";
import { dataDir } from "../storage/paths";
import { createWorktreeIsolation } from "./worktree-isolation";

/**
 * The `task` tool with the agents defined for this project: the project's
 * folders only when it is trusted (they are repository content), then the
 * user's. A definition's model must be known and its provider configured.
 * `defaultTools` is the user's `subagents.tools` (a project cannot set it).
 * Plugins' agents (`plugin:agent`) come last: a user's or project's
 * definition of the same name wins.
 */
export async function loadSubagents(
    repoRoot: string,
    trusted: boolean,
    catalogue: ModelCatalogue,
    warn: (message: string) => void,
    defaultTools?: string[],
    pluginAgents: readonly AgentDefinition[] = []
): Promise<ReturnType<typeof createSubagents>> {
    const found = await discoverAgentDefinitions(
        [
            { dir: join(repoRoot, ".north", "agents"), scope: "project" },
            { dir: join(repoRoot, ".claude", "agents"), scope: "project" },
            { dir: join(dataDir(), "agents"), scope: "user" },
        ],
        trusted,
        repoRoot
    );
    found.warnings.forEach((w) => warn(w));
    const agents = [...found.agents];
    for (const agent of pluginAgents) {
        const winner = agents.find((a) => a.name === agent.name);
        if (winner) {
            warn(`agent "${agent.name}" of plugin ${agent.plugin} is shadowed by ${winner.file}`);
        } else if (agents.length >= MAX_AGENT_DEFINITIONS) {
            warn(`${agent.file}: more than ${MAX_AGENT_DEFINITIONS} agents; skipped`);
        } else agents.push(agent);
    }
    return createSubagents({
        agents,
        // Only when some agent asks for it: git is not touched otherwise.
        ...(agents.some((a) => a.isolation === "worktree")
            ? { isolation: createWorktreeIsolation(repoRoot, dataDir()) }
            : {}),
        ...(defaultTools ? { defaultTools } : {}),
        resolveModel(name) {
            const resolved = resolveModel(catalogue, name);
            if (!resolved.ok) return resolved.error;
            const endpoint = resolveEndpoint(resolved.provider, process.env);
            return endpoint.ok ? resolved.model : endpoint.error;
        },
    });
}
