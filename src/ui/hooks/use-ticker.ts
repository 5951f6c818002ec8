import { useEffect, useState } from "react";

/**
 * A counter that advances every `intervalMs` while `active`; the timer runs
 * only then (no zombie timers on finished entries).
 */
export function useTicker(active: boolean, intervalMs: number): number {
    const [tick, setTick] = useState(0);
    useEffect(() => {
        if (!active) return;
        const timer = setInterval(() => setTick((t) => t + 1), intervalMs);
        return () => clearInterval(timer);
    }, [active, intervalMs]);
    return tick;
}
