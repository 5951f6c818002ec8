import { type InputOf, toolInput } from "./tool-input";
import { editOperations } from "./editing/files";
import { prepareSteps } from "./editing/run";
import type { PreparedWrite, ToolDefinition } from "./types";
import { toolError, toolOk } from "./types";
import { asArgs, editStatsSuffix, oneLine, str } from "./display-text";
import { PROJECT_MEMORY_INDEX, newMemoryIndexText, noteFault, noteLine } from "../util/memory-note";

const input = toolInput((z) => z.object({ note: z.string() }));

/**
 * `remember`: saves a note the user asked the model to keep, as one line of
 * the project memory's index. It is a change to the project's `.north/`, so
 * the user reviews it like any edit of North's configuration (a note in
 * memory reaches every later conversation).
 */
export function createRememberTool(): ToolDefinition<InputOf<typeof input>, PreparedWrite> {
    const ops = editOperations();
    return {
        name: "remember",
        description:
            "Save a short note to project memory when the user asks you to remember something; later conversations see it.",
        input,
        approvalPolicy: "write",
        readOnly: false,
        display: {
            title: (args) => {
                const note = str(asArgs(args).note);
                return note ? `Remembering "${oneLine(note, 50)}"` : undefined;
            },
            resultSuffix: editStatsSuffix,
        },
        hookAliases: ["Edit"],
        async execute({ note }, ctx) {
            const fault = noteFault(note);
            if (fault && "empty" in fault)
                return toolError("invalid_args", "note is empty: say what to remember.");
            if (fault) {
                return toolError(
                    "input_too_large",
                    `note is ${fault.tooLong} characters; memory keeps notes of at most ${fault.max}. Save the gist.`
                );
            }
            return prepareSteps(
                ctx,
                [
                    {
                        tool: "remember",
                        path: PROJECT_MEMORY_INDEX,
                        mustExist: false,
                        run: (file) => {
                            const nl = file.exists ? file.doc.eol : "\n";
                            const before = file.exists ? file.doc.text : newMemoryIndexText(nl);
                            const sep = before === "" || before.endsWith("\n") ? "" : nl;
                            const text = `${before}${sep}${noteLine(note, nl)}`;
                            return toolOk({ text, line: text.split("\n").length - 1 });
                        },
                    },
                ],
                ops
            );
        },
    };
}
