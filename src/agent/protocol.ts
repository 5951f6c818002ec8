/**
 * The engine protocol: every front-end action is an `EngineOp` submitted to
 * the engine host (agent/engine-host.ts), answered by a typed reply
 * (`OpReply`) and told through the host's event stream (`HostEvent`: the
 * engine's `EngineEvent`s plus the host's own, such as a conversation switch).
 * The chat, print mode, stream-json input, the Node API (and an ACP server)
 * are adapters: their input becomes ops, the events their output.
 *
 * The one rule for reads: whatever a front-end asks for is an op too
 * (`list_conversations`, `costs`, `permissions`, ...), as codex's
 * `ListMcpTools` is; `state()` is only the snapshot a status line draws on
 * every frame (model, mode, running, context figure, costs, standing approval).
 */
import type { AvailablePlugin } from "./plugins/operations";
import type { MemoryScope } from "../project/memory";
import type { ModelInfo } from "../providers/catalogue";
import type { ImageBlock, Message } from "../providers/types";
import type { LspServerStatus } from "../tools/lsp/types";
import type { PlanResult } from "../storage/checkpoints";
import type { ProcessId, ProcessInfo, ReadRequest, ReadResult } from "../tools/processes/types";
import type { PluginInventory } from "../project/plugins/types";
import type { ApprovalDecision, StandingAutoApproval } from "./approvals";
import type { EngineEvent, Mode, RunResult } from "./events";
import type { ReviewReport, ReviewTarget } from "./review/types";
import type { CostLine } from "./session-costs";
import type { SessionState } from "./session";

/** What an op did, in words a front-end shows as they are. */
export interface Outcome {
    message: string;
    isError?: boolean;
}

export type { MemoryScope };

/** What `rewind` takes back: the files North changed, the conversation, or both. */
export type RewindScope = "both" | "code" | "conversation";

/** A user prompt of the conversation, as a point to rewind to. */
export interface RewindPoint {
    /** 1 for the oldest prompt, as `north rewind` numbers them. */
    number: number;
    entryId: string;
    text: string;
    /** What restoring the code to before this prompt would do, or why it cannot be restored. */
    code: PlanResult;
    /** One line per file the restore would change ("a.ts", "b.ts (deleted) [changed since]"). */
    files: string[];
    /** Files changed by something other than North since North changed them. */
    changedSince: string[];
}

export type RewindPoints =
    | {
          ok: true;
          /** Oldest first. */
          points: RewindPoint[];
          /** Said wherever rewinding the code is offered. */
          notTracked: string;
      }
    | { ok: false; error: string };

/** A saved conversation of this project, as a picker lists it. */
export interface ConversationChoice {
    id: string;
    label: string;
    hint?: string;
}

/** The memory directories and the files loaded from them. */
export interface MemoryListing {
    dirs: Array<{ scope: MemoryScope; dir: string; label: string }>;
    files: Array<{
        scope: MemoryScope;
        path: string;
        label: string;
        bytes: number;
        /** Less than `bytes` when the memory cap cut the file; 0 when it was not loaded. */
        loadedBytes: number;
    }>;
    warnings: string[];
}

/** A permission rule or standing approval, as the permissions listing shows it. */
export interface PermissionEntry {
    kind: "allow" | "deny" | "ask";
    /** As written: `Bash(npm test:*)`; `every command` / `every edit` for an auto-approval. */
    text: string;
    /** A settings file's path, a flag, or "this session". */
    source: string;
    /** False for an entry that does not count now (its project is no longer trusted). */
    inForce: boolean;
    /** "exact" (an exact command), the key of an auto-approval, or why the rule matches nothing. */
    note?: string;
    /** Why it cannot be removed here (edit the file instead); absent: it can. */
    fixed?: string;
}

/** The permission rules and standing approvals of a session. */
export interface PermissionListing {
    /** Deny, then ask, then allow (the order they apply in); numbered from 1 as listed. */
    rules: PermissionEntry[];
    /** Why some entries do not count (an untrusted project's allow rules). */
    notes: string[];
    /** The session's mode, when it grants something (`accept-edits`). */
    mode?: Mode;
}

