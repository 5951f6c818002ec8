/**
 * process_read: a background process's output (new since the model's last
 * read, the last lines, or lines matching a pattern), optionally after
 * waiting for its exit or for a matching line. A tty process reads as its
 * screen. No approval: it only looks at what North already holds.
 */
import { oneLine, str } from "./display-text";
import { digestNote, headTail, isRecord } from "./digest-text";
import {
    DIGEST_PROCESS_HEAD_LINES,
    DIGEST_PROCESS_TAIL_LINES,
    PROCESS_READ_MAX_LINES,
    PROCESS_WAIT_DEFAULT_MS,
    PROCESS_WAIT_MAX_MS,
} from "./limits";
import { processFields, processToolError } from "./processes/tool-errors";
import type { ReadRequest, ReadResult, WaitResult } from "./processes/types";
import type { ShellService } from "./shell-service";
import { type InputOf, toolInput } from "./tool-input";
import { type ToolDefinition, toolError, toolOk } from "./types";

const WAIT_HINT = `timeoutMs must be a whole number of milliseconds from 100 to ${PROCESS_WAIT_MAX_MS}`;

export const processReadInput = toolInput((z) =>
    z.object({
        id: z.string({ error: 'id must be a process id such as "p1"' }),
        mode: z
            .enum(["new", "tail", "grep"], { error: 'mode must be "new", "tail" or "grep"' })
            .optional()
            .describe(
                "new (default): since your last read; tail: last `lines`; grep: lines matching `pattern`."
            ),
        lines: z
            .number({ error: `lines must be a whole number from 1 to ${PROCESS_READ_MAX_LINES}` })
            .int()
            .min(1)
            .max(PROCESS_READ_MAX_LINES)
            .optional(),
        pattern: z.string().optional(),
        wait: z
            .union([z.literal("exit"), z.object({ pattern: z.string() })], {
                error: 'wait must be "exit" or {"pattern": "<regex>"}',
            })
            .optional()
            .describe("First wait for the exit or a new line matching pattern."),
        timeoutMs: z
            .number({ error: WAIT_HINT })
            .int({ error: WAIT_HINT })
            .min(100, { error: WAIT_HINT })
            .max(PROCESS_WAIT_MAX_MS, { error: WAIT_HINT })
            .optional()
            .describe(`Wait at most this long; default ${PROCESS_WAIT_DEFAULT_MS}.`),
    })
);

export type ProcessReadInput = InputOf<typeof processReadInput>;

/** What process_read returns: the process in short, the text, and how a wait ended. */
export interface ProcessReadDetails {
    id: string;
    command: string;
    state: string;
    exitCode?: number | null;
    signal?: string;
    spillPath?: string;
    text: string;
    screen?: boolean;
    /** A tty's cursor on its screen, 1-based. */
    cursor?: { row: number; col: number };
    droppedBytes?: number;
    truncated?: boolean;
    outcome?: WaitResult["outcome"];
    matchedLine?: string;
    /** A grep that could not search all the output: what it missed. */
    note?: string;
}

const DESCRIPTION =
    "Read a background process's output (a tty's: its screen). Older output: spillPath.";

/**
 * Written by hand: the derived one repeats each bound the validation already
 * enforces (its messages name them) and spells the wait's union at length.
 */
const INPUT_JSON_SCHEMA: Record<string, unknown> = {
    type: "object",
    properties: {
        id: { type: "string" },
        mode: {
            description:
                "new (default): since your last read; tail: last `lines`; grep: lines matching `pattern`.",
            enum: ["new", "tail", "grep"],
        },
        lines: { type: "integer" },
        pattern: { type: "string" },
        wait: {
            description: 'First wait: "exit", or {pattern} for a new matching line.',
            anyOf: [
                { const: "exit" },
                { type: "object", properties: { pattern: { type: "string" } } },
            ],
        },
        timeoutMs: {
            description: `Of the wait; default ${PROCESS_WAIT_DEFAULT_MS}.`,
            type: "integer",
        },
    },
    required: ["id"],
};

