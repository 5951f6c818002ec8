import type { ImageBlock } from "../providers/types";
import type { ToolInput } from "./tool-input";
import type { ProcessInfo } from "./processes/types";

/** Closed set of failure codes a tool result can carry; the model reads `message`. */
export type ToolErrorCode =
    | "invalid_args"
    | "unknown_tool"
    | "input_too_large"
    | "path_outside_repo"
    | "invalid_path"
    | "not_found"
    | "not_a_file"
    | "not_a_directory"
    | "binary_file"
    | "too_large"
    | "invalid_regex"
    | "denied"
    | "plan_required"
    | "cancelled"
    | "io_error"
    | "no_match"
    | "ambiguous_match"
    | "out_of_range"
    | "no_change"
    | "file_changed"
    | "read_only"
    | "already_exists"
    /** The prior content could not be saved for rewind, so nothing was changed. */
    | "checkpoint_failed"
    /** The sandbox was asked for but cannot run here; the command was not run at all. */
    | "sandbox_unavailable"
    /** No language server handles the file, or it failed, hung or answered with an error. */
    | "language_server_error"
    /** The background process has exited: nothing was sent to it. */
    | "process_exited"
    /** As many background processes as allowed are running: nothing was started. */
    | "process_limit"
    | "internal";

export interface ToolError {
    code: ToolErrorCode;
    message: string;
}

export type ToolResult<D = unknown> =
    /** `images`: pictures for the model beside the data (read_file on an image). */
    { ok: true; data: D; images?: ImageBlock[] } | { ok: false; error: ToolError };

/** Who must agree before a tool runs: nobody, the edit review, or the shell review. */
export type ApprovalPolicy = "none" | "write" | "shell";

/** One file North is about to change: absolute real path, repo-relative path, bytes before (null: did not exist) and after (null: deleted). */
export interface FileChange {
    path: string;
    relPath: string;
    before: Buffer | null;
    after: Buffer | null;
}
export type CheckpointOutcome = { ok: true } | { ok: false; error: string };
/** Keeps what files held before North changed them; when `record` fails, the change must not happen. */
export interface FileCheckpointer {
    record(changes: readonly FileChange[]): Promise<CheckpointOutcome>;
}

export interface ToolContext {
    /** Absolute, real (symlink-resolved) project root. Every path is confined to it (and `addedRoots`). */
    repoRoot: string;
    /** `--add-dir`: directories outside the project paths may also lead into (absolute, real); absent: none. */
    addedRoots?: readonly string[];
    signal: AbortSignal;
    /** Told of every file change before it lands (rewind); absent: changes are not checkpointed. */
    checkpoint?: FileCheckpointer;
    /** Output while the tool runs (a command's), for the transcript only; never sent to the model. */
    onOutput?: (text: string) => void;
    /**
     * The `Read(...)` deny rule that keeps an absolute path from being read,
     * listed or matched; absent (or undefined for a path): nothing denied.
     */
    readDenial?: (absPath: string) => string | undefined;
    /** The model's id for this call (a subagent tags its progress with it). */
    toolCallId?: string;
    /** The `WebFetch(domain:…)` deny rule that keeps a web host from being fetched, if any. */
    hostDenial?: (host: string) => string | undefined;
    /** Fires when the user moves this call's running command to the background (Ctrl+B). */
    detach?: AbortSignal;
    /**
     * Asks the user to answer a program's password prompt in a masked field;
     * the answer goes to the process only (ProcessTable.sendSecret), never to the tool.
     */
    requestSecret?: (process: ProcessInfo, prompt: string) => Promise<"sent" | "declined">;
}

/**
 * A call's arguments as they reach a display: possibly partial (still
 * streaming), invalid, or from a conversation stored by an older version.
 */
export type LooseArgs = Record<string, unknown>;

/**
 * How a call reads in the transcript, as plain text (front-ends draw it).
 * Results arrive as `unknown` because they may come from a stored
 * conversation written by another version; implementations check the shape.
 */
export interface ToolDisplay {
    /** "Reading a.ts"; undefined when the arguments say too little (the tool's name is shown). */
    title(args: LooseArgs): string | undefined;
    /** What a successful result adds to the title: " - 12 entries", " (+3/-1)"; "" for nothing. */
    resultSuffix?(details: unknown): string;
    /** The title once the result is known, when it names more than the arguments did. */
    titleAfterResult?(title: string, details: unknown): string;
    /**
     * Lines under a finished call (a command's exit status and last output
     * lines); `full`: every line the result keeps, for the expanded view.
     */
    resultDetail?(details: unknown, full?: boolean): string[];
    /** A result that came back but did not succeed (a command's non-zero exit, a timeout, a cancel). */
    resultStatus?(details: unknown): "failed" | "cancelled" | undefined;
}

