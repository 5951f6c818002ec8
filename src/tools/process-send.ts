/**
 * process_send: input for a running background process: text, named keys,
 * end of input, or (askUser) a password the user types in a masked field
 * that goes to the process only. Reviewed like a command: the review shows
 * the program's command line and exactly what is typed; allow rules and
 * "always" judge the program's command line, deny rules also the typed text
 * when the program is a shell (typing `rm -rf /` into bash is a command).
 */
import { oneLine, str } from "./display-text";
import { digestNote, headTail, isRecord } from "./digest-text";
import { DIGEST_PROCESS_HEAD_LINES, DIGEST_PROCESS_TAIL_LINES } from "./limits";
import { processFields, processToolError } from "./processes/tool-errors";
import type { ProcessInput } from "./processes/types";
import type { ShellService } from "./shell-service";
import { type InputOf, toolInput } from "./tool-input";
import { type ShellApproval, type ToolDefinition, toolError, toolOk } from "./types";

export const processSendInput = toolInput((z) =>
    z.object({
        id: z.string({ error: 'id must be a process id such as "p1"' }),
        text: z.string().optional().describe('End a line with "\\n".'),
        keys: z
            .array(z.string(), { error: 'keys must be a list of key names, e.g. ["ctrl+c"]' })
            .optional()
            .describe('e.g. ["ctrl+c"]'),
        eof: z.boolean().optional(),
        askUser: z
            .boolean()
            .optional()
            .describe("Password prompt: the user types it in; never ask for it."),
    })
);

export type ProcessSendInput = InputOf<typeof processSendInput>;

const DESCRIPTION = "Send input to a running background process; returns its output after.";

/** Exactly what is typed, as one line for the review: the text quoted, then keys and EOF. */
export function typedDescription(
    input: Pick<ProcessSendInput, "text" | "keys" | "eof" | "askUser">
): string {
    if (input.askUser) return "the user's answer to its prompt (typed by the user, not shown)";
    const parts: string[] = [];
    if (input.text !== undefined && input.text !== "") parts.push(JSON.stringify(input.text));
    for (const key of input.keys ?? []) parts.push(`<${key}>`);
    if (input.eof) parts.push("<end of input>");
    return parts.join(" ");
}

export function createProcessSendTool(
    service: ShellService
): ToolDefinition<ProcessSendInput, Record<string, unknown>> {
    return {
        name: "process_send",
        description: DESCRIPTION,
        input: processSendInput,
        approvalPolicy: "shell",
        readOnly: false,
        // Its processes come from shell_run: where that is not offered, neither is this.
        offeredWith: "shell_run",
        // Typing into a program is running something: Bash hooks and a bare `Bash` rule apply.
        hookAliases: ["Bash"],
        display: {
            title: (args) => {
                const id = str(args.id);
                if (!id) return undefined;
                if (args.askUser === true) return `Asking you to answer ${id}'s prompt`;
                const keys = Array.isArray(args.keys)
                    ? args.keys.filter((k) => typeof k === "string")
                    : [];
                const typed = typedDescription({
                    text: str(args.text),
                    keys,
                    eof: args.eof === true,
                });
                return `Typing into ${id}: ${oneLine(typed, 50)}`;
            },
            resultDetail: (data) => {
                if (!isRecord(data) || typeof data.output !== "string") return [];
                return data.output === "" ? [] : data.output.split("\n").slice(-4);
            },
        },
        digest(data, _input, keep) {
            // A screen is bounded (rows × cols) and already folded: it is never cut.
            if (typeof data.output !== "string" || data.screen === true) return data;
            const cut = headTail(data.output, DIGEST_PROCESS_HEAD_LINES, DIGEST_PROCESS_TAIL_LINES);
            if (!cut) return data;
            const id = keep(data);
            return {
                ...data,
                output: cut.text,
                ...digestNote(
                    id,
                    `Showing the first and last lines; ${cut.omitted} lines omitted.`
                ),
            };
        },
        approval(input): ShellApproval {
            const typed = typedDescription(input);
            const process = service.processes?.get(input.id);
            if (!process) {
                // Nothing to type into: the call fails without touching anything.
                return {
                    summary: `Type into ${input.id} (not found): ${typed}`,
                    rememberKey: "process_send",
                };
            }
            return {
                summary: `Type into ${input.id} \`${oneLine(process.command, 80)}\`: ${typed}`,
                rememberKey: process.command,
                command: process.command,
                cwd: process.cwd,
                ...(process.sandboxed && service.sandbox ? { sandbox: service.sandbox } : {}),
                typed: { text: input.askUser ? "" : (input.text ?? "") },
            };
        },
        async execute(input, ctx) {
            const table = service.processes;
            if (!table)
                return toolError("io_error", "Background processes are not available here.");
            try {
                const process = table.get(input.id);
                if (input.askUser) {
                    if (!process || process.state !== "running") {
                        await table.send(input.id, {}); // the table's own error says why
                    }
                    if (!ctx.requestSecret) {
                        return toolError(
                            "io_error",
                            "No one can answer a prompt here (no interactive user); nothing was sent."
                        );
                    }
                    const prompt =
                        (await table.secretPrompt(input.id)) ??
                        table.read(input.id, { mode: "tail", lines: 1, reader: "view" }).text;
                    const answer = await ctx.requestSecret(process!, prompt);
                    const after = table.read(input.id, { mode: "new" });
                    return toolOk({
                        ...processFields(after.process),
                        answered: answer === "sent",
                        note:
                            answer === "sent"
                                ? "The user typed the answer (not shown to you)."
                                : "The user declined to answer; nothing was sent.",
                        output: after.text,
                    });
                }
                const sent: ProcessInput = {};
                if (input.text !== undefined) sent.text = input.text;
                if (input.keys !== undefined) sent.keys = input.keys;
                if (input.eof) sent.eof = true;
                if (sent.text === undefined && sent.keys === undefined && !sent.eof) {
                    return toolError(
                        "invalid_args",
                        "Nothing to send: give text, keys, eof or askUser."
                    );
                }
                // A password is the user's to type: the model's text never goes into its prompt.
                const secretPrompt = sent.text ? await table.secretPrompt(input.id) : undefined;
                if (secretPrompt !== undefined) {
                    return toolError(
                        "invalid_args",
                        `${input.id} waits for a password ("${secretPrompt}"); nothing was sent. ` +
                            "Call process_send with askUser: true so the user types it; never type a password yourself."
                    );
                }
                await table.send(input.id, sent);
                const after = table.read(input.id, { mode: "new" });
                const result: Record<string, unknown> = {
                    ...processFields(after.process),
                    output: after.text,
                };
                if (after.screen) result.screen = true;
                if (after.cursor) result.cursor = after.cursor;
                return toolOk(result);
            } catch (error) {
                return processToolError(error, "The input could not be sent");
            }
        },
    };
}
