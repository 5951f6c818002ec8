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
