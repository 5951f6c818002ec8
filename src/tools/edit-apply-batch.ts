import { editOperations } from "./editing/files";
import type { EditToolOptions } from "./editing/run";
import { prepareSteps, stepFor } from "./editing/run";
import type { ApplyBatchArgs } from "./editing/schemas";
import { applyBatchInput } from "./editing/schemas";
import type { PreparedWrite, ToolDefinition } from "./types";
import { appliedFiles, asArgs, baseName, editStatsSuffix, str } from "./display-text";

const DESCRIPTION =
    "Apply several edits across files as one all-or-nothing change. Each item is {tool, ...that tool's " +
    "arguments}; edits to one file apply in order. If any fails, nothing changes.";

const BATCH_TOOLS = [
    "edit_replace_exact",
    "edit_insert_at_line",
    "edit_after_anchor",
    "edit_before_anchor",
    "edit_replace_block",
    "edit_by_anchor",
    "edit_create_file",
];

/** Items are validated against each tool's schema at run time; the model sees the short form. */
const BATCH_JSON_SCHEMA = {
    type: "object",
    properties: {
        edits: {
            type: "array",
            minItems: 1,
            maxItems: 100,
            items: {
                type: "object",
                properties: { tool: { type: "string", enum: BATCH_TOOLS } },
                required: ["tool"],
                additionalProperties: true,
            },
        },
    },
    required: ["edits"],
};

/** "Editing a.ts" when every edit is to one file, else "Editing 3 files". */
function batchTitle(paths: unknown[]): string {
    const files = new Set(paths.map(str).filter(Boolean));
    if (files.size === 1) return `Editing ${baseName([...files][0] as string)}`;
    return `Editing ${files.size} files`;
}

export function createEditApplyBatchTool(
    options: EditToolOptions = {}
): ToolDefinition<ApplyBatchArgs, PreparedWrite> {
    const ops = editOperations(options.ops);
    return {
        name: "edit_apply_batch",
        description: DESCRIPTION,
        inputJsonSchema: BATCH_JSON_SCHEMA,
        input: applyBatchInput,
        approvalPolicy: "write",
        readOnly: false,
        display: {
            title: (args) =>
                batchTitle(Array.isArray(args.edits) ? args.edits.map((e) => asArgs(e).path) : []),
            titleAfterResult: (title, details) => {
                const files = appliedFiles(details);
                if (!files) return title;
                if (files.length === 1 && files[0]) return `Editing ${baseName(files[0].path)}`;
                return `Editing ${files.length} files`;
            },
            resultSuffix: editStatsSuffix,
        },
        hookAliases: ["Edit", "MultiEdit"],
        execute: (input, ctx) => prepareSteps(ctx, input.edits.map(stepFor), ops),
    };
}
