import { resolve, sep } from "node:path";
import type { ToolCallBlock, ToolResultBlock } from "../providers/types";
import { type Logger, summarizeArgs } from "../storage/logger";
import { CHARS_PER_TOKEN, MAX_TOOL_RESULT_SHARE } from "../tools/limits";
import type { ClientFiles } from "../tools/client-workspace";
import type { FileCheckpointer, ToolError, ToolResult } from "../tools/types";
import type { ApprovalSettings, Approver } from "./approvals";
import type { Conversation } from "./conversation";
import { type OutputCache, digestToolOutput } from "./digest";
import type { EditDiagnostics } from "./edit-diagnostics";
import type { EngineEvent } from "./events";
import type { HookRunner } from "./hook-runner";
import { PROPOSE_PLAN_TOOL, reviewPlan } from "./plan";
import type { ProcessPort } from "./process-port";
import { type RunContext, editsModeOf } from "./run-state";
import { type ToolExecutorDeps, type ToolRunner, executeToolCall } from "./tool-executor";

/** What running the model's tool calls needs from the session. */
export interface ToolTurnDeps {
    conversation: Conversation;
    tools: ToolRunner;
    approver: Approver;
    settings: ApprovalSettings;
    repoRoot: string;
    /** `--add-dir` directories paths may also lead into; absent: none. */
    addedRoots?: readonly string[];
    /** Keeps every file's prior content before an edit lands (rewind). */
    checkpoint?: FileCheckpointer;
    /** The editor's files (ACP): NORTH_FILE blocks read and write through them. */
    clientFiles?: ClientFiles;
    outputs: OutputCache;
    hooks?: HookRunner;
    logger: Logger;
    emit: (event: EngineEvent) => void;
    /**
     * Runs a call that may change something (an edit, a command) alone among
     * parallel subagents, so each sees the last one's change; absent: as is.
     */
    exclusive?: <T>(work: () => Promise<T>) => Promise<T>;
    /** What the language servers say applied edits introduced; absent: no server runs. */
    editDiagnostics?: EditDiagnostics;
    /** The conversation's background processes (a subagent's share its session's); absent: none. */
    processes?: ProcessPort;
}

/** Calls of a `concurrent` tool (subagents) running at once in one turn. */
export const MAX_CONCURRENT_CALLS = 4;

/**
 * Runs a turn's tool calls: one after another, except that consecutive calls
 * of a `concurrent` tool run together (at most `MAX_CONCURRENT_CALLS` at once).
 * Results keep the calls' order.
 */
export async function runToolCalls(
    calls: ToolCallBlock[],
    run: RunContext,
    deps: ToolTurnDeps
): Promise<ToolResultBlock[]> {
    const results: ToolResultBlock[] = [];
    const concurrent = (call: ToolCallBlock): boolean =>
        deps.tools.list().find((t) => t.name === call.name)?.concurrent === true;
    for (let start = 0; start < calls.length;) {
        let end = start + 1;
        if (concurrent(calls[start]!)) {
            while (end < calls.length && concurrent(calls[end]!)) end++;
        }
        results.push(...(await runBounded(calls.slice(start, end), run, deps)));
        start = end;
    }
    calls.forEach((call, i) =>
        run.toolCalls.push({
            id: call.id,
            name: call.name,
            input: call.input,
            ok: !results[i]!.isError,
        })
    );
    return results;
}

/** Runs `group` with at most `MAX_CONCURRENT_CALLS` in flight; results in call order. */
async function runBounded(
    group: ToolCallBlock[],
    run: RunContext,
    deps: ToolTurnDeps
): Promise<ToolResultBlock[]> {
    const results = new Array<ToolResultBlock>(group.length);
    let next = 0;
    const worker = async (): Promise<void> => {
        while (next < group.length) {
            const index = next++;
            results[index] = await runToolCall(group[index]!, run, deps);
        }
    };
    const workers = Math.min(MAX_CONCURRENT_CALLS, group.length);
    await Promise.all(Array.from({ length: workers }, worker));
    return results;
}

/** Results for calls that will not run, so the transcript still pairs them. */
export function notRunResults(calls: ToolCallBlock[], why: string): ToolResultBlock[] {
    return calls.map((c) => ({
        type: "tool_result",
        toolCallId: c.id,
        content: JSON.stringify({ error: { code: "cancelled", message: why } }),
        isError: true,
    }));
}

/** A read of a project file starts its language server ahead of the edit that may follow. */
function warmLanguageServer(input: unknown, deps: ToolTurnDeps): void {
    const relPath = (input as { path?: unknown } | null)?.path;
    if (!deps.editDiagnostics || typeof relPath !== "string" || relPath === "") return;
    const absPath = resolve(deps.repoRoot, relPath);
    if (absPath.startsWith(deps.repoRoot + sep)) deps.editDiagnostics.warm(absPath);
}

