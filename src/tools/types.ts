import type { z } from "zod";

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
    | "internal";

export interface ToolError {
    code: ToolErrorCode;
    message: string;
}

export type ToolResult<D = unknown> = { ok: true; data: D } | { ok: false; error: ToolError };

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
    /** Absolute, real (symlink-resolved) project root. Every path is confined to it. */
    repoRoot: string;
    signal: AbortSignal;
    /** Told of every file change before it lands (rewind); absent: changes are not checkpointed. */
    checkpoint?: FileCheckpointer;
}

export interface ToolDefinition<I = unknown, D = unknown> {
    name: string;
    description: string;
    input: z.ZodType<I>;
    /** JSON Schema shown to the model when the one derived from `input` would be needlessly long. */
    inputJsonSchema?: Record<string, unknown>;
    approvalPolicy: ApprovalPolicy;
    /** Read-only tools are the only ones offered in ask mode. */
    readOnly: boolean;
    execute(input: I, ctx: ToolContext): Promise<ToolResult<D>>;
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
