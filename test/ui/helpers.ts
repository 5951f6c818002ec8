import type { EngineEvent, RunResult } from "../../src/agent/events";
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
