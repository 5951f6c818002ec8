import { createEditAfterAnchorTool } from "./edit-after-anchor";
import { createEditApplyBatchTool } from "./edit-apply-batch";
import { createEditBeforeAnchorTool } from "./edit-before-anchor";
import { createEditByAnchorTool } from "./edit-by-anchor";
import { createEditCreateFileTool } from "./edit-create-file";
import { createEditInsertAtLineTool } from "./edit-insert-at-line";
import { createEditReplaceBlockTool } from "./edit-replace-block";
import { createEditReplaceExactTool } from "./edit-replace-exact";
import { createDetectLanguagesTool } from "./detect-languages";
import { createFindBlocksTool } from "./find-blocks";
import { createFindCodeBlockTool } from "./find-code-block";
import { createFindFilesTool } from "./find-files";
import { createGetFileOutlineTool } from "./get-file-outline";
import { createGetFileSymbolsTool } from "./get-file-symbols";
import { createGetLineCountTool } from "./get-line-count";
import { createHotfilesTool } from "./hotfiles";
import { createReadAroundTool } from "./read-around";
import { createReadReadmeTool } from "./read-readme";
import { createListRootTool } from "./list-root";
import { createReadFileTool } from "./read-file";
import { type SearchTextOptions, createSearchTextTool } from "./search-text";
import type { AnyToolDefinition } from "./types";

export { createToolRegistry, type ToolRegistry } from "./registry";

export interface ReadToolsOptions {
    /** Passed to search_text (e.g. `{ ripgrepPath: null }` to never use ripgrep). */
    search?: SearchTextOptions;
}

/** The read-only tools (all of ask mode's but expand_output, which needs the session's cache). */
export function createReadTools(options: ReadToolsOptions = {}): AnyToolDefinition[] {
    return [
        createListRootTool(),
        createFindFilesTool(),
        createSearchTextTool(options.search),
        createReadFileTool(),
        createGetLineCountTool(),
        createGetFileSymbolsTool(),
        createGetFileOutlineTool(),
        createReadReadmeTool(),
        createDetectLanguagesTool(),
        createHotfilesTool(),
        createFindCodeBlockTool(),
        createReadAroundTool(),
        createFindBlocksTool(),
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
