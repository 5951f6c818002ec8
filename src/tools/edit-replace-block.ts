import { editOperations } from "./editing/files";
import type { EditToolOptions } from "./editing/run";
import { prepareSteps, stepFor } from "./editing/run";
import type { ReplaceBlockArgs } from "./editing/schemas";
import { replaceBlockInput } from "./editing/schemas";
import type { PreparedWrite, ToolDefinition } from "./types";
import { editStatsSuffix, fileTitle } from "./display-text";

const DESCRIPTION =
    "Replace the lines between the line containing start_anchor and the next line containing end_anchor; " +
    "the anchor lines stay unless inclusive; empty content deletes. Several start_anchor lines: the call " +
    "lists them; pass occurrence.";

export function createEditReplaceBlockTool(
    options: EditToolOptions = {}
): ToolDefinition<ReplaceBlockArgs, PreparedWrite> {
    const ops = editOperations(options.ops);
    return {
        name: "edit_replace_block",
        description: DESCRIPTION,
        input: replaceBlockInput,
        approvalPolicy: "write",
        readOnly: false,
        display: { title: fileTitle("Editing"), resultSuffix: editStatsSuffix },
        hookAliases: ["Edit"],
        execute: (input, ctx) =>
            prepareSteps(ctx, [stepFor({ tool: "edit_replace_block", ...input })], ops),
    };
}