async function runToolCall(
    call: ToolCallBlock,
    run: RunContext,
    deps: ToolTurnDeps
): Promise<ToolResultBlock> {
    const started = performance.now();
    const { signal } = run;
    deps.emit({ type: "tool_call", id: call.id, name: call.name, input: call.input });
    deps.logger.info("tool_call_start", {
        toolName: call.name,
        argsSummary: summarizeArgs(call.input),
    });
    const hooks = deps.hooks;
    const definition = deps.tools.list().find((t) => t.name === call.name);
    const executor: ToolExecutorDeps = {
        tools: deps.tools,
        approver: deps.approver,
        settings: deps.settings,
        repoRoot: deps.repoRoot,
        addedRoots: deps.addedRoots,
        checkpoint: deps.checkpoint,
        editDiagnostics: deps.editDiagnostics,
        processes: deps.processes,
        logger: deps.logger,
        emit: deps.emit,
        planRequired: run.mode === "plan" && run.acceptedPlan === null,
        editsMode: editsModeOf(run, deps.emit),
        preToolUse: hooks
            ? (c, s) =>
                  hooks(
                      "PreToolUse",
                      { tool_name: c.name, tool_input: c.input, tool_use_id: c.id },
                      s,
                      c.name
                  )
            : undefined,
    };
    let result: ToolResult;
    if (call.name === PROPOSE_PLAN_TOOL && run.mode === "plan") {
        // A plan the user accepts allows changes for the rest of the run.
        const review = await reviewPlan(call, signal, executor);
        if (review.accepted !== null) run.acceptedPlan = review.accepted;
        result = review.result;
    } else {
        const execute = (): Promise<ToolResult> =>
            executeToolCall(call, run.allowedNames, signal, executor);
        result =
            deps.exclusive && definition && !definition.readOnly
                ? await deps.exclusive(execute)
                : await execute();
    }
    if (result.ok && definition?.readOnly) warmLanguageServer(call.input, deps);
    const forModel: ToolResult = result.ok
        ? {
              ok: true,
              data: digestToolOutput(definition, call.input, result.data, deps.outputs),
          }
        : result;
    let content = capToolResult(
        resultContent(forModel),
        deps.conversation.model.contextLimitTokens
    );
    const after = await hooks?.(
        "PostToolUse",
        {
            tool_name: call.name,
            tool_input: call.input,
            tool_response: result.ok ? result.data : result.error,
            tool_use_id: call.id,
        },
        signal,
        call.name
    );
    if (after?.block) content += `\n[PostToolUse hook] ${after.block.reason}`;
    if (after?.additionalContext.length) {
        content += `\n[PostToolUse hook] ${after.additionalContext.join("\n")}`;
    }
    // An earlier edit's diagnostics that came after its result go with this one.
    for (const note of deps.editDiagnostics?.takeLateNotes() ?? []) content += `\n${note}`;
    const durationMs = Math.round(performance.now() - started);
    const error: ToolError | undefined = result.ok ? undefined : result.error;
    deps.emit({
        type: "tool_result",
        id: call.id,
        name: call.name,
        ok: result.ok,
        content,
        error,
        details: result.ok ? result.data : undefined,
        durationMs,
    });
    deps.logger.info("tool_call_complete", {
        toolName: call.name,
        durationMs,
        ok: result.ok,
        ...(error ? { errorCode: error.code } : {}),
    });
    const images = result.ok ? result.images : undefined;
    return {
        type: "tool_result",
        toolCallId: call.id,
        content,
        isError: !result.ok,
        ...(images?.length ? { images } : {}),
    };
}

/** A tool result as the model reads it: the data as JSON, or the error. */
function resultContent(result: ToolResult): string {
    if (result.ok) return JSON.stringify(result.data);
    if (result.error.code === "denied") {
        return JSON.stringify({ denied: true, message: result.error.message });
    }
    return JSON.stringify({ error: result.error });
}

/**
 * Bounds one tool result to a share of the context window, so a single huge
 * output (an MCP tool, a runaway command) cannot overflow the conversation.
 */
export function capToolResult(content: string, contextLimitTokens: number): string {
    const maxChars = Math.floor(contextLimitTokens * CHARS_PER_TOKEN * MAX_TOOL_RESULT_SHARE);
    if (content.length <= maxChars) return content;
    const head = content.slice(0, maxChars);
    return `${head}\n[North: this result was ${content.length} characters, more than a quarter of the context window; it was cut to the first ${maxChars}. Ask for a narrower range or a more specific query.]`;
}
