/**
 * The host's answers to every op but prompt, cancel, approval and set_mode
 * (agent/engine-host.ts runs those): model switch, summary, conversations,
 * rewind and fork, export, memory, permissions, learning and the reads.
 */
import type { ModelInfo, ProviderInfo } from "../../providers/catalogue";
import type { Provider } from "../../providers/types";
import { hasEntries } from "../../storage/conversations";
import { dataDir, exportsDir } from "../../storage/paths";
import type { ProfileStore } from "../../storage/profile";
import type { LanguageService } from "../../tools/lsp/types";
import type { McpServerStatus } from "../../tools/mcp/manager";
import { age, oneLine } from "../../util/short-text";
import { DEFAULT_KEEP_LAST, type ToolRunner } from "../session";
import type { Mode } from "../events";
import type {
    EngineOp,
    HostEvent,
    OpOf,
    OpReplies,
    OpType,
    Outcome,
    PermissionListing,
} from "../protocol";
import type { ConversationKeeper } from "./conversation-keeper";
import { conversationMarkdown, exportMarkdownFile } from "./export-markdown";
import { startLearning, stopLearning } from "./learning";
import { memoryFileToEdit, memoryListing, reloadMemory, saveMemoryNote } from "./memory";
import type { OutputStyleSelection } from "./output-styles";
import { runReviewOp } from "./review";
import type { ReviewSettings } from "../review/run-review";
import { forkConversation, rewindConversation, rewindPointsOf } from "./rewind";
import type { Spend } from "./spend";

export type ReadyModel =
    { ok: true; model: ModelInfo; provider: ProviderInfo } | { ok: false; error: string };

/** What the ops need from outside the conversation; the builder in cli/ gathers it. */
export interface HostDeps {
    /** A model by name with its key present, or why not. */
    resolveModel(name: string): ReadyModel;
    /** Saves a switched model as the default (the chat); without it a switch is for this run only. */
    saveModel?(alias: string): { ok: true } | { ok: false; error: string };
    profiles: Pick<ProfileStore, "clearDeclined" | "saveProfile" | "profilePath">;
    providerFor(model: ModelInfo): Promise<Provider>;
    /** The small fast model for side jobs (project learning); unset: the session's model. */
    sideModel?: ModelInfo;
    tools: ToolRunner;
    mcp?: { status(): McpServerStatus[]; subscribe?(listener: () => void): () => void };
    /** The session's language servers (`/lsp`); absent where none were set up. */
    languages?: LanguageService;
    skills: Array<{ name: string; description: string }>;
    permissions: {
        /** The permission rules and standing approvals in force, with their sources. */
        list(): Omit<PermissionListing, "mode">;
        /** Removes entry `number` of `list()` from its file and the session. */
        remove(number: number): { ok: boolean; message: string };
        /** The `Read(...)` deny rule covering an absolute path, if any. */
        readDenial(absPath: string): string | undefined;
    };
    now?: () => number;
    /** The `review` setting (minConfidence, parallel); defaults when absent. */
    review?: ReviewSettings;
    /** `--max-budget-usd`: a review's reviewers together spend no more. */
    maxBudgetUsd?: number;
    /** The output styles; absent: only North's default (`/output-style` says so). */
    outputStyles?: OutputStyleSelection;
}

/** The host's parts an op works on. */
export interface HostParts {
    deps: HostDeps;
    conversation: ConversationKeeper;
    spend: Spend;
    mode: Mode;
    emit(event: HostEvent): void;
    learning: { current(): AbortController | null; set(controller: AbortController | null): void };
    /** Runs `work` as the host's running job: `cancel` aborts its signal. */
    cancellable<R>(work: (signal: AbortSignal) => Promise<R>): Promise<R>;
}

/** The ops the host runs itself (engine-host.ts); every other one is answered here. */
export type HostRunOp =
    | "prompt"
    | "user_shell"
    | "cancel"
    | "approval"
    | "set_mode"
    | "processes"
    | "process_output"
    | "stop_process"
    | "background_command"
    | "secret_answer"
    // agent/host/plugins.ts
    | "plugins"
    | "plugin_prepare"
    | "plugin_commit"
    | "plugin_discard"
    | "plugin_set_enabled"
    | "plugin_remove"
    | "marketplace_add"
    | "marketplace_update"
    | "marketplace_remove";

