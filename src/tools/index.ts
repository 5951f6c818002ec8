import { createEditAfterAnchorTool } from "./edit-after-anchor";
import { createEditApplyBatchTool } from "./edit-apply-batch";
import { createEditBeforeAnchorTool } from "./edit-before-anchor";
import { createEditByAnchorTool } from "./edit-by-anchor";
import { createEditCreateFileTool } from "./edit-create-file";
import { createEditInsertAtLineTool } from "./edit-insert-at-line";
import { createEditReplaceBlockTool } from "./edit-replace-block";
import { createEditReplaceExactTool } from "./edit-replace-exact";
import { createFindFilesTool } from "./find-files";
import { createListRootTool } from "./list-root";
import { createReadFileTool } from "./read-file";
import { type SearchTextOptions, createSearchTextTool } from "./search-text";
import type { AnyToolDefinition } from "./types";

export { createToolRegistry, type ToolRegistry } from "./registry";

export interface ReadToolsOptions {
    /** Passed to search_text (e.g. `{ ripgrepPath: null }` to never use ripgrep). */
    search?: SearchTextOptions;
}

/** The read-only tools: list_root, find_files, search_text, read_file. */
export function createReadTools(options: ReadToolsOptions = {}): AnyToolDefinition[] {
    return [
        createListRootTool(),
        createFindFilesTool(),
        createSearchTextTool(options.search),
        createReadFileTool(),
    ];
}

/** The write tools: each prepares a change the engine reviews before it is applied. */
export function createEditTools(): AnyToolDefinition[] {
    return [
        createEditReplaceExactTool(),
        createEditInsertAtLineTool(),
        createEditAfterAnchorTool(),
        createEditBeforeAnchorTool(),
        createEditReplaceBlockTool(),
        createEditByAnchorTool(),
        createEditCreateFileTool(),
        createEditApplyBatchTool(),
    ];
}
