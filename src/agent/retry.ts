import type { ProviderError } from "../providers/types";

export interface RetryPolicy {
    maxRetries: number;
    baseDelayMs: number;
    maxDelayMs: number;
    /** A longer `retry-after` than this fails the request instead of hanging. */
    maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
    maxRetries: 3,
    baseDelayMs: 1_000,
    maxDelayMs: 30_000,
    maxRetryAfterMs: 60_000,
};

/**
 * Delay before retry number `attempt` (1-based), or null when the error must
 * not be retried. Exponential backoff (~1 s, 2 s, 4 s) with ±25 % jitter,
 * replaced by the server's `retry-after` when it sent one.
 */
export function retryDelayMs(
    error: ProviderError,
    attempt: number,
    policy: RetryPolicy = DEFAULT_RETRY_POLICY,
    random: () => number = Math.random
): number | null {
    if (!error.retryable || attempt > policy.maxRetries) return null;
    if (error.retryAfterMs !== undefined) {
        return error.retryAfterMs <= policy.maxRetryAfterMs ? error.retryAfterMs : null;
    }
    const exponential = Math.min(policy.baseDelayMs * 2 ** (attempt - 1), policy.maxDelayMs);
    const jitter = exponential * 0.25 * (random() * 2 - 1);
    return Math.max(0, Math.round(exponential + jitter));
}

/** Resolves after `ms`, or rejects at once when `signal` aborts. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
        if (signal.aborted) {
            reject(new Error("aborted"));
            return;
        }
        const onAbort = (): void => {
            clearTimeout(timer);
            reject(new Error("aborted"));
        };
        const timer = setTimeout(() => {
            signal.removeEventListener("abort", onAbort);
            resolve();
        }, ms);
        signal.addEventListener("abort", onAbort, { once: true });
    });
}
