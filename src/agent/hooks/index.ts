/** Hooks in Claude Code's settings schema: load them once, run them per event. */
export { loadHookSettings, parseHookSettings, type LoadedHookSettings } from "./settings";
export {
    DEFAULT_HOOK_TIMEOUT_MS,
    hasHooks,
    matcherMatches,
    matchingHooks,
    runHooks,
    type RunHooksOptions,
    type ToolAliases,
    toolAliasesOf,
} from "./run";
export * from "./types";
