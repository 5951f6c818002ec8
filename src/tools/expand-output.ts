import { type InputOf, toolInput } from "./tool-input";
import { type ToolDefinition, toolError, toolOk } from "./types";
import { NAME_ONLY_DISPLAY } from "./display-text";

const input = toolInput((z) =>
    z.object({
        outputId: z.string().min(1).describe('e.g. "out-3"'),
    })
);

/** `expand_output`: the full version of a digested tool output of the current user message. */
export function createExpandOutputTool(
    lookup: (outputId: string) => unknown
): ToolDefinition<InputOf<typeof input>, unknown> {
    return {
        name: "expand_output",
        description:
            "The full output of a digested result (one with outputId), kept until the next user message.",
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
