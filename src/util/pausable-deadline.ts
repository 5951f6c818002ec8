/**
 * A deadline that can stop counting: an MCP tool call's time limit is paused
 * while the user answers the server's question, so a slow answer does not
 * time the call out.
 */

/** The timer functions a deadline uses; tests pass a manual clock. */
export interface DeadlineTimers {
    setTimeout(fire: () => void, ms: number): unknown;
    clearTimeout(handle: unknown): void;
    now(): number;
}

/** The real clock; tests pass a manual one. */
export const systemTimers: DeadlineTimers = {
    setTimeout: (fire, ms) => setTimeout(fire, ms),
    clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
    now: () => performance.now(),
};

export interface PausableDeadline {
    /** Stops counting; the time left is kept. */
    pause(): void;
    /** Counts down the time left again. */
    resume(): void;
    /** Starts over with the whole limit (still paused when paused). */
    restart(): void;
    /** Never fires after this. */
    cancel(): void;
}

/** Calls `expire` once `limitMs` of unpaused time has passed, unless cancelled first. */
export function pausableDeadline(
    limitMs: number,
    expire: () => void,
    options: { paused?: boolean; timers?: DeadlineTimers } = {}
): PausableDeadline {
    const timers = options.timers ?? systemTimers;
    let remaining = limitMs;
    let startedAt = 0;
    let handle: unknown;
    let running = false;
    let over = false;

    const start = (): void => {
        if (over || running) return;
        running = true;
        startedAt = timers.now();
        handle = timers.setTimeout(() => {
            running = false;
            over = true;
            expire();
        }, remaining);
    };
    const stop = (): void => {
        if (!running) return;
        running = false;
        timers.clearTimeout(handle);
        remaining = Math.max(0, remaining - (timers.now() - startedAt));
    };

    if (!options.paused) start();
    return {
        pause: stop,
        resume: start,
        restart() {
            if (over) return;
            const wasRunning = running;
            stop();
            remaining = limitMs;
            if (wasRunning) start();
        },
        cancel() {
            stop();
            over = true;
        },
    };
}
