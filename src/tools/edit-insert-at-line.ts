import { editOperations } from "./editing/files";
import type { EditToolOptions } from "./editing/run";
import { prepareSteps, stepFor } from "./editing/run";
import type { InsertAtLineArgs } from "./editing/schemas";
import { insertAtLineInput } from "./editing/schemas";
import type { PreparedWrite, ToolDefinition } from "./types";
import { editStatsSuffix, fileTitle } from "./display-text";

const DESCRIPTION =
    "Insert lines before a 1-based line; line count + 1 appends. Line numbers go stale after other " +
    "edits: prefer edit_after_anchor / edit_before_anchor.";

export function createEditInsertAtLineTool(
    options: EditToolOptions = {}
): ToolDefinition<InsertAtLineArgs, PreparedWrite> {
    const ops = editOperations(options.ops);
    return {
        name: "edit_insert_at_line",
        description: DESCRIPTION,
        input: insertAtLineInput,
        approvalPolicy: "write",
        readOnly: false,
        display: { title: fileTitle("Editing"), resultSuffix: editStatsSuffix },
        hookAliases: ["Edit"],
        execute: (input, ctx) =>
            prepareSteps(ctx, [stepFor({ tool: "edit_insert_at_line", ...input })], ops),
    };
}
