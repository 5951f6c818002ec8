import { editOperations } from "./editing/files";
import type { EditToolOptions } from "./editing/run";
import { prepareSteps, stepFor } from "./editing/run";
import type { ApplyBatchArgs } from "./editing/schemas";
import { applyBatchInput } from "./editing/schemas";
import type { PreparedWrite, ToolDefinition } from "./types";

const DESCRIPTION =
    "Apply several edits, across one or more files, as one change: all or nothing. Each item is " +
    "{tool, ...that tool's arguments} where tool is edit_replace_exact, edit_insert_at_line, edit_after_anchor, " +
    "edit_before_anchor, edit_replace_block, edit_by_anchor or edit_create_file. Edits to the same file apply in " +
    "order, each to the result of the previous. If any edit fails, no file changes and the error names it. " +
    "The user reviews all diffs at once.";

export function createEditApplyBatchTool(
    options: EditToolOptions = {}
): ToolDefinition<ApplyBatchArgs, PreparedWrite> {
    const ops = editOperations(options.ops);
    return {
        name: "edit_apply_batch",
        description: DESCRIPTION,
        input: applyBatchInput,
        approvalPolicy: "write",
        readOnly: false,
        execute: (input, ctx) => prepareSteps(ctx, input.edits.map(stepFor), ops),
    };
}
