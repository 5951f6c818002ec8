/**
 * How a session's tool calls read in a front-end: the `display` on each
 * definition of the run's registry (MCP and skill tools included), then the
 * engine's own calls that are not in it. The engine host hands this to a
 * front-end once; nothing else keeps a copy of the tools.
 */
import type { ToolDisplay } from "../tools/types";
import { PROPOSE_PLAN_DISPLAY, PROPOSE_PLAN_TOOL } from "./plan";
import { TASK_DISPLAY, TASK_TOOL } from "./subagent-display";

/** A tool's display by name; undefined: the call reads as its name. */
export type ToolDisplays = (name: string) => ToolDisplay | undefined;

/** Calls the loop answers itself; `task` too, for a stored conversation of a session without it. */
const ENGINE_DISPLAYS: ReadonlyMap<string, ToolDisplay> = new Map([
    [PROPOSE_PLAN_TOOL, PROPOSE_PLAN_DISPLAY],
    [TASK_TOOL, TASK_DISPLAY],
]);

/** Read from the registry at each call, so tools an MCP server adds later read right too. */
export function toolDisplaysOf(tools: {
    list(): ReadonlyArray<{ name: string; display?: ToolDisplay }>;
}): ToolDisplays {
    return (name) =>
        tools.list().find((tool) => tool.name === name)?.display ?? ENGINE_DISPLAYS.get(name);
}
