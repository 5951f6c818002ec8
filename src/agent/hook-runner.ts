import type { Logger } from "../storage/logger";
import type { EngineEvent } from "./events";
import {
    type HookEvent,
    type HookEventInputs,
    type HookInput,
    type HookOutcome,
    type HookSettings,
    type ToolAliases,
    hasHooks,
    runHooks,
} from "./hooks/index";

/** Runs the hooks of one event; null when none match (nothing is spawned then). */
export type HookRunner = <E extends HookEvent>(
    event: E,
    input: HookEventInputs[E],
    signal?: AbortSignal,
    target?: string
) => Promise<HookOutcome | null>;

export interface HookRunnerOptions {
    settings: HookSettings;
    sessionId: string;
    repoRoot: string;
    /** Kept from hook commands' environment (provider keys); default the built-in ones. */
    hiddenEnv?: readonly string[];
    /** Hook commands' base environment; default `process.env`. */
    env?: NodeJS.ProcessEnv;
    emit: (event: EngineEvent) => void;
    logger: Logger;
    /** Claude Code's names for the session's tools (`Bash`, `Edit`…), from their definitions. */
    toolAliases: ToolAliases;
}

/**
 * A session's hook runner: hooks' warnings and messages reach the user as
 * warning events, their runs the log.
 */
export function createHookRunner(options: HookRunnerOptions): HookRunner {
    const { settings } = options;
    return async (event, input, signal, target) => {
        if (!hasHooks(settings, event, target, options.toolAliases)) return null;
        const outcome = await runHooks(
            settings,
            event,
            { session_id: options.sessionId, ...input } as HookInput<typeof event>,
            {
                cwd: options.repoRoot,
                signal,
                hiddenEnv: options.hiddenEnv,
                env: options.env,
                toolAliases: options.toolAliases,
            }
        );
        for (const message of [...outcome.warnings, ...outcome.systemMessages]) {
            options.emit({ type: "warning", message: `${event} hook: ${message}` });
        }
        for (const run of outcome.runs) options.logger.info("hook_run", { event, ...run });
        return outcome;
    };
}
