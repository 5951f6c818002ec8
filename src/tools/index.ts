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
import { createExpandOutputTool } from "./expand-output";
import type { ShellService } from "./shell-service";
import { createShellRunTool } from "./shell-run";
import { createProcessReadTool } from "./process-read";
import { createProcessSendTool } from "./process-send";
import { createProcessStopTool } from "./process-stop";
import { type WebFetchOptions, createWebFetchTool } from "./web-fetch";
import { createTodoWriteTool } from "./todo-write";
import { createRememberTool } from "./remember";
import { createLspTool } from "./lsp-tool";
import { createLspRenameTool } from "./lsp-rename-tool";
import type { LanguageService } from "./lsp/types";
import type { AnyToolDefinition } from "./types";
import type { ClientFiles } from "./client-workspace";
import { clientEditOperations } from "./editing/client-operations";
import { withPrebuiltSchemas } from "./builtin-schemas";

export { createToolRegistry, type ToolRegistry } from "./registry";

export interface ReadToolsOptions {
    /** Passed to search_text (e.g. `{ ripgrepPath: null }` to never use ripgrep). */
    search?: SearchTextOptions;
    /**
     * The editor's files (ACP): read_file and read_around read its buffers;
     * searches, listings, outlines and symbols read the disk.
     */
    files?: ClientFiles;
}

/** The read-only tools (all of ask mode's but expand_output, which needs the session's cache). */
export function createReadTools(options: ReadToolsOptions = {}): AnyToolDefinition[] {
    return withPrebuiltSchemas([
        createListRootTool(),
        createFindFilesTool(),
        createSearchTextTool(options.search),
        createReadFileTool({ files: options.files }),
        createGetLineCountTool(),
        createGetFileSymbolsTool(),
        createGetFileOutlineTool(),
        createReadReadmeTool(),
        createDetectLanguagesTool(),
        createHotfilesTool(),
        createFindCodeBlockTool(),
        createReadAroundTool({ files: options.files }),
        createFindBlocksTool(),
    ]);
}

/**
 * The write tools: each prepares a change the engine reviews before it is
 * applied. With the editor's files (ACP), they read and write through it.
 */
export function createEditTools(files?: ClientFiles): AnyToolDefinition[] {
    const options = files ? { ops: clientEditOperations(files) } : {};
    return withPrebuiltSchemas([
        createEditReplaceExactTool(options),
        createEditInsertAtLineTool(options),
        createEditAfterAnchorTool(options),
        createEditBeforeAnchorTool(options),
        createEditReplaceBlockTool(options),
        createEditByAnchorTool(options),
        createEditCreateFileTool(options),
        createEditApplyBatchTool(options),
    ]);
}

export interface BuiltinToolDeps extends ReadToolsOptions {
    /** The conversation's digested outputs, for expand_output. */
    expandOutput: (outputId: string) => unknown;
    /** Runs shell_run's commands and holds the background processes the process tools work with. */
    shell: ShellService;
    /** web_fetch's proxy and private-network settings. */
    webFetch?: WebFetchOptions;
    /**
     * The session's language servers: with some server binary found, lsp and
     * lsp_rename are offered from the start (the tool list never changes mid-session).
     */
    languages?: LanguageService;
}

/**
 * Every built-in tool, in the order the model sees them. A new tool is its
 * file plus one line in `createReadTools`, `createEditTools` or here; all it
 * needs elsewhere (display, digest, approval, hook names) is on its definition.
 */
export function createBuiltinTools(deps: BuiltinToolDeps): AnyToolDefinition[] {
    const { languages } = deps;
    const navigation = languages?.hasServers() ? { languages } : undefined;
    return withPrebuiltSchemas([
        ...createReadTools({ search: deps.search, files: deps.files }),
        ...(navigation ? [createLspTool(navigation)] : []),
        createExpandOutputTool(deps.expandOutput),
        createTodoWriteTool(),
        createRememberTool(),
        ...createEditTools(deps.files),
        ...(navigation ? [createLspRenameTool(navigation)] : []),
        createShellRunTool(deps.shell),
        createProcessReadTool(deps.shell),
        createProcessSendTool(deps.shell),
        createProcessStopTool(deps.shell),
        createWebFetchTool(deps.webFetch),
    ]);
}
