import type { EngineEvent, RunResult } from "../../src/agent/events";
import type { EngineHostPort, EngineOp, HostState } from "../../src/agent/protocol";
import type { RunOptions, SessionState } from "../../src/agent/session";
import { type ToolDisplays, toolDisplaysOf } from "../../src/agent/tool-displays";
import { createBuiltinTools } from "../../src/tools/index";
import type { ShellService } from "../../src/tools/shell-service";
import { EMPTY_USAGE } from "../../src/providers/types";
import {
    type TranscriptAction,
    type TranscriptState,
    createTranscriptState,
    transcriptReducer,
} from "../../src/ui/transcript/reducer";

export function runResult(subtype: RunResult["subtype"], error?: string): RunResult {
    return {
        subtype,
        isError: subtype !== "success",
        text: "",
        error,
        numTurns: 1,
        durationMs: 1,
        usage: { ...EMPTY_USAGE },
        costUsd: 0,
        toolCalls: [],
    };
}

export const ev = (event: EngineEvent): TranscriptAction => ({ type: "engine", event });

/** How a session's built-in tools read, as the engine hands the chat its registry's table. */
export const builtinDisplays: ToolDisplays = toolDisplaysOf({
    list: () => createBuiltinTools({ expandOutput: () => undefined, shell: {} as ShellService }),
});

/** Applies `actions` to `from`, or to a transcript that has the built-in tools' displays. */
export function reduce(actions: TranscriptAction[], from?: TranscriptState): TranscriptState {
    return actions.reduce(transcriptReducer, from ?? createTranscriptState(0, builtinDisplays));
}

/** Strips ANSI escapes. */
export const plain = (text: string): string =>
    // eslint-disable-next-line no-control-regex -- matching escapes is the point
    text.replace(/\x1b\[[0-9;]*m/g, "");

/** A fake session as the engine host's port: prompts run it, every other op is refused. */
export function hostOver(session: {
    subscribe(listener: (event: EngineEvent) => void): () => void;
    run(prompt: string, options: RunOptions): Promise<RunResult>;
    state?(): SessionState;
}): EngineHostPort {
    return {
        subscribe: (listener) => session.subscribe(listener),
        state: (): HostState => ({
            ...(session.state?.() ?? {
                model: {
                    alias: "m",
                    id: "m",
                    display: "M",
                    provider: "anthropic",
                    contextLimitTokens: 1000,
                    maxOutputTokens: 100,
                },
                running: false,
                contextUsedTokens: 0,
                contextLimitTokens: 1000,
                contextUsage: 0,
                totalCostUsd: 0,
                totalUsage: { ...EMPTY_USAGE },
            }),
            conversationId: "abc",
            mode: "agent",
            models: [],
            costs: { sessionUsd: 0, allTimeUsd: null },
            standing: { commands: false, edits: false },
            processes: { running: 0, notices: 0 },
        }),
        async submit(submitted) {
            const op = submitted as EngineOp;
            if (op.type === "prompt") {
                const { text, type: _type, ...options } = op;
                return (await session.run(text, {
                    ...options,
                    mode: op.mode ?? "agent",
                    signal: op.signal ?? new AbortController().signal,
                })) as never;
            }
            if (op.type === "cancel") return { cancelled: false } as never;
            throw new Error(`the fake host takes no ${op.type} op`);
        },
    };
}
