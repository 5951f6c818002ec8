/**
 * The public types of `import { createSession } from "north-agent"`. This file
 * imports nothing: the build turns it alone into dist/api.d.ts. The events are
 * the lines of `--output-format stream-json`, as objects.
 */

export type NorthMode = "agent" | "ask" | "plan";

/** What a run asks before it edits a file, runs a command or (plan mode) carries out a plan. */
export interface NorthApprovalRequest {
    type: "approval_request";
    id: string;
    kind: "shell" | "write" | "plan";
    tool: string;
    tool_call_id: string;
    /** One line: the command, or the files being edited. */
    summary: string;
    input: unknown;
    command?: string;
    cwd?: string;
    /** Edits: each file's unified diff. */
    diffs?: { path: string; diff: string }[];
    protected_paths?: string[];
    plan?: string;
}

/** A denial's reason is given to the model. */
export interface NorthApprovalAnswer {
    decision: "approve" | "deny";
    /** A denial's reason (what to do instead), at most 2,000 characters; a longer one is not sent and `onWarning` says why. */
    reason?: string;
    /** On an edit's approval, "all" accepts the session's later edits (the mode becomes accept-edits); nothing is saved. */
    remember?: "all";
}

export interface NorthUsage {
    input_tokens: number;
    output_tokens: number;
    cache_read_input_tokens: number;
    cache_creation_input_tokens: number;
}

/** The last event of every run, and what awaiting the run gives. */
export interface NorthResult {
    type: "result";
    subtype: "success" | "error_max_turns" | "error_max_budget_usd" | "error_during_execution";
    is_error: boolean;
    /** The answer, or the error's message. */
    result: string;
    session_id: string;
    num_turns: number;
    duration_ms: number;
    /** Null when the model has no known price. */
    total_cost_usd: number | null;
    usage: NorthUsage;
    tool_calls: { name: string; input: unknown; ok: boolean }[];
    /** Background processes the run started, as they are at its end (absent: none). */
    processes?: NorthProcess[];
}

/** A background process (`shell_run` with `background: true`, or `tty: true`). */
export interface NorthProcess {
    /** "p1", "p2", ...: what `processOutput` and `stopProcess` take. */
    id: string;
    command: string;
    /** Absolute directory it started in. */
    cwd: string;
    /** Runs in a pseudo-terminal: its output reads as the screen. */
    tty: boolean;
    sandboxed: boolean;
    pid?: number;
    state: "running" | "exited";
    /** Once exited: the exit status, or null when a signal ended it. */
    exit_code?: number | null;
    signal?: string | null;
    /** Stopped by North (`stopProcess`, `close`, the model's process_stop), not its own end. */
    stopped?: boolean;
    /** Epoch milliseconds. */
    started_at: number;
    ended_at?: number;
    output_bytes: number;
    /** Where output beyond the kept part is (removed when North exits). */
    spill_path?: string;
    /** The model's tool call id that started it, or "user". */
    origin: string;
}

/** What `processOutput` reads. */
export interface NorthProcessOutputRequest {
    /** "tail" (default): the last `lines` lines; "new": since this session's last `processOutput`; "grep": lines matching `pattern`. */
    mode?: "tail" | "new" | "grep";
    lines?: number;
    /** A JavaScript regular expression, for "grep". */
    pattern?: string;
}

export interface NorthProcessOutput {
    process: NorthProcess;
    /** Plain text; for a tty process the screen as a terminal shows it. */
    text: string;
    screen?: boolean;
    /** Output no longer kept in memory, not shown (see `spill_path`). */
    dropped_bytes?: number;
    truncated?: boolean;
}

/** A program asks for a password (`secret` answers it). */
export interface NorthSecretRequest {
    type: "secret_request";
    id: string;
    process: NorthProcess;
    /** The program's prompt line ("Password:"). */
    prompt: string;
}

