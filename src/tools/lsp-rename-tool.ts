/**
 * lsp_rename: renames a symbol everywhere the language server knows it is
 * used, as one prepared write across files — reviewed like any edit,
 * checkpointed when applied, never offered in ask mode.
 */
import { baseName, editStatsSuffix, str } from "./display-text";
import { editOperations } from "./editing/files";
import type { EditToolOptions } from "./editing/run";
import { type NavigationDeps, callSignal } from "./lsp/navigate-target";
import { prepareRename } from "./lsp/rename";
import { type InputOf, toolInput } from "./tool-input";
import type { PreparedWrite, ToolDefinition } from "./types";

const input = toolInput((z) =>
    z.object({
        path: z.string(),
        line: z.number().int(),
        symbol: z.string().optional(),
        column: z.number().int().optional(),
        new_name: z.string(),
    })
);

export type LspRenameInput = InputOf<typeof input>;

export function createLspRenameTool(
    deps: NavigationDeps,
    options: EditToolOptions = {}
): ToolDefinition<LspRenameInput, PreparedWrite> {
    const ops = editOperations(options.ops);
    return {
        name: "lsp_rename",
        description: "Rename a symbol project-wide via the language server (position as for lsp).",
        input,
        approvalPolicy: "write",
        readOnly: false,
        hookAliases: ["Edit"],
        display: {
            title: (args) => {
                const file = str(args.path);
                const from = str(args.symbol) ?? "symbol";
                const to = str(args.new_name);
                if (!file || !to) return undefined;
                return `Renaming ${from} to ${to} in ${baseName(file)}`;
            },
            resultSuffix: editStatsSuffix,
        },
        execute: (args, ctx) =>
            prepareRename(deps, ctx, callSignal(ctx, deps.timeoutMs), args, ops),
    };
}
