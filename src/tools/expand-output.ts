import { type InputOf, toolInput } from "./tool-input";
import { type ToolDefinition, toolError, toolOk } from "./types";
import { NAME_ONLY_DISPLAY } from "./display-text";

const input = toolInput((z) =>
    z.object({
        outputId: z.string().min(1).describe('The outputId from a digested result, e.g. "out-3".'),
    })
);

/** `expand_output`: the full version of a digested tool output of the current user message. */
export function createExpandOutputTool(
    lookup: (outputId: string) => unknown
): ToolDefinition<InputOf<typeof input>, unknown> {
    return {
        name: "expand_output",
        description:
            "Return the full output of an earlier tool result that was digested (it carries outputId and digestNote). Outputs are kept only until the next user message. Prefer a narrower call (a line range, a more specific query) when you need only part of it.",
        input,
        approvalPolicy: "none",
        readOnly: true,
        display: NAME_ONLY_DISPLAY,
        async execute({ outputId }) {
            const full = lookup(outputId);
            if (full === undefined) {
                return toolError(
                    "not_found",
                    `no output "${outputId}": the id is unknown or expired (outputs are kept only until the next user message). Run the original tool again.`
                );
            }
            return toolOk(full);
        },
    };
}
