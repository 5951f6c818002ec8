import type { Mode } from "../agent/events";
import type { AgentSession } from "../agent/session";
import {
    type CommandContext,
    type CommandRegistry,
    createCommandRegistryWithAllCommands,
} from "../commands/index";
import { formatCost } from "../providers/catalogue";
import type { ModelCatalogue } from "../providers/models";
import type { ConversationStore } from "../storage/conversations";
import type { CostStore } from "../storage/costs";
import { conversationMarkdown, exportMarkdownFile } from "./export-markdown";
import { resolveReadyModel } from "./model-selection";
import type { ProjectExtensions } from "./project-extensions";

export interface PrintCommandDeps {
    session: AgentSession;
    sessionId: string;
    repoRoot: string;
    catalogue: ModelCatalogue;
    store: ConversationStore;
    costs: CostStore;
    extensions: Pick<ProjectExtensions, "mcp" | "skills">;
    /** Set by /mode for this run's request. */
    setMode(mode: Mode): void;
}

const CHAT_ONLY = (what: string) => ({
    message: `${what} works in the chat (north); print mode runs one prompt`,
    isError: true,
});

/**
 * Slash commands in print mode (`north -p "/model gpt-5.1 explain x"`): what
 * makes sense without a screen works the same; pickers and dialogs say so.
 * A model chosen here is for this run only: scripts should not change the saved choice.
 */
export function createPrintCommandContext(deps: PrintCommandDeps): {
    registry: CommandRegistry;
    ctx: CommandContext;
} {
    const registry = createCommandRegistryWithAllCommands();
    const ctx: CommandContext = {
        interactive: false,
        listCommands: () => registry.list(),
        exit: () => {},
        newConversation: async () => {},
        currentModel: () => deps.session.state().model,
        models: () => deps.catalogue.models,
        async switchModel(name) {
            const resolved = resolveReadyModel(deps.catalogue, name, process.env);
            if (!resolved.ok) return { message: resolved.error, isError: true };
            deps.session.setModel(resolved.model);
            return { message: `Model: ${resolved.model.display} (${resolved.model.id})` };
        },
        pick: async () => null,
        setMode: (mode) => deps.setMode(mode),
        async summarize(keepLast) {
            const ok = await deps.session.summarise({ keepLast, trigger: "manual" });
            return ok
                ? { message: "Summarised the earlier conversation." }
                : { message: "Nothing was summarised.", isError: true };
        },
        async showCosts() {
            const breakdown = deps.costs.breakdown();
            const lines = Object.entries(breakdown.byModel).map(
                ([model, c]) =>
                    `${c.provider}/${model}: ${c.inputTokens} in, ${c.outputTokens} out, ${formatCost(c.costUsd)}${c.unpricedRequests ? ` (+${c.unpricedRequests} unpriced)` : ""}`
            );
            return {
                message: [`All time: ${formatCost(breakdown.allTimeCostUsd)}`, ...lines].join("\n"),
            };
        },
        learn: async () => CHAT_ONLY("/learn"),
        mcpServers: () =>
            (deps.extensions.mcp?.status() ?? []).map((s) => ({
                name: s.name,
                state: s.state,
                error: s.error,
                tools: s.toolNames,
            })),
        skills: () => deps.extensions.skills,
        listConversations: async () =>
            deps.store.list({ repoRoot: deps.repoRoot }).map((c) => ({
                id: c.id,
                label: c.firstPrompt ?? "(no prompt)",
                hint: `${c.model}, ${c.updatedAt}`,
            })),
        resume: async (id) => ({
            message: `use north -p --resume ${id} "PROMPT" to continue a conversation`,
            isError: true,
        }),
        // /rewind and /fork say what print mode offers before they get here.
        rewindPoints: async () => ({ ok: false, error: CHAT_ONLY("/rewind").message }),
        rewind: async () => CHAT_ONLY("/rewind"),
        fork: async () => CHAT_ONLY("/fork"),
        async exportMarkdown(path) {
            const markdown = conversationMarkdown({
                id: deps.sessionId,
                repoRoot: deps.repoRoot,
                model: deps.session.state().model.id,
                messages: deps.session.messages,
                summary: deps.session.rollingSummary,
                exportedAt: new Date(),
            });
            return exportMarkdownFile(deps.repoRoot, deps.sessionId, path, markdown);
        },
    };
    return { registry, ctx };
}
