/**
 * The one command host: what slash commands ask of the engine (model switch,
 * summary, conversations, rewind and fork, export, learning, costs), over the
 * session handle. The chat and print mode share it; what differs between them
 * is what they inject (saving the model choice) and their `CommandContext`
 * front (see context.ts).
 */
import type { StandingAutoApproval } from "../agent/approvals";
import { runLearningSession } from "../agent/learn";
import { type CostLine, type SessionCosts, allTimeLines } from "../agent/session-costs";
import { type AgentSession, DEFAULT_KEEP_LAST, type SessionOptions } from "../agent/session";
import type { ToolRunner } from "../agent/session";
import type { ModelInfo, ProviderInfo } from "../providers/catalogue";
import type { Provider } from "../providers/types";
import { type CheckpointStore, createCheckpointStore } from "../storage/checkpoints";
import type { ConversationStore } from "../storage/conversations";
import type { CostBreakdown } from "../storage/costs";
import type { Logger } from "../storage/logger";
import type { ProfileStore } from "../storage/profile";
import type { McpServerStatus } from "../tools/mcp/manager";
import { age, oneLine } from "../util/short-text";
import { conversationMarkdown, exportMarkdownFile } from "./export-markdown";
import { forkConversation, rewindConversation, rewindPointsOf } from "./host-rewind";
import { memoryFileToEdit, memoryListing, reloadMemory, saveMemoryNote } from "./host-memory";
import type {
    CommandResult,
    MemoryListing,
    PermissionListing,
    PickerOption,
    RewindPoints,
    RewindRequest,
} from "./types";

export type SwitchResult = { ok: true; warnings: string[] } | { ok: false; error: string };

/** The part of the session handle (cli/session-start.ts) the host works over. */
export interface HostEngine {
    /** The conversation now; the conversation switches below replace it. */
    readonly session: AgentSession;
    readonly sessionId: string;
    /** Unset when the conversation cannot be saved. */
    readonly log: unknown;
    repoRoot: string;
    store: Pick<ConversationStore, "list">;
    logger: Logger;
    tools: ToolRunner;
    providerFor(model: ModelInfo): Promise<Provider>;
    extensions: {
        mcp?: { status(): McpServerStatus[] };
        skills: Array<{ name: string; description: string }>;
        costs: { breakdown(): CostBreakdown };
    };
    costs: {
        readonly session: SessionCosts;
        allTime(): CostBreakdown;
        record: NonNullable<SessionOptions["usageSink"]>;
    };
    setProfile(profile: string): void;
    /** The permission rules in force, with their sources; absent: none. */
    permissions?(): PermissionListing;
    /** Standing auto-approval in force now; absent: none. */
    standingAutoApproval?(): StandingAutoApproval;
    /** Removes entry `number` of `permissions()` from its file and the session. */
    removePermission?(number: number): { ok: boolean; message: string };
    /** The `Read(...)` deny rule covering an absolute path (`@` attachments); absent: none. */
    readDenial?(absPath: string): string | undefined;
    newConversation(): { warnings: string[] };
    resumeConversation(id: string): SwitchResult;
    forkConversation(beforeEntryId?: string): SwitchResult;
    rewindConversation(entryId: string): SwitchResult;
    prompts(): Array<{ entryId: string; text: string; fromHere: string[] }>;
}

/** The two figures of the status line. */
export interface StatusCosts {
    /** This process; null once a model without a price answered. */
    sessionUsd: number | null;
    allTimeUsd: number | null;
}

/** Spend on one model, as the `/costs` dialog and print mode's `/costs` list it. */
export type CostRow = Omit<CostLine, "unpricedRequests"> & { unpricedRequests?: number };

/** The `/costs` figures. */
export interface CostFigures extends StatusCosts {
    session: CostRow[];
    allTime: CostRow[];
}

export interface ForkResult extends CommandResult {
    /** The text of the prompt the fork stops before, to edit and send again. */
    promptText?: string;
}