export interface McpServerListing {
    name: string;
    /** The plugin (`name@marketplace`) that brought the server. */
    plugin?: string;
    state: string;
    error?: string;
    tools: string[];
}

/** The session's language servers, as `/lsp` shows them. */
export interface LanguageServerListing {
    /** Every known server, found or not. */
    servers: LspServerStatus[];
    /** Why no server can start here (the project is not trusted), when that is so. */
    note?: string;
}

/** The status line's two figures. */
export interface StatusCosts {
    /** This conversation; null once a model without a price answered. */
    sessionUsd: number | null;
    allTimeUsd: number | null;
}

/** Spend on one model. */
export type CostRow = Omit<CostLine, "unpricedRequests"> & { unpricedRequests?: number };

export interface CostFigures extends StatusCosts {
    session: CostRow[];
    allTime: CostRow[];
}

/** The output styles `/output-style` offers. */
export interface OutputStyleListing {
    styles: Array<{
        name: string;
        description: string;
        /** `built-in`, `user`, `project`, or `plugin name@marketplace`. */
        source: string;
        /** The style of the current conversation. */
        active: boolean;
    }>;
    /** The current conversation's style. */
    current: string;
    /** The style a new conversation would take, when not `current`. */
    next?: string;
    /** A request was sent under `current`: a pick applies from the next conversation, or now. */
    started: boolean;
    /** Style files that were skipped or read with a problem. */
    warnings: string[];
}

/** The plugins as `/plugin` shows them: marketplaces, what they offer, what is installed. */
export interface PluginsListing {
    marketplaces: Array<{
        name: string;
        /** Where it comes from, as a person reads it (`github:owner/repo`, a URL, a path). */
        source: string;
        /** The commit its clone is pinned to; absent for a local folder outside git. */
        commit?: string;
        updatedAt: string;
    }>;
    available: AvailablePlugin[];
    installed: Array<{
        id: string;
        name: string;
        marketplace: string;
        version?: string;
        /** The user's switch (installed.json), before any settings' `enabledPlugins`. */
        enabled: boolean;
        /** Why the session does not run it (changed since approved, unreadable). */
        held?: string;
    }>;
    /** A marketplace that could not be read (its catalogue broken): the rest is still listed. */
    errors: string[];
}

/** A plugin copied and read for the user's yes (`plugin_prepare`); nothing of it ran. */
export type PluginPrepared =
    | {
          ok: true;
          /** Names it for `plugin_commit` / `plugin_discard`; one prepared plugin at a time. */
          token: string;
          id: string;
          update: boolean;
          inventory: PluginInventory;
          /** The inventory as lines a person reads (what the trust prompt shows). */
          lines: string[];
          /** False: an update whose files match what was approved (no question needed). */
          needsApproval: boolean;
      }
    /** `update` found nothing newer. */
    | { ok: true; upToDate: true; id: string; message: string }
    | { ok: false; error: string };

