/**
 * The engine port of the TUI's slash commands, around the session handle:
 * model switch (saved to the global config), summary, conversations,
 * Markdown export, project learning and costs.
 */
import { runLearningSession } from "../agent/learn";
import { DEFAULT_KEEP_LAST } from "../agent/session";
import { resolveReadyModel } from "./model-selection";
import { saveSelectedModel } from "../storage/config";
import type { ProfileStore } from "../storage/profile";
import type { CostFigures, TuiEngine } from "../ui/engine-port";
import { conversationMarkdown, exportMarkdownFile } from "./export-markdown";
import { age, oneLine } from "./list-command";
import { type CostLine, allTimeLines } from "./session-costs";
import type { SessionHandle } from "./session-start";

type Env = Record<string, string | undefined>;

const rows = (lines: CostLine[]): CostFigures["session"] =>
    lines.map(({ provider, model, inputTokens, outputTokens, costUsd }) => ({
        provider,
        model,
        inputTokens,
        outputTokens,
        costUsd,
    }));

export function createTuiEngine(
    handle: SessionHandle,
    deps: { profiles: ProfileStore; env?: Env; now?: () => number }
): TuiEngine {
    const env = deps.env ?? process.env;
    const now = deps.now ?? Date.now;
    return {
        session: () => handle.session,
        conversationId: () => handle.sessionId,
        contextFiles: handle.extensions.contextFiles.map((file) => file.label),
        customCommands: handle.extensions.customCommands,

        async switchModel(name) {
            const ready = resolveReadyModel(handle.catalogue, name, env);
            if (!ready.ok) return { message: ready.error, isError: true };
            const { model, provider } = ready;
            const current = handle.session.state().model;
            if (model.id === current.id) return { message: `Already using ${model.id}.` };
            handle.session.setModel(model);
            const saved = saveSelectedModel(model.alias, env);
            const where = provider.id === current.provider ? "" : ` via ${provider.display}`;
            return {
                message: saved.ok
                    ? `Switched to ${model.display} (${model.id})${where}; saved as the default.`
                    : `Switched to ${model.display} (${model.id})${where}, but not saved: ${saved.error}`,
            };
        },

        async summarize(keepLast, signal) {
            const session = handle.session;
            let outcome = "";
            const off = session.subscribe((event) => {
                if (event.type === "summary") outcome = event.message;
            });
            try {
                const ok = await session.summarise({ keepLast, trigger: "manual", signal });
                const kept = keepLast ?? DEFAULT_KEEP_LAST;
                if (ok) return { message: `${outcome || "summarised"}; the last ${kept} kept.` };
                return { message: outcome || "nothing was summarised", isError: true };
            } finally {
                off();
            }
        },

        async newConversation() {
            const previous = handle.log ? handle.sessionId : null;
            const { warnings } = handle.newConversation();
            const lines = [
                handle.log ? `Conversation ${handle.sessionId}.` : "",
                previous ? `The previous one: /resume ${previous}` : "",
                ...warnings.map((w) => `warning: ${w}`),
            ];
            return { message: lines.filter(Boolean).join(" ") };
        },

        async listConversations() {
            const at = now();
            return handle.store
                .list({ repoRoot: handle.repoRoot })
                .filter((c) => c.id !== handle.sessionId)
                .map((c) => ({
                    id: c.id,
                    label: `${c.id}  ${oneLine(c.firstPrompt, 60) || "(no prompt yet)"}`,
                    hint: `${age(c.updatedAt, at)} · ${c.messageCount} messages · ${c.model}`,
                }));
        },

        async resume(id) {
            const result = handle.resumeConversation(id.trim());
            if (!result.ok) return { message: result.error, isError: true };
            const count = handle.session.messages.length;
            const lines = [
                `Switched to conversation ${handle.sessionId} (${count} messages, ${handle.session.state().model.id}).`,
                ...result.warnings.map((w) => `warning: ${w}`),
            ];
            return { message: lines.join("\n") };
        },

        history: () => handle.history(),
        recordView: (action) => handle.recordView(action as unknown as Record<string, unknown>),

        async exportMarkdown(path) {
            const session = handle.session;
            const markdown = conversationMarkdown({
                id: handle.sessionId,
                repoRoot: handle.repoRoot,
                model: session.state().model.id,
                messages: session.messages,
                summary: session.rollingSummary,
                exportedAt: new Date(now()),
            });
            return exportMarkdownFile(handle.repoRoot, handle.sessionId, path, markdown);
        },
        mcpServers: () =>
            (handle.extensions.mcp?.status() ?? []).map((s) => ({
                name: s.name,
                state: s.state,
                error: s.error,
                tools: s.toolNames,
            })),
        skills: () => handle.extensions.skills,

        async learn(signal, onProgress) {
            deps.profiles.clearDeclined();
            const result = await runLearningSession({
                repoRoot: handle.repoRoot,
                model: handle.session.state().model,
                providerFor: handle.providerFor,
                tools: handle.tools,
                logger: handle.logger,
                signal,
                onProgress,
                usageSink: handle.costs.record,
            });
            if (result.cancelled) {
                return {
                    message: "Learning cancelled; the profile was not changed.",
                    isError: true,
                };
            }
            const skipped = result.skipped.map((s) => `skipped ${s.topic}: ${s.reason}`);
            if (result.learned.length === 0) {
                return {
                    message: ["Nothing was learned; the profile was not changed.", ...skipped].join(
                        "\n"
                    ),
                    isError: true,
                };
            }
            deps.profiles.saveProfile(result.markdown);
            handle.setProfile(result.markdown);
            const total = result.learned.length + result.skipped.length;
            return {
                message: [
                    `Learned ${result.learned.length} of ${total} topics; the profile (${deps.profiles.profilePath}) is sent with every request from now on.`,
                    ...skipped,
                ].join("\n"),
            };
        },

        costs() {
            const allTime = handle.extensions.costs.breakdown();
            return {
                sessionUsd: handle.costs.session.totalUsd(),
                allTimeUsd: allTime.allTimeCostUsd,
                session: rows(handle.costs.session.lines()),
                allTime: rows(allTimeLines(allTime)),
            };
        },

        statusCosts: () => ({
            sessionUsd: handle.costs.session.totalUsd(),
            allTimeUsd: handle.costs.allTime().allTimeCostUsd,
        }),
    };
}