export interface CommandHost {
    /** The conversation now, to notice a switch; `newConversation`, `resume`, `rewind` and `fork` replace it. */
    session(): object;
    /** Resolves the alias, checks the key and switches; nothing changes on error. */
    switchModel(name: string): Promise<CommandResult>;
    summarize(keepLast: number | undefined, signal: AbortSignal): Promise<CommandResult>;
    /** Ends this conversation's log and starts an empty conversation (same tools and shell). */
    newConversation(): Promise<CommandResult>;
    /** Saved conversations of this project, newest first, the current one left out. */
    listConversations(): Promise<PickerOption[]>;
    resume(id: string): Promise<CommandResult>;
    exportMarkdown(path: string | undefined): Promise<CommandResult>;
    /** The conversation's prompts, oldest first, with what restoring the code to before each would do. */
    rewindPoints(): Promise<RewindPoints>;
    /**
     * Restores the code (the point's plan, re-checked file by file) and/or the
     * conversation (the session is replaced, as by `resume`).
     */
    rewind(request: RewindRequest): Promise<CommandResult>;
    /** Continues in a copy of the conversation (up to just before prompt `promptNumber`); `promptText` is that prompt's. */
    fork(promptNumber?: number): Promise<ForkResult>;
    mcpServers(): Array<{ name: string; state: string; error?: string; tools: string[] }>;
    skills(): Array<{ name: string; description: string }>;
    permissions(): PermissionListing;
    removePermission(number: number): CommandResult;
    memory(): MemoryListing;
    remember(note: string, scope: "user" | "project"): CommandResult;
    /** The scope's `MEMORY.md` to open in an editor, created when missing. */
    memoryFile(
        scope: "user" | "project"
    ): { ok: true; path: string } | { ok: false; error: string };
    /** Reads the memory files again; the next request sends them. */
    reloadMemory(): CommandResult;
    /** The `Read(...)` deny rule covering an absolute path, if any. */
    readDenial(absPath: string): string | undefined;
    /** Runs project learning with read-only tools, saves the profile and uses it from now on. */
    learn(
        signal: AbortSignal,
        onProgress: (percent: number, topic: string) => void
    ): Promise<CommandResult>;
    costs(): CostFigures;
    statusCosts(): StatusCosts;
    /** The status line's standing auto-approval. */
    statusStanding(): StandingAutoApproval;
}

export type ReadyModel =
    { ok: true; model: ModelInfo; provider: ProviderInfo } | { ok: false; error: string };

export interface CommandHostDeps {
    /** A model by name with its key present, or why not. */
    resolveModel(name: string): ReadyModel;
    /** Saves a switched model as the default (the chat); without it a switch is for this run only. */
    saveModel?(alias: string): { ok: true } | { ok: false; error: string };
    profiles: Pick<ProfileStore, "clearDeclined" | "saveProfile" | "profilePath">;
    now?: () => number;
    /** Where the conversation's checkpoints are (default: North's data directory). */
    checkpoints?: CheckpointStore;
}

const rows = (lines: CostLine[]): CostRow[] =>
    lines.map(({ provider, model, inputTokens, outputTokens, costUsd, unpricedRequests }) => ({
        provider,
        model,
        inputTokens,
        outputTokens,
        costUsd,
        ...(unpricedRequests ? { unpricedRequests } : {}),
    }));

