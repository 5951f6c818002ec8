import { editOperations } from "./editing/files";
import type { EditToolOptions } from "./editing/run";
import { prepareSteps, stepFor } from "./editing/run";
import type { AnchorInsertArgs } from "./editing/schemas";
import { anchorInsertInput } from "./editing/schemas";
import type { PreparedWrite, ToolDefinition } from "./types";
import { editStatsSuffix, fileTitle } from "./display-text";

const DESCRIPTION =
    "Insert lines before the line containing anchor text. Several matching lines: the call fails and " +
    "lists them; pass occurrence.";

export function createEditBeforeAnchorTool(
    options: EditToolOptions = {}
): ToolDefinition<AnchorInsertArgs, PreparedWrite> {
    const ops = editOperations(options.ops);
    return {
        name: "edit_before_anchor",
        description: DESCRIPTION,
        input: anchorInsertInput,
        approvalPolicy: "write",
        readOnly: false,
        display: { title: fileTitle("Editing"), resultSuffix: editStatsSuffix },
        hookAliases: ["Edit"],
        execute: (input, ctx) =>
            prepareSteps(ctx, [stepFor({ tool: "edit_before_anchor", ...input })], ops),
    };
}