type OtherOp = Exclude<EngineOp, OpOf<HostRunOp>>;

/** Tells the front-ends another conversation is current. */
function switched(host: HostParts, draft?: string): void {
    const { conversation } = host;
    host.emit({
        type: "conversation_switched",
        conversationId: conversation.sessionId,
        history: conversation.history,
        ...(draft === undefined ? {} : { draft }),
    });
}

/** Runs `change` and says so when it switched the conversation. */
async function switching<R>(
    host: HostParts,
    change: () => Promise<R> | R,
    draft?: (reply: R) => string | undefined
): Promise<R> {
    const before = host.conversation.session;
    const reply = await change();
    if (host.conversation.session !== before) switched(host, draft?.(reply));
    return reply;
}

function switchModel(host: HostParts, name: string): Outcome {
    const ready = host.deps.resolveModel(name);
    if (!ready.ok) return { message: ready.error, isError: true };
    const { model, provider } = ready;
    const session = host.conversation.session;
    const current = session.state().model;
    if (model.id === current.id) return { message: `Already using ${model.id}.` };
    session.setModel(model);
    host.emit({ type: "state_changed" });
    const where = provider.id === current.provider ? "" : ` via ${provider.display}`;
    const done = `Switched to ${model.display} (${model.id})${where}`;
    if (!host.deps.saveModel) return { message: `${done} for this run.` };
    const saved = host.deps.saveModel(model.alias);
    return {
        message: saved.ok
            ? `${done}; saved as the default.`
            : `${done}, but not saved: ${saved.error}`,
    };
}

async function summarise(host: HostParts, op: OpOf<"summarise">): Promise<Outcome> {
    const session = host.conversation.session;
    let outcome = "";
    const off = session.subscribe((event) => {
        if (event.type === "summary") outcome = event.message;
    });
    try {
        const ok = await host.cancellable((signal) =>
            session.summarise({ keepLast: op.keepLast, trigger: "manual", signal })
        );
        const kept = op.keepLast ?? DEFAULT_KEEP_LAST;
        if (ok) return { message: `${outcome || "summarised"}; the last ${kept} kept.` };
        return { message: outcome || "nothing was summarised", isError: true };
    } finally {
        off();
    }
}

function newConversation(host: HostParts): Outcome {
    const { conversation } = host;
    const previous = conversation.log ? conversation.sessionId : null;
    const { warnings } = conversation.newConversation();
    const lines = [
        conversation.log ? `Conversation ${conversation.sessionId}.` : "",
        previous ? `The previous one: /resume ${previous}` : "",
        ...warnings.map((w) => `warning: ${w}`),
    ];
    return { message: lines.filter(Boolean).join(" ") };
}

function resume(host: HostParts, id: string): Outcome {
    const { conversation } = host;
    const result = conversation.resumeConversation(id.trim());
    if (!result.ok) return { message: result.error, isError: true };
    const count = conversation.session.messages.length;
    const model = conversation.session.state().model.id;
    return {
        message: [
            `Switched to conversation ${conversation.sessionId} (${count} messages, ${model}).`,
            ...result.warnings.map((w) => `warning: ${w}`),
        ].join("\n"),
    };
}

function listConversations(host: HostParts): OpReplies["list_conversations"] {
    const at = (host.deps.now ?? Date.now)();
    const { conversation } = host;
    return conversation.store
        .list({ repoRoot: conversation.repoRoot })
        .filter((c) => c.id !== conversation.sessionId && hasEntries(c))
        .map((c) => ({
            id: c.id,
            label: `${c.id}  ${oneLine(c.firstPrompt, 60) || "(no prompt yet)"}`,
            hint: `${age(c.updatedAt, at)} · ${c.messageCount} messages · ${c.model}`,
        }));
}

function exportConversation(host: HostParts, path: string | undefined): Promise<Outcome> {
    const { conversation } = host;
    const session = conversation.session;
    const markdown = conversationMarkdown({
        id: conversation.sessionId,
        repoRoot: conversation.repoRoot,
        model: session.state().model.id,
        messages: session.messages,
        summary: session.rollingSummary,
        exportedAt: new Date((host.deps.now ?? Date.now)()),
    });
    return exportMarkdownFile(
        conversation.repoRoot,
        conversation.sessionId,
        path,
        markdown,
        exportsDir(dataDir(), conversation.repoRoot)
    );
}

