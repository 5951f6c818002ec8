/**
 * `import { createSession } from "north-agent"`: North's engine for Node
 * programs. The engine loads on the first createSession, through the same
 * split point as the CLI's, so both share one set of chunks.
 */
import type {
    CreateSession,
    NorthEvent,
    NorthResult,
    NorthRun,
    NorthRunOptions,
    NorthSession,
    NorthSessionOptions,
} from "./cli/api-types";

export type * from "./cli/api-types";

declare const __NORTH_VERSION__: string;

/** Starts a run at once; its events are kept until they are read, so nothing is missed. */
function startRun(
    execute: (signal: AbortSignal, onEvent: (event: NorthEvent) => void) => Promise<NorthResult>,
    options: NorthRunOptions
): NorthRun {
    const events: NorthEvent[] = [];
    let wake: (() => void) | null = null;
    let done = false;
    const notify = (): void => {
        const next = wake;
        wake = null;
        next?.();
    };
    const signal = options.signal ?? new AbortController().signal;
    const result = execute(signal, (event) => {
        events.push(event);
        notify();
    });
    const settled = result.then(
        () => undefined,
        () => undefined
    );
    void settled.then(() => {
        done = true;
        notify();
    });
    return {
        result,
        then: (onFulfilled, onRejected) => result.then(onFulfilled, onRejected),
        async *[Symbol.asyncIterator]() {
            let read = 0;
            for (;;) {
                while (read < events.length) yield events[read++]!;
                if (done) break;
                await new Promise<void>((resolve) => (wake = resolve));
            }
            // A run that failed to start (the session closed) throws here.
            await result;
        },
    };
}

export const createSession: CreateSession = async (
    options: NorthSessionOptions = {}
): Promise<NorthSession> => {
    const { openApiSession } = await import("./cli/engine-entry");
    const session = await openApiSession(options, __NORTH_VERSION__);
    return {
        sessionId: session.sessionId,
        run: (prompt, runOptions = {}) =>
            startRun((signal, onEvent) => session.run(prompt, signal, onEvent), runOptions),
        processes: () => session.processes(),
        processOutput: (id, request) => session.processOutput(id, request),
        stopProcess: (id) => session.stopProcess(id),
        close: () => session.close(),
    };
};
