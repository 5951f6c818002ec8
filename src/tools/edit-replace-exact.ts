import { editOperations } from "./editing/files";
import type { EditToolOptions } from "./editing/run";
import { prepareSteps, stepFor } from "./editing/run";
import type { ReplaceExactArgs } from "./editing/schemas";
import { replaceExactInput } from "./editing/schemas";
import type { PreparedWrite, ToolDefinition } from "./types";
import { editStatsSuffix, fileTitle } from "./display-text";

const DESCRIPTION =
    "Replace one piece of text in a file. old_text must match exactly (copied from read_file, without line " +
    "numbers) and be unique: include surrounding lines or pass occurrence. Without an exact match, a unique " +
    "match ignoring line endings, trailing whitespace, indentation or typographic quotes is used and " +
    "reported; else the candidates are listed.";

export function createEditReplaceExactTool(
    options: EditToolOptions = {}
): ToolDefinition<ReplaceExactArgs, PreparedWrite> {
    const ops = editOperations(options.ops);
    return {
        name: "edit_replace_exact",
        description: DESCRIPTION,
        input: replaceExactInput,
        approvalPolicy: "write",
        readOnly: false,
        display: { title: fileTitle("Editing"), resultSuffix: editStatsSuffix },
        hookAliases: ["Edit"],
        execute: (input, ctx) =>
            prepareSteps(ctx, [stepFor({ tool: "edit_replace_exact", ...input })], ops),
    };
}