function mcpServers(host: HostParts): OpReplies["mcp_servers"] {
    return (host.deps.mcp?.status() ?? []).map((s) => ({
        name: s.name,
        ...(s.plugin !== undefined ? { plugin: s.plugin } : {}),
        state: s.state,
        error: s.error,
        tools: s.toolNames,
    }));
}

function languageServers(host: HostParts): OpReplies["lsp_servers"] {
    const { languages } = host.deps;
    if (!languages)
        return { servers: [], note: "No language servers were set up for this session." };
    const servers = languages.status();
    if (languages.hasServers()) return { servers };
    const reason = servers.find((s) => s.state === "disabled" && s.lastError)?.lastError;
    return {
        servers,
        note: reason
            ? `No language server starts here (${reason}): servers start only in a trusted project, since they run its code (tsconfig plugins, build scripts).`
            : "No language server binary was found on PATH or in the project's node_modules/.bin.",
    };
}

function outputStyles(host: HostParts): OpReplies["output_styles"] {
    const selection = host.deps.outputStyles;
    const session = host.conversation.session;
    if (selection) return selection.listing(session);
    return {
        styles: [
            {
                name: "default",
                description: "North's own prompt",
                source: "built-in",
                active: true,
            },
        ],
        current: "default",
        started: host.conversation.session.outputStyleFixed,
        warnings: [],
    };
}

function setOutputStyle(host: HostParts, op: OpOf<"set_output_style">): Outcome {
    const selection = host.deps.outputStyles;
    if (!selection) return { message: "output styles are not available here", isError: true };
    return selection.set(host.conversation.session, op.name, op.now);
}

function removePermission(host: HostParts, number: number): Outcome {
    const removed = host.deps.permissions.remove(number);
    return { message: removed.message, isError: !removed.ok };
}

export function handleOp(
    op: OtherOp,
    host: HostParts
): Promise<OpReplies[OpType]> | OpReplies[OpType] {
    const { conversation } = host;
    switch (op.type) {
        case "new_conversation":
            return switching(host, () => newConversation(host));
        case "resume":
            return switching(host, () => resume(host, op.id));
        case "fork":
            return switching(
                host,
                () => forkConversation(conversation, op.promptNumber),
                (reply) => reply.promptText
            );
        case "rewind":
            // The conversation went back: the prompt returns to the composer, as Claude Code does.
            return switching(
                host,
                () => rewindConversation(conversation, conversation.checkpoints, op),
                () => op.point.text
            );
        case "rewind_points":
            return rewindPointsOf(conversation, conversation.checkpoints);
        case "set_model":
            return switchModel(host, op.name);
        case "summarise":
            return summarise(host, op);
        case "export":
            return exportConversation(host, op.path);
        case "remember":
            return saveMemoryNote(conversation, op.note, op.scope);
        case "reload_memory":
            return reloadMemory(conversation);
        case "memory_file":
            return memoryFileToEdit(conversation.repoRoot, op.scope);
        case "memory":
            return memoryListing(conversation.repoRoot);
        case "remove_permission":
            return removePermission(host, op.number);
        case "permissions":
            return { ...host.deps.permissions.list(), mode: host.mode };
        case "read_denial":
            return { rule: host.deps.permissions.readDenial(op.path) };
        case "learn_start":
            return startLearning(host);
        case "learn_stop":
            return stopLearning(host);
        case "list_conversations":
            return listConversations(host);
        case "costs":
            return host.spend.figures();
        case "mcp_servers":
            return mcpServers(host);
        case "lsp_servers":
            return languageServers(host);
        case "skills":
            return host.deps.skills;
        case "review":
            return runReviewOp(host, op);
        case "output_styles":
            return outputStyles(host);
        case "set_output_style":
            return setOutputStyle(host, op);
        case "record_view":
            conversation.recordView(op.action);
            return { recorded: conversation.log !== undefined };
        default:
            op satisfies never;
            throw new Error("unknown op");
    }
}
