import { editOperations } from "./editing/files";
import type { EditToolOptions } from "./editing/run";
import { prepareSteps, stepFor } from "./editing/run";
import type { ByAnchorArgs } from "./editing/schemas";
import { byAnchorInput } from "./editing/schemas";
import type { PreparedWrite, ToolDefinition } from "./types";
import { editStatsSuffix, fileTitle } from "./display-text";

const DESCRIPTION =
    "Edit at the line containing anchor text. mode: insert_before / insert_after that line; replace_line " +
    "(empty content deletes it); replace_between (the lines between anchor and the next line containing " +
    "anchor_end; inclusive replaces both anchor lines too). Several matching lines: the call lists them; " +
    "pass occurrence.";

export function createEditByAnchorTool(
    options: EditToolOptions = {}
): ToolDefinition<ByAnchorArgs, PreparedWrite> {
    const ops = editOperations(options.ops);
    return {
        name: "edit_by_anchor",
        description: DESCRIPTION,
        input: byAnchorInput,
        approvalPolicy: "write",
        readOnly: false,
        display: { title: fileTitle("Editing"), resultSuffix: editStatsSuffix },
        hookAliases: ["Edit"],
        execute: (input, ctx) =>
            prepareSteps(ctx, [stepFor({ tool: "edit_by_anchor", ...input })], ops),
    };
}
