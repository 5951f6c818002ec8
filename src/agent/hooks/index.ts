/** Hooks in Claude Code's settings schema: load them once, run them per event. */
export { loadHookSettings, parseHookSettings, type LoadedHookSettings } from "./settings";
export {
    CLAUDE_TOOL_ALIASES,
    DEFAULT_HOOK_TIMEOUT_MS,
    hasHooks,
    matcherMatches,
    matchingHooks,
    runHooks,
    type RunHooksOptions,
} from "./run";
export * from "./types";
