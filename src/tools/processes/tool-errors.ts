/**
 * A ProcessError as the tool result the model reads: its message, under the
 * closest code of the tools' closed set.
 */
import { SandboxUnavailableError } from "../sandbox/command-sandbox";
import { type ToolErrorCode, type ToolResult, toolError } from "../types";
import { ProcessError } from "./types";

const CODES: Record<ProcessError["code"], ToolErrorCode> = {
    not_found: "not_found",
    exited: "process_exited",
    limit: "process_limit",
    invalid: "invalid_args",
    unsupported: "io_error",
};

/** The result for a failure of a process tool (or of a background start). */
export function processToolError(error: unknown, what: string): ToolResult<never> {
    if (error instanceof ProcessError) return toolError(CODES[error.code], error.message);
    if (error instanceof SandboxUnavailableError) {
        return toolError("sandbox_unavailable", `Nothing was run: ${error.message}`);
    }
    return toolError("io_error", `${what}: ${(error as Error).message}`);
}

/** Compact process fields for a tool result: what the model needs, not the whole info. */
export function processFields(info: {
    id: string;
    command: string;
    state: string;
    exitCode?: number | null;
    signal?: string | null;
    spillPath?: string;
}): Record<string, unknown> {
    const fields: Record<string, unknown> = {
        id: info.id,
        command: info.command,
        state: info.state,
    };
    if (info.state === "exited") {
        fields.exitCode = info.exitCode ?? null;
        if (info.signal) fields.signal = info.signal;
    }
    if (info.spillPath !== undefined) fields.spillPath = info.spillPath;
    return fields;
}
