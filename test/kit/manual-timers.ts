/**
 * Timers that run only when a test advances them: `DeadlineTimers` for code
 * that takes injected timers (no real waiting, no fake global timers).
 */
import type { DeadlineTimers } from "../../src/util/pausable-deadline";

export interface ManualTimers extends DeadlineTimers {
    /** Moves the clock on, firing every timer that falls due, in order. */
    advance(ms: number): void;
    /** Timers set so far (cleared ones included). */
    readonly armed: number;
    /** Timers waiting to fire. */
    pending(): number;
}

export function manualTimers(): ManualTimers {
    let clock = 0;
    let armed = 0;
    let nextId = 0;
    const timers = new Map<number, { at: number; fire: () => void }>();
    return {
        now: () => clock,
        setTimeout(fire, ms) {
            armed++;
            const id = ++nextId;
            timers.set(id, { at: clock + ms, fire });
            return id;
        },
        clearTimeout(handle) {
            timers.delete(handle as number);
        },
        advance(ms) {
            const until = clock + ms;
            for (;;) {
                const due = [...timers.entries()]
                    .filter(([, timer]) => timer.at <= until)
                    .sort((a, b) => a[1].at - b[1].at)[0];
                if (!due) break;
                timers.delete(due[0]);
                clock = due[1].at;
                due[1].fire();
            }
            clock = until;
        },
        get armed() {
            return armed;
        },
        pending: () => timers.size,
    };
}
