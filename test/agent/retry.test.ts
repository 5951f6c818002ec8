import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY_POLICY, abortableSleep, retryDelayMs } from "../../src/agent/retry";
import type { ProviderError } from "../../src/providers/types";

const err = (over: Partial<ProviderError>): ProviderError => ({
    kind: "server",
    message: "x",
    retryable: true,
    ...over,
});

describe("retryDelayMs", () => {
    it("backs off ~1s, 2s, 4s with jitter and stops after 3", () => {
        expect(retryDelayMs(err({}), 1, DEFAULT_RETRY_POLICY, () => 0.5)).toBe(1000);
        expect(retryDelayMs(err({}), 2, DEFAULT_RETRY_POLICY, () => 0.5)).toBe(2000);
        expect(retryDelayMs(err({}), 3, DEFAULT_RETRY_POLICY, () => 0.5)).toBe(4000);
        expect(retryDelayMs(err({}), 4, DEFAULT_RETRY_POLICY, () => 0.5)).toBeNull();
        expect(retryDelayMs(err({}), 1, DEFAULT_RETRY_POLICY, () => 0)).toBe(750);
        expect(retryDelayMs(err({}), 1, DEFAULT_RETRY_POLICY, () => 0.999)).toBeLessThanOrEqual(
            1250
        );
    });

    it("uses retry-after when given and refuses absurd waits", () => {
        expect(retryDelayMs(err({ kind: "rate_limit", retryAfterMs: 2500 }), 1)).toBe(2500);
        expect(retryDelayMs(err({ kind: "rate_limit", retryAfterMs: 3_600_000 }), 1)).toBeNull();
    });

    it("never retries non-retryable errors", () => {
        expect(retryDelayMs(err({ kind: "auth", retryable: false }), 1)).toBeNull();
        expect(retryDelayMs(err({ kind: "bad_request", retryable: false }), 1)).toBeNull();
    });

    it("caps the backoff", () => {
        const policy = { ...DEFAULT_RETRY_POLICY, maxRetries: 10 };
        expect(retryDelayMs(err({}), 10, policy, () => 0.5)).toBe(30_000);
    });

    it("abortableSleep rejects at once on abort", async () => {
        const controller = new AbortController();
        const sleeping = abortableSleep(60_000, controller.signal);
        controller.abort();
        await expect(sleeping).rejects.toThrow("aborted");
    });
});