/** Every action a front-end can take, as a value. */
export type EngineOp =
    | {
          type: "prompt";
          text: string;
          /** Default: the host's mode (`set_mode`, or an edit review's "accept edits"). */
          mode?: Mode;
          attachedContext?: string;
          attachedImages?: ImageBlock[];
          maxTurns?: number;
          /** The plan is the answer; nothing is changed (plan mode with nobody to review). */
          planOnly?: boolean;
          /** Aborts this prompt only; `cancel` aborts whatever runs. */
          signal?: AbortSignal;
      }
    /**
     * A shell command the user typed (`!cmd`): runs without review, in the
     * model's shell (same directory, environment and sandbox; deny rules hold),
     * its output shown as a `shell_run` entry and added to the conversation
     * as the user's message. `cancel` or `signal` stops it.
     */
    | { type: "user_shell"; command: string; signal?: AbortSignal }
    /** Aborts the prompt, summary or user command running now (and the approvals it waits for). */
    | { type: "cancel" }
    | { type: "approval"; requestId: string; decision: ApprovalDecision }
    | { type: "new_conversation" }
    | { type: "resume"; id: string }
    /** Continues in a copy of the conversation, up to just before prompt `promptNumber`. */
    | { type: "fork"; promptNumber?: number }
    | { type: "rewind"; point: RewindPoint; scope: RewindScope; overwriteChanged: boolean }
    | { type: "set_model"; name: string }
    | { type: "set_mode"; mode: Mode }
    | { type: "summarise"; keepLast?: number }
    | { type: "export"; path?: string }
    /**
     * Reviews a diff with read-only tools in sub-conversations of their own
     * (the current conversation is not changed); progress comes as events,
     * the report is the reply. Nothing is edited.
     */
    | {
          type: "review";
          target: ReviewTarget;
          /**
           * The TARGET words of `/review` (and `--base`, `--staged`), resolved by the
           * host in its repository (agent/review/target-parse.ts); `target` is then ignored.
           */
          request?: { words: string[]; base?: string; staged?: boolean };
          signal?: AbortSignal;
      }
    | { type: "remember"; note: string; scope: MemoryScope }
    | { type: "reload_memory" }
    /** The scope's `MEMORY.md` to open in an editor, created when missing. */
    | { type: "memory_file"; scope: MemoryScope }
    | { type: "remove_permission"; number: number }
    | { type: "learn_start" }
    | { type: "learn_stop" }
    | { type: "list_conversations" }
    | { type: "rewind_points" }
    | { type: "costs" }
    | { type: "permissions" }
    | { type: "mcp_servers" }
    | { type: "lsp_servers" }
    | { type: "skills" }
    | { type: "memory" }
    | { type: "output_styles" }
    /** Picks an output style (saved for this project); `now`: this conversation too (the prompt cache restarts). */
    | { type: "set_output_style"; name: string; now: boolean }
    /** The `Read(...)` deny rule covering an absolute path (`@` attachments), if any. */
    | { type: "read_denial"; path: string }
    /** Saves one of the front-end's own transcript actions (a prompt, a review) with the conversation. */
    | { type: "record_view"; action: Record<string, unknown> }
    /** The session's background processes: running first (oldest first), then finished ones. */
    | { type: "processes" }
    /** A process's output for a front-end (the "view" reader: the model's cursor does not move). */
    | { type: "process_output"; id: ProcessId; request?: ReadRequest }
    | { type: "stop_process"; id: ProcessId }
    /** Ctrl+B: moves the running foreground commands into the background. */
    | { type: "background_command" }
    /**
     * The user's answer to a `secret_request` (null: declined). The secret goes
     * to the process only: never logged, recorded or sent in an event.
     */
    | { type: "secret_answer"; requestId: string; secret: string | null }
    /** Marketplaces, available and installed plugins (`/plugin`). */
    | { type: "plugins" }
    /**
     * Copies a plugin (or its update) into a staging folder and reads it: no
     * plugin code runs. The reply's inventory is shown before `plugin_commit`.
     */
    | { type: "plugin_prepare"; id: string; update?: boolean }
    /** The user said yes to the prepared plugin: installed (or updated) and loaded. */
    | { type: "plugin_commit"; token: string }
    | { type: "plugin_discard"; token: string }
    | { type: "plugin_set_enabled"; id: string; enabled: boolean }
    | { type: "plugin_remove"; id: string }
    /** `owner/repo[@ref]`, a git URL[#ref] or a local path (relative to the project). */
    | { type: "marketplace_add"; source: string }
    /** Fetches one marketplace (or all) and pins the new commit. */
    | { type: "marketplace_update"; name?: string }
    | { type: "marketplace_remove"; name: string };

export type OpType = EngineOp["type"];
export type OpOf<T extends OpType> = Extract<EngineOp, { type: T }>;

