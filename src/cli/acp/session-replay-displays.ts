/**
 * How a loaded conversation's tool calls read before its session's tools
 * exist: session/load replays without starting the engine (which would ask
 * the trust question before the editor has the session), so the built-in
 * tools are made here only to read their displays. MCP and skill calls read
 * as their names, as the tools that made them are not started.
 */
import { type ToolDisplays, toolDisplaysOf } from "../../agent/tool-displays";
import { createBuiltinTools } from "../../tools/index";
import type { LanguageService } from "../../tools/lsp/types";
import type { ShellService } from "../../tools/shell-service";

function runsNothing(): never {
    throw new Error("a replay runs no tools");
}

/** Services the display-only tools are made with: nothing calls them. */
const idleShell: ShellService = { run: runsNothing, cwd: "", dispose: () => undefined };
const idleLanguages: LanguageService = {
    status: () => [],
    // So the lsp tools are made, and their calls read as they did live.
    hasServers: () => true,
    handles: () => false,
    serverFor: runsNothing,
    running: () => [],
    diagnostics: runsNothing,
    dispose: () => Promise.resolve(),
};

/** Made per load (a load replays once): the tools hold nothing but their definitions. */
export function replayToolDisplays(): ToolDisplays {
    const tools = createBuiltinTools({
        expandOutput: runsNothing,
        shell: idleShell,
        languages: idleLanguages,
    });
    return toolDisplaysOf({ list: () => tools });
}
