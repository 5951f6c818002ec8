import type { ApprovalDecision, ApprovalRequest } from "../agent/approvals";
import type { EngineHostPort } from "../agent/protocol";
import { MAX_PROMPT_BYTES } from "../tools/limits";
import type { OversizedLine } from "../util/bounded-lines";
import type { MessageSecrets } from "./stream-secrets";
import { megabytes } from "../util/short-text";

export const INPUT_FORMATS = ["text", "stream-json"] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];

/** One stdin line of `--input-format stream-json`, understood. */
export type InputLine =
    | { type: "prompt"; text: string }
    | { type: "approval_response"; id: string; decision: ApprovalDecision }
    /** A password for a `secret_request`, or null to decline it; it goes to the process only. */
    | { type: "secret_response"; id: string; secret: string | null }
    | { type: "invalid"; error: string };

/** A refusal's reason reaches the model; longer is refused, not cut. */
export const MAX_REFUSAL_REASON_CHARS = 2000;

/**
 * What is wrong with an approval's `remember` (absent is fine), or null. Only
 * "all" is read: on an edit it accepts the session's later edits (the chat's
 * "accept edits for the session"); nothing is saved.
 */
export function rememberError(remember: unknown): string | null {
    if (remember === undefined || remember === "all") return null;
    return '"remember" may only be "all" (on an edit\'s approval: accept the session\'s later edits)';
}

/** Why `decision` cannot answer `request`, or null. */
export function answerMismatch(
    request: ApprovalRequest,
    decision: ApprovalDecision
): string | null {
    if (decision.outcome !== "approve" || decision.remember === undefined) return null;
    if (request.kind === "write") return null;
    return `"remember":"all" answers an edit's approval only; this is a ${request.kind} request, so it was not answered`;
}

