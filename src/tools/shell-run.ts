/**
 * shell_run: one bash command in the project, after the user's approval (the engine
 * asks before `execute`; this file never does). A timed-out or cancelled command is
 * still a successful result: the flags are set and the output so far is what the
 * model needs to decide what to do next.
 */
import { type InputOf, toolInput } from "./tool-input";
import { DEFAULT_SHELL_TIMEOUT_MS, type ShellRunResult, type ShellService } from "./shell-service";
import { type ToolDefinition, toolError, toolOk } from "./types";
import { oneLine, str } from "./display-text";
import { digestNote, headTail, isRecord } from "./digest-text";
import { DIGEST_SHELL_HEAD_LINES, DIGEST_SHELL_TAIL_LINES } from "./limits";
import { SandboxUnavailableError } from "./sandbox/command-sandbox";

export const SHELL_MIN_TIMEOUT_MS = 1_000;
export const SHELL_MAX_TIMEOUT_MS = 600_000;

const TIMEOUT_HINT = `timeoutMs must be a whole number of milliseconds from ${SHELL_MIN_TIMEOUT_MS} to ${SHELL_MAX_TIMEOUT_MS} (10 minutes); omit it for the default of ${DEFAULT_SHELL_TIMEOUT_MS}`;

export const shellRunInput = toolInput((z) =>
    z.object({
        command: z
            .string({
                error: 'command must be a string holding the bash command to run, e.g. "npm test"',
            })
            .refine((value) => value.trim() !== "", {
                error: 'command is empty; pass the bash command to run, e.g. "npm test"',
            })
            .describe("The bash command line to run (pipes, &&, redirections and cd all work)."),
        timeoutMs: z
            .number({ error: TIMEOUT_HINT })
            .int({ error: TIMEOUT_HINT })
            .min(SHELL_MIN_TIMEOUT_MS, { error: TIMEOUT_HINT })
            .max(SHELL_MAX_TIMEOUT_MS, { error: TIMEOUT_HINT })
            .optional()
            .describe(
                `Milliseconds before the command is killed; default ${DEFAULT_SHELL_TIMEOUT_MS}, at most ${SHELL_MAX_TIMEOUT_MS}.`
            ),
    })
);

export type ShellRunInput = InputOf<typeof shellRunInput>;

/** What shell_run returns: the command as run plus the service's result. */
export interface ShellRunDetails extends ShellRunResult {
    command: string;
}

const DESCRIPTION = [
    "Run a bash command in the project; returns exit code and output (stdout and stderr merged).",
    "The working directory persists between calls (cd holds) and stays inside the project.",
    `Timeout ${DEFAULT_SHELL_TIMEOUT_MS / 1000} s by default, up to 10 min via timeoutMs; then the command and its children are killed.`,
    "stdin is closed: nothing interactive, no servers or watchers. Output keeps the first and last 64 KB: filter with grep/head/tail.",
    "Prefer the file tools for reading and editing.",
].join(" ");

/** Lines of output a finished command shows until expanded. */
export const SHELL_DETAIL_LINES = 4;
/** At most this many lines in the expanded view (the end of the output is kept). */
const SHELL_EXPANDED_LINES = 500;

/** Lines under a finished command: exit status and the end of its output. */
export function shellDetail(details: unknown, maxLines = SHELL_DETAIL_LINES): string[] {
    const d = details as {
        exitCode?: number | null;
        output?: string;
        timedOut?: boolean;
        cancelled?: boolean;
        durationMs?: number;
    } | null;
    if (!d || typeof d !== "object") return [];
    const status = d.timedOut
        ? "timed out"
        : d.cancelled
          ? "cancelled"
          : d.exitCode === null || d.exitCode === undefined
            ? "killed"
            : `exit ${d.exitCode}`;
    const seconds =
        typeof d.durationMs === "number" ? ` · ${(d.durationMs / 1000).toFixed(1)}s` : "";
    const output = (d.output ?? "").replace(/\s+$/, "");
    const tail = output === "" ? [] : output.split("\n").slice(-maxLines);
    return [`${status}${seconds}`, ...tail];
}

export function createShellRunTool(
    service: ShellService
): ToolDefinition<ShellRunInput, ShellRunDetails> {
    return {
        name: "shell_run",
        description: service.sandbox
            ? `${DESCRIPTION} Commands run in an OS sandbox: ${service.sandbox}.`
            : DESCRIPTION,
        input: shellRunInput,
        approvalPolicy: "shell",
        readOnly: false,
        display: {
            title: (args) => {
                const command = str(args.command);
                return command ? `Running ${oneLine(command)}` : undefined;
            },
            resultDetail: (details, full) =>
                shellDetail(details, full ? SHELL_EXPANDED_LINES : SHELL_DETAIL_LINES),
            resultStatus: (details) => {
                const d = details as Partial<ShellRunDetails> | null;
                if (!d || typeof d !== "object") return undefined;
                if (d.cancelled) return "cancelled";
                return d.timedOut || d.exitCode !== 0 ? "failed" : undefined;
            },
        },
        digest(data, _input, keep) {
            if (!isRecord(data) || typeof data.output !== "string") return data;
            const cut = headTail(data.output, DIGEST_SHELL_HEAD_LINES, DIGEST_SHELL_TAIL_LINES);
            if (!cut) return data;
            const id = keep(data);
            return {
                ...data,
                output: cut.text,
                ...digestNote(
                    id,
                    `Showing the first ${DIGEST_SHELL_HEAD_LINES} and last ${DIGEST_SHELL_TAIL_LINES} lines of output; ${cut.omitted} lines omitted.`
                ),
            };
        },
        approval: ({ command }) => ({
            summary: command,
            rememberKey: command,
            command,
            cwd: service.cwd || undefined,
            sandbox: service.sandbox,
        }),
        hookAliases: ["Bash"],
        async execute(input, ctx) {
            try {
                const result = await service.run(input.command, {
                    timeoutMs: input.timeoutMs ?? DEFAULT_SHELL_TIMEOUT_MS,
                    signal: ctx.signal,
                    onOutput: ctx.onOutput,
                });
                return toolOk({ command: input.command, ...result });
            } catch (error) {
                if (error instanceof SandboxUnavailableError) {
                    return toolError("sandbox_unavailable", `Nothing was run: ${error.message}`);
                }
                return toolError(
                    "io_error",
                    `The command could not run: ${(error as Error).message}`
                );
            }
        },
    };
}