/** Each op's reply. */
export interface OpReplies {
    prompt: RunResult;
    /** `exitCode` when the command ran to its end; an error when it did not run. */
    user_shell: Outcome & { exitCode?: number | null };
    cancel: { cancelled: boolean };
    approval: { ok: true } | { ok: false; error: string };
    new_conversation: Outcome;
    resume: Outcome;
    /** `promptText`: the prompt the fork stops before, to edit and send again. */
    fork: Outcome & { promptText?: string };
    rewind: Outcome;
    set_model: Outcome;
    set_mode: { mode: Mode };
    summarise: Outcome;
    export: Outcome;
    review: ReviewReport;
    remember: Outcome;
    reload_memory: Outcome;
    memory_file: { ok: true; path: string } | { ok: false; error: string };
    remove_permission: Outcome;
    learn_start: Outcome;
    learn_stop: Outcome;
    list_conversations: ConversationChoice[];
    rewind_points: RewindPoints;
    costs: CostFigures;
    permissions: PermissionListing;
    mcp_servers: McpServerListing[];
    lsp_servers: LanguageServerListing;
    skills: Array<{ name: string; description: string }>;
    memory: MemoryListing;
    output_styles: OutputStyleListing;
    set_output_style: Outcome;
    read_denial: { rule?: string };
    record_view: { recorded: boolean };
    processes: ProcessInfo[];
    process_output: { ok: true; result: ReadResult } | { ok: false; error: string };
    stop_process: Outcome;
    /** The ids of the processes the commands became. */
    background_command: { moved: string[] };
    secret_answer: { ok: true } | { ok: false; error: string };
    plugins: PluginsListing;
    plugin_prepare: PluginPrepared;
    plugin_commit: Outcome;
    plugin_discard: Outcome;
    plugin_set_enabled: Outcome;
    plugin_remove: Outcome;
    marketplace_add: Outcome;
    marketplace_update: Outcome;
    marketplace_remove: Outcome;
}

export type OpReply<T extends OpType> = OpReplies[T];

/** What the host stored of a conversation, for a front-end to draw it again. */
export interface ConversationHistory {
    view: ReadonlyArray<Record<string, unknown>>;
    messages: readonly Message[];
    /** Messages older than the first view record (logs from before views were kept). */
    messagesBeforeView: number;
}

/** The host's own events, beside the engine's. */
export type HostOnlyEvent =
    /** Another conversation is current (new, resume, fork, rewind); `draft` goes back to the composer. */
    | {
          type: "conversation_switched";
          conversationId: string;
          history: ConversationHistory;
          draft?: string;
      }
    /** The mode was set by `set_mode` (an edit review's switch is the engine's `mode_change`). */
    | { type: "mode_set"; mode: Mode }
    /** `state()` changed without an engine event (a model switch, learning's spend). */
    | { type: "state_changed" }
    /** Learning's progress while it runs, null when it ended. */
    | { type: "learning"; progress: { percent: number; topic: string } | null }
    /** Something to tell the user outside any op's reply (learning finished). */
    | { type: "notice"; level: "info" | "warning"; text: string };

export type HostEvent = EngineEvent | HostOnlyEvent;
export type HostListener = (event: HostEvent) => void;

/** The snapshot a status line draws. */
export interface HostState extends SessionState {
    conversationId: string;
    mode: Mode;
    /** Every model of the catalogue (pickers, autocomplete). */
    models: ModelInfo[];
    costs: StatusCosts;
    standing: StandingAutoApproval;
    /** Background processes running, and notices waiting for the next request. */
    processes: { running: number; notices: number };
}

/** What every front-end holds: submit ops, hear events, read the status snapshot. */
export interface EngineHostPort {
    submit<T extends OpType>(op: OpOf<T>): Promise<OpReply<T>>;
    /** Stays subscribed across conversation switches; returns the unsubscribe. */
    subscribe(listener: HostListener): () => void;
    state(): HostState;
}

/** Whether an event is the engine's own (what the printers and the view recorder take). */
export function isEngineEvent(event: HostEvent): event is EngineEvent {
    switch (event.type) {
        case "conversation_switched":
        case "mode_set":
        case "state_changed":
        case "learning":
        case "notice":
            return false;
        default:
            return true;
    }
}