/** "12.3 MB", "40 KB", "512 bytes": a size for a note. */
function size(bytes: number): string {
    if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
    return bytes >= 1e3 ? `${Math.round(bytes / 1e3)} KB` : `${bytes} bytes`;
}

function details(read: ReadResult, wait?: WaitResult, request?: ReadRequest): ProcessReadDetails {
    const d = { ...processFields(read.process), text: read.text } as ProcessReadDetails;
    if (request?.mode === "grep" && read.droppedBytes && !read.screen) {
        d.note = `The first ${size(read.droppedBytes)} of output were no longer kept (the spill file keeps the latest); they were not searched.`;
    }
    if (read.screen) d.screen = true;
    if (read.cursor) d.cursor = read.cursor;
    if (read.droppedBytes) d.droppedBytes = read.droppedBytes;
    if (read.truncated) d.truncated = true;
    if (wait) {
        d.outcome = wait.outcome;
        if (wait.matchedLine !== undefined) d.matchedLine = wait.matchedLine;
    }
    return d;
}

export function createProcessReadTool(
    service: ShellService
): ToolDefinition<ProcessReadInput, ProcessReadDetails> {
    return {
        name: "process_read",
        description: DESCRIPTION,
        input: processReadInput,
        inputJsonSchema: INPUT_JSON_SCHEMA,
        approvalPolicy: "none",
        readOnly: false,
        // Its processes come from shell_run: where that is not offered, neither is this.
        offeredWith: "shell_run",
        display: {
            title: (args) => {
                const id = str(args.id);
                if (!id) return undefined;
                if (args.wait === "exit") return `Waiting for ${id} to exit`;
                const pattern = isRecord(args.wait) ? str(args.wait.pattern) : undefined;
                return pattern ? `Waiting for ${id}: ${oneLine(pattern, 40)}` : `Reading ${id}`;
            },
            resultDetail: (data, full) => {
                if (!isRecord(data) || typeof data.text !== "string") return [];
                const head = typeof data.outcome === "string" ? [String(data.outcome)] : [];
                const lines = data.text === "" ? [] : data.text.split("\n");
                return [...head, ...(full ? lines : lines.slice(-4))];
            },
        },
        digest(data, _input, keep) {
            // A screen is bounded (rows × cols) and already folded: cut, vi would lose its status line.
            if (data.screen) return data;
            const cut = headTail(data.text, DIGEST_PROCESS_HEAD_LINES, DIGEST_PROCESS_TAIL_LINES);
            if (!cut) return data;
            const id = keep(data);
            return {
                ...data,
                text: cut.text,
                ...digestNote(
                    id,
                    `Showing the first and last lines; ${cut.omitted} lines omitted.`
                ),
            };
        },
        async execute(input, ctx) {
            const table = service.processes;
            if (!table)
                return toolError("io_error", "Background processes are not available here.");
            const request: ReadRequest = { mode: input.mode ?? "new", reader: "model" };
            if (input.lines !== undefined) request.lines = input.lines;
            if (input.pattern !== undefined) request.pattern = input.pattern;
            if (request.mode === "grep" && request.pattern === undefined) {
                return toolError("invalid_args", 'mode "grep" needs a pattern (a JS regex).');
            }
            try {
                if (input.wait === undefined) {
                    return toolOk(details(table.read(input.id, request), undefined, request));
                }
                const waited = await table.wait(
                    input.id,
                    {
                        until: input.wait,
                        timeoutMs: input.timeoutMs ?? PROCESS_WAIT_DEFAULT_MS,
                    },
                    ctx.signal
                );
                const read = request.mode === "new" ? waited : table.read(input.id, request);
                return toolOk(details(read, waited, request));
            } catch (error) {
                if (ctx.signal.aborted)
                    return toolError("cancelled", "The wait was cancelled by the user.");
                return processToolError(error, "The process could not be read");
            }
        },
    };
}
