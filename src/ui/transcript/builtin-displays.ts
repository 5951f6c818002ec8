/**
 * What `loadToolDisplays` loads, as one split point: two separate `import()`s
 * would split the engine's shared code into more chunks for every run.
 */
export { builtinTool } from "../../tools/index";
export { PROPOSE_PLAN_DISPLAY, PROPOSE_PLAN_TOOL } from "../../agent/plan";
export { TASK_DISPLAY, TASK_TOOL } from "../../agent/subagent-display";
