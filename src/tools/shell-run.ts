/**
 * shell_run: one bash command in the project, after the user's approval (the engine
 * asks before `execute`; this file never does). A timed-out or cancelled command is
 * still a successful result: the flags are set and the output so far is what the
 * model needs to decide what to do next.
 */
import * as z from "zod";
import { DEFAULT_SHELL_TIMEOUT_MS, type ShellRunResult, type ShellService } from "./shell-service";
import { type ToolDefinition, toolError, toolOk } from "./types";

export const SHELL_MIN_TIMEOUT_MS = 1_000;
export const SHELL_MAX_TIMEOUT_MS = 600_000;

const TIMEOUT_HINT = `timeoutMs must be a whole number of milliseconds from ${SHELL_MIN_TIMEOUT_MS} to ${SHELL_MAX_TIMEOUT_MS} (10 minutes); omit it for the default of ${DEFAULT_SHELL_TIMEOUT_MS}`;

export const shellRunInput = z.object({
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
});

export type ShellRunInput = z.infer<typeof shellRunInput>;

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

export function createShellRunTool(
    service: ShellService
): ToolDefinition<ShellRunInput, ShellRunDetails> {
    return {
        name: "shell_run",
        description: DESCRIPTION,
        input: shellRunInput,
        approvalPolicy: "shell",
        readOnly: false,
        async execute(input, ctx) {
            try {
                const result = await service.run(input.command, {
                    timeoutMs: input.timeoutMs ?? DEFAULT_SHELL_TIMEOUT_MS,
                    signal: ctx.signal,
                });
                return toolOk({ command: input.command, ...result });
            } catch (error) {
                return toolError(
                    "io_error",
                    `The command could not run: ${(error as Error).message}`
                );
            }
        },
    };
}
