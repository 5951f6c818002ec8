import { editOperations } from "./editing/files";
import type { EditToolOptions } from "./editing/run";
import { prepareSteps, stepFor } from "./editing/run";
import type { CreateFileArgs } from "./editing/schemas";
import { createFileInput } from "./editing/schemas";
import type { PreparedWrite, ToolDefinition } from "./types";
import { editStatsSuffix, fileTitle } from "./display-text";

const DESCRIPTION =
    "Create a file (and missing parent directories); fails if it exists unless overwrite. To change part " +
    "of a file use the other edit tools; write a long file as a NORTH_FILE block.";

export function createEditCreateFileTool(
    options: EditToolOptions = {}
): ToolDefinition<CreateFileArgs, PreparedWrite> {
    const ops = editOperations(options.ops);
    return {
        name: "edit_create_file",
        description: DESCRIPTION,
        input: createFileInput,
        approvalPolicy: "write",
        readOnly: false,
        display: { title: fileTitle("Creating"), resultSuffix: editStatsSuffix },
        hookAliases: ["Write"],
        execute: (input, ctx) =>
            prepareSteps(ctx, [stepFor({ tool: "edit_create_file", ...input })], ops),
    };
}