/** What is wrong with a denial's `reason` (absent is fine), or null. */
export function refusalReasonError(reason: unknown): string | null {
    if (reason === undefined) return null;
    if (typeof reason !== "string") return '"reason" must be a string';
    if (reason.length > MAX_REFUSAL_REASON_CHARS) {
        return `"reason" is ${reason.length} characters; at most ${MAX_REFUSAL_REASON_CHARS} are read`;
    }
    return null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Claude Code's content: a string, or text blocks (joined by a blank line). */
function promptText(content: unknown): string | { error: string } {
    if (typeof content === "string") {
        return content.trim() ? content : { error: "message.content is empty" };
    }
    if (!Array.isArray(content)) {
        return { error: "message.content must be a string or an array of text blocks" };
    }
    const texts: string[] = [];
    for (const block of content) {
        if (!isRecord(block) || block.type !== "text" || typeof block.text !== "string") {
            const kind = isRecord(block) && typeof block.type === "string" ? block.type : "?";
            return {
                error: `only {"type":"text","text":"..."} content blocks are read (got ${kind})`,
            };
        }
        texts.push(block.text);
    }
    const text = texts.join("\n\n");
    return text.trim() ? text : { error: "message.content is empty" };
}

/** Parses one input line; null for a blank line, which is skipped. */
export function parseInputLine(line: string): InputLine | null {
    if (!line.trim()) return null;
    let value: unknown;
    try {
        value = JSON.parse(line);
    } catch {
        return { type: "invalid", error: "not a JSON object" };
    }
    if (!isRecord(value)) return { type: "invalid", error: "not a JSON object" };
    if (value.type === "user") {
        const message = value.message;
        if (!isRecord(message) || !("content" in message)) {
            return { type: "invalid", error: 'a "user" line needs message.content' };
        }
        if (message.role !== undefined && message.role !== "user") {
            return { type: "invalid", error: 'message.role must be "user"' };
        }
        const text = promptText(message.content);
        return typeof text === "string"
            ? { type: "prompt", text }
            : { type: "invalid", error: text.error };
    }
    if (value.type === "approval_response") {
        if (typeof value.id !== "string" || !value.id) {
            return { type: "invalid", error: 'an "approval_response" line needs an "id"' };
        }
        const reasonError = refusalReasonError(value.reason);
        if (reasonError) return { type: "invalid", error: reasonError };
        if (value.decision === "approve") {
            const error = rememberError(value.remember);
            if (error) return { type: "invalid", error };
            return {
                type: "approval_response",
                id: value.id,
                decision: {
                    outcome: "approve",
                    ...(value.remember === "all" ? { remember: "all" } : {}),
                },
            };
        }
        if (value.remember !== undefined) {
            return { type: "invalid", error: '"remember" goes with "decision":"approve" only' };
        }
        if (value.decision === "deny") {
            const reason = value.reason as string | undefined;
            return {
                type: "approval_response",
                id: value.id,
                decision: { outcome: "deny", ...(reason ? { reason } : {}) },
            };
        }
        return { type: "invalid", error: '"decision" must be "approve" or "deny"' };
    }
    if (value.type === "secret_response") {
        if (typeof value.id !== "string" || !value.id) {
            return { type: "invalid", error: 'a "secret_response" line needs an "id"' };
        }
        // The error never quotes the value: it may be the password.
        if (typeof value.secret !== "string" && value.secret !== null) {
            return {
                type: "invalid",
                error: '"secret" must be a string (the password) or null (declined)',
            };
        }
        return { type: "secret_response", id: value.id, secret: value.secret };
    }
    const kind = typeof value.type === "string" ? `"${value.type}"` : "missing";
    return {
        type: "invalid",
        error: `unknown line type ${kind} (expected "user", "approval_response" or "secret_response")`,
    };
}

/** The `approval_request` line a client answers with an `approval_response`. */
export function approvalRequestLine(request: ApprovalRequest): Record<string, unknown> {
    return {
        type: "approval_request",
        id: request.id,
        kind: request.kind,
        tool: request.toolName,
        tool_call_id: request.toolCallId,
        summary: request.summary,
        input: request.input,
        ...(request.command !== undefined ? { command: request.command } : {}),
        ...(request.cwd !== undefined ? { cwd: request.cwd } : {}),
        ...(request.diffs
            ? { diffs: request.diffs.map((d) => ({ path: d.path, diff: d.diff })) }
            : {}),
        ...(request.protectedPaths ? { protected_paths: request.protectedPaths } : {}),
        ...(request.plan !== undefined ? { plan: request.plan } : {}),
    };
}

/** The client's side of the host's approvals: `approval_request` lines out, answers in. */
export interface MessageApprovals {
    /** Settles a waiting request; else says why not (none waits under that id, or the answer does not fit it). */
    answer(
        id: string,
        decision: ApprovalDecision
    ): Promise<{ ok: true } | { ok: false; error: string }>;
    /** Nobody can answer any more (stdin closed): waiting and later requests are denied. */
    close(reason: string): void;
}

/** Writes an `approval_request` line for each of the host's requests; the client answers on stdin. */
export function createMessageApprovals(
    host: EngineHostPort,
    emit: (line: Record<string, unknown>) => void
): MessageApprovals {
    const waiting = new Map<string, ApprovalRequest>();
    let closedReason: string | null = null;
    const deny = (id: string, reason: string) =>
        host.submit({ type: "approval", requestId: id, decision: { outcome: "deny", reason } });
    host.subscribe((event) => {
        if (event.type === "approval_decision") waiting.delete(event.requestId);
        if (event.type !== "approval_request") return;
        if (closedReason !== null) {
            void deny(event.request.id, closedReason);
            return;
        }
        waiting.set(event.request.id, event.request);
        emit(approvalRequestLine(event.request));
    });
    return {
        async answer(id, decision) {
            const request = waiting.get(id);
            if (!request)
                return { ok: false, error: `no approval request is waiting with id "${id}"` };
            // Left waiting: the client can still answer it properly.
            const mismatch = answerMismatch(request, decision);
            if (mismatch) return { ok: false, error: mismatch };
            waiting.delete(id);
            return host.submit({ type: "approval", requestId: id, decision });
        },
        close(reason) {
            closedReason = reason;
            for (const id of [...waiting.keys()]) void deny(id, reason);
            waiting.clear();
        },
    };
}

export interface StreamInputOptions {
    /** stdin's lines, each bounded by `MAX_PROMPT_BYTES` (`readBoundedLines`). */
    lines: AsyncIterable<string | OversizedLine>;
    /** Runs one prompt in the session's conversation; resolves to its exit code. */
    runPrompt(text: string): Promise<number>;
    approvals: MessageApprovals;
    /** Password prompts a client answers with `secret_response` lines; absent: none are read. */
    secrets?: MessageSecrets;
    /** Writes one stream-json line to stdout. */
    emit(line: Record<string, unknown>): void;
    /** Writes one line to stderr. */
    warn(message: string): void;
    /** Aborted by a signal: queued prompts are dropped. */
    signal: AbortSignal;
}

function oversizedLineError(bytes: number): string {
    return (
        `the line is ${megabytes(bytes)}, over the ${megabytes(MAX_PROMPT_BYTES)} limit of one stdin line; ` +
        "it was skipped and nothing of it was kept"
    );
}

/**
 * Reads stdin while prompts run (approval answers arrive mid-run) and runs the
 * prompts one after another, in order. Resolves once stdin has closed and the
 * last prompt is done: 0 when every prompt succeeded and every line was
 * understood, otherwise 1.
 */
export async function driveStreamInput(options: StreamInputOptions): Promise<number> {
    let failed = false;
    let queue: Promise<void> = Promise.resolve();
    let lineNumber = 0;
    const reject = (error: string): void => {
        failed = true;
        options.emit({ type: "error", line: lineNumber, error });
        options.warn(`stdin line ${lineNumber}: ${error}`);
    };
    for await (const raw of options.lines) {
        lineNumber++;
        if (options.signal.aborted) break;
        if (typeof raw !== "string") {
            reject(oversizedLineError(raw.oversizedBytes));
            continue;
        }
        const line = parseInputLine(raw);
        if (line === null) continue;
        switch (line.type) {
            case "invalid":
                reject(line.error);
                break;
            case "prompt": {
                const at = lineNumber;
                queue = queue.then(async () => {
                    if (options.signal.aborted) return;
                    try {
                        if ((await options.runPrompt(line.text)) !== 0) failed = true;
                    } catch (error) {
                        failed = true;
                        options.warn(`the prompt of stdin line ${at} failed: ${String(error)}`);
                    }
                });
                break;
            }
            case "approval_response": {
                const answered = await options.approvals.answer(line.id, line.decision);
                if (!answered.ok) reject(answered.error);
                break;
            }
            case "secret_response": {
                const answered = options.secrets
                    ? await options.secrets.answer(line.id, line.secret)
                    : { ok: false as const, error: "no password request is waiting" };
                if (!answered.ok) reject(answered.error);
                break;
            }
            default:
                line satisfies never;
        }
    }
    options.approvals.close(
        "stdin closed before the approval was answered, so it was not done. Tell the user what you wanted to do."
    );
    options.secrets?.close();
    await queue;
    return failed ? 1 : 0;
}