export function createCommandHost(engine: HostEngine, deps: CommandHostDeps): CommandHost {
    const now = deps.now ?? Date.now;
    let checkpointStore = deps.checkpoints;
    const checkpoints = () => (checkpointStore ??= createCheckpointStore());
    return {
        session: () => engine.session,

        async switchModel(name) {
            const ready = deps.resolveModel(name);
            if (!ready.ok) return { message: ready.error, isError: true };
            const { model, provider } = ready;
            const current = engine.session.state().model;
            if (model.id === current.id) return { message: `Already using ${model.id}.` };
            engine.session.setModel(model);
            const where = provider.id === current.provider ? "" : ` via ${provider.display}`;
            const switched = `Switched to ${model.display} (${model.id})${where}`;
            if (!deps.saveModel) return { message: `${switched} for this run.` };
            const saved = deps.saveModel(model.alias);
            return {
                message: saved.ok
                    ? `${switched}; saved as the default.`
                    : `${switched}, but not saved: ${saved.error}`,
            };
        },

        async summarize(keepLast, signal) {
            const session = engine.session;
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
            const previous = engine.log ? engine.sessionId : null;
            const { warnings } = engine.newConversation();
            const lines = [
                engine.log ? `Conversation ${engine.sessionId}.` : "",
                previous ? `The previous one: /resume ${previous}` : "",
                ...warnings.map((w) => `warning: ${w}`),
            ];
            return { message: lines.filter(Boolean).join(" ") };
        },

        async listConversations() {
            const at = now();
            return engine.store
                .list({ repoRoot: engine.repoRoot })
                .filter((c) => c.id !== engine.sessionId)
                .map((c) => ({
                    id: c.id,
                    label: `${c.id}  ${oneLine(c.firstPrompt, 60) || "(no prompt yet)"}`,
                    hint: `${age(c.updatedAt, at)} · ${c.messageCount} messages · ${c.model}`,
                }));
        },

        async resume(id) {
            const result = engine.resumeConversation(id.trim());
            if (!result.ok) return { message: result.error, isError: true };
            const count = engine.session.messages.length;
            const lines = [
                `Switched to conversation ${engine.sessionId} (${count} messages, ${engine.session.state().model.id}).`,
                ...result.warnings.map((w) => `warning: ${w}`),
            ];
            return { message: lines.join("\n") };
        },

        rewindPoints: () => rewindPointsOf(engine, checkpoints()),
        rewind: (request) => rewindConversation(engine, checkpoints(), request),
        fork: (promptNumber) => forkConversation(engine, promptNumber),

        async exportMarkdown(path) {
            const session = engine.session;
            const markdown = conversationMarkdown({
                id: engine.sessionId,
                repoRoot: engine.repoRoot,
                model: session.state().model.id,
                messages: session.messages,
                summary: session.rollingSummary,
                exportedAt: new Date(now()),
            });
            return exportMarkdownFile(engine.repoRoot, engine.sessionId, path, markdown);
        },
        mcpServers: () =>
            (engine.extensions.mcp?.status() ?? []).map((s) => ({
                name: s.name,
                state: s.state,
                error: s.error,
                tools: s.toolNames,
            })),
        skills: () => engine.extensions.skills,
        permissions: () => engine.permissions?.() ?? { rules: [], notes: [] },
        removePermission(number) {
            const removed = engine.removePermission?.(number) ?? {
                ok: false,
                message: "No permission entries.",
            };
            return { message: removed.message, isError: !removed.ok };
        },
        memory: () => memoryListing(engine.repoRoot),
        remember: (note, scope) => saveMemoryNote(engine, note, scope),
        memoryFile: (scope) => memoryFileToEdit(engine.repoRoot, scope),
        reloadMemory: () => reloadMemory(engine),
        readDenial: (absPath) => engine.readDenial?.(absPath),

        async learn(signal, onProgress) {
            deps.profiles.clearDeclined();
            const result = await runLearningSession({
                repoRoot: engine.repoRoot,
                model: engine.session.state().model,
                providerFor: engine.providerFor,
                tools: engine.tools,
                logger: engine.logger,
                signal,
                onProgress,
                usageSink: engine.costs.record,
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
            engine.setProfile(result.markdown);
            const total = result.learned.length + result.skipped.length;
            return {
                message: [
                    `Learned ${result.learned.length} of ${total} topics; the profile (${deps.profiles.profilePath}) is sent with every request from now on.`,
                    ...skipped,
                ].join("\n"),
            };
        },

        costs() {
            const allTime = engine.extensions.costs.breakdown();
            return {
                sessionUsd: engine.costs.session.totalUsd(),
                allTimeUsd: allTime.allTimeCostUsd,
                session: rows(engine.costs.session.lines()),
                allTime: rows(allTimeLines(allTime)),
            };
        },

        statusCosts: () => ({
            sessionUsd: engine.costs.session.totalUsd(),
            allTimeUsd: engine.costs.allTime().allTimeCostUsd,
        }),
        statusStanding: () => engine.standingAutoApproval?.() ?? { commands: false, edits: false },
    };
}