/** Stores a full result for `expand_output` and returns its id. */
export type KeepFullOutput = (full: unknown) => string;

/** What the shell-style approval review shows and what "always" remembers. */
export interface ShellApproval {
    /** One line for the review and the log. */
    summary: string;
    /** Allowlisted by "always": the same key later runs without asking. */
    rememberKey: string;
    /** The command line shown as such (absent for calls that are not commands, e.g. MCP). */
    command?: string;
    /** Absolute directory the command will start in. */
    cwd?: string;
    /** Set when the command runs in the OS sandbox: what the sandbox allows. */
    sandbox?: string;
    /** A web request's host: `WebFetch(domain:…)` rules judge it and "always" allows it. */
    domain?: string;
    /**
     * Input typed into a running program (process_send): `command` is then the
     * program's command line, which allow rules and "always" judge; deny rules
     * judge it and the typed text as a command too (any program may run what it is given).
     */
    typed?: { text: string };
}

export interface ToolDefinition<I = unknown, D = unknown> {
    name: string;
    description: string;
    /** Validates the model's arguments; built on first use (see tool-input.ts). */
    input: ToolInput<I>;
    /**
     * JSON Schema shown to the model instead of deriving one from `input`:
     * prebuilt at build time, or hand-written where the derived one would be needlessly long.
     */
    inputJsonSchema?: Record<string, unknown>;
    approvalPolicy: ApprovalPolicy;
    /** Read-only tools are the only ones offered in ask mode. */
    readOnly: boolean;
    /**
     * Changes something without a review (stopping a process): in plan mode it
     * waits for the accepted plan, as the reviewed tools do.
     */
    changesUnreviewed?: boolean;
    /** Several calls of it in one turn may run at once (bounded); others run one by one. */
    concurrent?: boolean;
    /** A running call can be moved to the background by the user (Ctrl+B): it honours `ToolContext.detach`. */
    detachable?: boolean;
    /**
     * Offered only where the named tool is (the process tools need shell_run):
     * a subagent or `--disallowed-tools` without it goes without this one too.
     */
    offeredWith?: string;
    execute(input: I, ctx: ToolContext): Promise<ToolResult<D>>;
    /** Transcript title and result text; without it the call shows as the tool's name. */
    display?: ToolDisplay;
    /**
     * What the model's history keeps of a large result: the data itself when
     * compact, else a shorter copy naming the id `keep` returns (the full data
     * stays fetchable with expand_output until the next user message).
     */
    digest?(data: D, input: I, keep: KeepFullOutput): unknown;
    /** Required with approval policy "shell": what the review shows and "always" remembers. */
    approval?(input: I): ShellApproval;
    /** Claude Code's names for this tool, so hook matchers such as `Edit` or `Bash` fire for it. */
    hookAliases?: readonly string[];
}

// Tools are stored heterogeneously; the registry validates input before execute.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyToolDefinition = ToolDefinition<any, any>;

export function toolOk<D>(data: D): ToolResult<D> {
    return { ok: true, data };
}

export function toolError(code: ToolErrorCode, message: string): ToolResult<never> {
    return { ok: false, error: { code, message } };
}

/** One file's change as the user reviews it. */
export interface FileDiff {
    /** Repo-relative POSIX path. */
    path: string;
    /** Unified diff text. */
    diff: string;
    linesAdded: number;
    linesRemoved: number;
    isNewFile: boolean;
    /**
     * The whole file before and after, for a front-end that draws its own
     * diff (an editor over ACP): the absolute path, the old text (null for a
     * new file) and the new text (null for a deletion). Unset for files over
     * FULL_TEXT_DIFF_LIMIT, where the unified `diff` is all there is.
     */
    absPath?: string;
    oldText?: string | null;
    newText?: string | null;
}

/**
 * What a write tool returns: the change computed but not written. The engine
 * shows `diffs` for review and calls `apply()` only once the user (or the
 * project's auto-accept) agreed; `discard()` undoes anything already on disk
 * (NORTH_FILE streams content before review).
 */
export interface PreparedWrite {
    kind: "prepared_write";
    /** "Editing src/a.ts", "Creating b.ts", "Editing 3 files". */
    summary: string;
    diffs: FileDiff[];
    /** Writes atomically; fails without writing if a file changed since prepare. */
    apply(): Promise<ToolResult>;
    discard?(): Promise<void>;
}

export function isPreparedWrite(value: unknown): value is PreparedWrite {
    return (
        typeof value === "object" &&
        value !== null &&
        (value as { kind?: unknown }).kind === "prepared_write" &&
        typeof (value as { apply?: unknown }).apply === "function"
    );
}
