/**
 * The engine port of the TUI's slash commands, around the session handle:
 * model switch (saved to the global config), summary, conversations,
 * rewind and fork, Markdown export, project learning and costs.
 */
import { runLearningSession } from "../agent/learn";
import { DEFAULT_KEEP_LAST } from "../agent/session";
import type { CommandResult, RewindPoint, RewindRequest } from "../commands/index";
import { resolveReadyModel } from "./model-selection";
import {
    type CheckpointStore,
    type PlanResult,
    createCheckpointStore,
} from "../storage/checkpoints";
import { saveSelectedModel } from "../storage/config";
import type { ProfileStore } from "../storage/profile";
import type { CostFigures, TuiEngine } from "../ui/engine-port";
import { conversationMarkdown, exportMarkdownFile } from "./export-markdown";
import { age, oneLine } from "./list-command";
import {
    SHELL_NOT_TRACKED,
    fileNote,
    filesToRestore,
    reportLines,
    restorePlan,
} from "./rewind-restore";
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

/** A run still going would write after the switch: rewind and fork wait for it. */
const BUSY = "wait for the answer to finish (or cancel it with Ctrl+C) first";

/** The code half of a rewind: what it did, or why nothing was changed. */
async function rewindCode(
    checkpoints: CheckpointStore,
    conversationId: string,
    point: RewindPoint,
    overwriteChanged: boolean
): Promise<{ lines: string[]; complete: boolean } | { error: string }> {
    if (!point.code.ok) return { error: point.code.error };
    const outcome = await restorePlan(
        checkpoints.forConversation(conversationId),
        point.code.plan,
        overwriteChanged
    );
    if (!outcome.ok) return { error: outcome.error };
    return {
        lines: reportLines(outcome.report).map((line) => `  ${line}`),
        complete: outcome.report.skipped.length === 0,
    };
}

export function createTuiEngine(
    handle: SessionHandle,
    deps: {
        profiles: ProfileStore;
        env?: Env;
        now?: () => number;
        /** Where the conversation's checkpoints are (default: North's data directory). */
        checkpoints?: CheckpointStore;
    }
): TuiEngine {
    const env = deps.env ?? process.env;
    const now = deps.now ?? Date.now;
    let checkpointStore = deps.checkpoints;
    const checkpoints = () => (checkpointStore ??= createCheckpointStore());
    const busy = () => handle.session.state().running;
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

        async rewindPoints() {
            if (busy()) return { ok: false, error: `Cannot rewind now: ${BUSY}.` };
            if (!handle.log) {
                return {
                    ok: false,
                    error: "This conversation is not saved, so it cannot be rewound.",
                };
            }
            const prompts = handle.prompts();
            // Changes are recorded under the prompt that was current: the target's and every
            // later one's, prompts an earlier conversation rewind took away included.
            const plans = await checkpoints()
                .forConversation(handle.sessionId)
                .planRestores(
                    prompts.map((p) => p.fromHere),
                    handle.repoRoot
                );
            const points = prompts.map((prompt, i): RewindPoint => {
                const code = plans[i] as PlanResult;
                const files = code.ok ? filesToRestore(code.plan) : [];
                return {
                    number: i + 1,
                    entryId: prompt.entryId,
                    text: prompt.text,
                    code,
                    files: files.map(fileNote),
                    changedSince: files
                        .filter((f) => f.changedSince && !f.problem)
                        .map((f) => f.path),
                };
            });
            return { ok: true, points, notTracked: SHELL_NOT_TRACKED };
        },

        async rewind({ point, scope, overwriteChanged }: RewindRequest): Promise<CommandResult> {
            if (busy()) return { message: `Cannot rewind now: ${BUSY}.`, isError: true };
            const id = handle.sessionId;
            const lines: string[] = [];
            let complete = true;
            if (scope !== "conversation") {
                const code = await rewindCode(checkpoints(), id, point, overwriteChanged);
                if ("error" in code) {
                    // "Both" stops here: a conversation rewound without its code would not match it.
                    const rest =
                        scope === "both" ? "; the conversation was not rewound either" : "";
                    return {
                        message: `The code was not restored: ${code.error}${rest}.`,
                        isError: true,
                    };
                }
                lines.push(`Code back to before prompt ${point.number}:`, ...code.lines);
                complete = code.complete;
            }
            if (scope !== "code") {
                const rewound = handle.rewindConversation(point.entryId);
                if (rewound.ok) {
                    lines.push(
                        `Conversation ${id} rewound to before prompt ${point.number} (${oneLine(point.text, 60)}); the prompt is back in the composer.`,
                        ...rewound.warnings.map((w) => `warning: ${w}`)
                    );
                } else {
                    lines.push(`The conversation was not rewound: ${rewound.error}`);
                    complete = false;
                }
            }
            if (scope !== "conversation") lines.push(SHELL_NOT_TRACKED);
            return complete
                ? { message: lines.join("\n") }
                : { message: lines.join("\n"), isError: true };
        },

        async fork(promptNumber) {
            if (busy()) return { message: `Cannot fork now: ${BUSY}.`, isError: true };
            let before: { entryId: string; text: string } | undefined;
            if (promptNumber !== undefined) {
                const prompts = handle.prompts();
                before = prompts[promptNumber - 1];
                if (!before) {
                    return {
                        message:
                            prompts.length === 0
                                ? "This conversation has no prompt yet; /fork alone copies it as it is."
                                : `/fork ${promptNumber}: choose a prompt from 1 to ${prompts.length} (/rewind lists them)`,
                        isError: true,
                    };
                }
            }
            const parent = handle.sessionId;
            const forked = handle.forkConversation(before?.entryId);
            if (!forked.ok) return { message: forked.error, isError: true };
            const where = promptNumber ? ` before prompt ${promptNumber}` : "";
            return {
                message: [
                    `Forked conversation ${parent} into ${handle.sessionId}${where}; the original stays as it was: /resume ${parent}`,
                    ...forked.warnings.map((w) => `warning: ${w}`),
                ].join("\n"),
                promptText: before?.text,
            };
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