export type NorthEvent =
    | {
          type: "system";
          subtype: "init";
          session_id: string;
          model: string;
          mode: NorthMode;
          tools: string[];
          cwd: string;
          mcp_servers: { name: string; status: string; error?: string }[];
      }
    | { type: "text_delta"; text: string }
    | { type: "thinking_delta"; text: string }
    | { type: "tool_call"; id: string; name: string; input: unknown }
    | {
          type: "tool_result";
          id: string;
          name: string;
          ok: boolean;
          duration_ms: number;
          content: unknown;
      }
    | { type: "approval"; request_id: string; decision: unknown }
    /** The session's mode changed (an edit approved with remember "all"); later runs use it. */
    | { type: "mode"; mode: NorthMode | "accept-edits" }
    | { type: "retry"; attempt: number; max_attempts: number; delay_ms: number; error: string }
    | { type: "turn_start"; turn: number }
    | { type: "turn_end"; turn: number; stop_reason: string; cost_usd: number | null }
    | { type: "warning"; message: string }
    /** The model's to-do list, whole, after each todo_write call. */
    | {
          type: "todo";
          items: Array<{ content: string; status: "pending" | "in_progress" | "done" }>;
      }
    /**
     * What a language server says an applied edit introduced. `pending`: it
     * had not answered in time; a later event with `pending: false` follows if
     * it answers while the run goes on.
     */
    | {
          type: "diagnostics";
          tool_call_id: string;
          /** At most 10; paths relative to the project when inside it. */
          introduced: NorthDiagnostic[];
          more: number;
          fixed: number;
          pending: boolean;
          /** False when the server had not reported on the files before the edit. */
          baseline_known: boolean;
      }
    /** A background process started or ended (also when North stopped it at the session's close). */
    | { type: "process"; change: "started" | "exited"; process: NorthProcess }
    /** The model will hear of this at its next request: a process exited or printed a watched line. */
    | {
          type: "process_notice";
          kind: "exited" | "matched";
          process: NorthProcess;
          pattern?: string;
          lines: string[];
      }
    | NorthResult;

/** One problem a language server reports: lines and columns from 1. */
export interface NorthDiagnostic {
    path: string;
    line: number;
    column: number;
    end_line: number;
    end_column: number;
    severity: "error" | "warning" | "information" | "hint";
    message: string;
    source?: string;
    code?: string;
    /** The language server that reported it. */
    server: string;
}

export interface NorthSessionOptions {
    /** The project directory (its repository root is found as the CLI does). Default: process.cwd(). */
    cwd?: string;
    /** A model alias or id, or provider:model-id, as `--model`. Default: the user's configured model. */
    model?: string;
    /** Default "agent". */
    mode?: NorthMode;
    /**
     * Answers approval requests. Without it every edit and command that needs
     * approval is denied, as in print mode without flags.
     */
    approve?: (request: NorthApprovalRequest) => Promise<NorthApprovalAnswer>;
    /** Use the project's own hooks, MCP servers and standing approvals (`--trust`). Default false. */
    trust?: boolean;
    /**
     * Variables for this session's commands, hooks and MCP servers, over
     * `process.env` (an `undefined` value removes one). `process.env` itself is
     * never changed. Provider keys are still read from `process.env`.
     */
    env?: Record<string, string | undefined>;
    /**
     * Answers a program's password prompt: your user types it (in a masked
     * field); resolve null to decline. The password goes to the program only,
     * never to the model or the conversation. Without it, prompts are declined.
     */
    secret?: (request: NorthSecretRequest) => Promise<string | null>;
    /** Where warnings go (an untrusted project, an unsaved conversation). Default: stderr. */
    onWarning?: (message: string) => void;
}

export interface NorthRunOptions {
    /** Aborting cancels the run: it ends with an error_during_execution result. */
    signal?: AbortSignal;
}

/** A run: iterate it for its events (the result last), or await it for the result. */
export interface NorthRun extends AsyncIterable<NorthEvent>, PromiseLike<NorthResult> {
    readonly result: Promise<NorthResult>;
}

export interface NorthSession {
    /** The conversation's id (`north resume ID` continues it in the chat). */
    readonly sessionId: string;
    /** Runs one prompt in this conversation; runs started together go one after another. */
    run(prompt: string, options?: NorthRunOptions): NorthRun;
    /**
     * The session's background processes, running first. They run on from one
     * run to the next (a dev server started in one run is there for the next)
     * until `stopProcess`, the model's `process_stop` or `close`.
     */
    processes(): Promise<NorthProcess[]>;
    /** A process's output; the model's own reads are not moved. Rejects for an unknown id. */
    processOutput(id: string, request?: NorthProcessOutputRequest): Promise<NorthProcessOutput>;
    /** Stops a running process (SIGTERM, then SIGKILL after a grace period); rejects for an unknown id. */
    stopProcess(id: string): Promise<NorthProcess>;
    /** Ends the conversation's log, stops background processes, tools and MCP servers. */
    close(): Promise<void>;
}

/** Rejects with an Error naming the problem (no key, unknown model, bad cwd...). */
export type CreateSession = (options?: NorthSessionOptions) => Promise<NorthSession>;
