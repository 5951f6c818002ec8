import { describe, expect, it, vi } from "vitest";
import { createTranscriptStore, STREAM_FLUSH_MS } from "../../src/ui/transcript/store";

function fakeTimers() {
    let pending: (() => void) | null = null;
    return {
        setTimer: (fn: () => void) => {
            pending = fn;
            return 1;
        },
        clearTimer: () => {
            pending = null;
        },
        fire: () => {
            const fn = pending;
            pending = null;
            fn?.();
        },
        armed: () => pending !== null,
    };
}

describe("transcript store", () => {
    it("batches deltas until the flush timer fires", () => {
        const timers = fakeTimers();
        const store = createTranscriptStore(timers);
        let notified = 0;
        store.subscribe(() => notified++);
        store.push({ type: "text_delta", text: "a" });
        store.push({ type: "text_delta", text: "b" });
        store.push({ type: "text_delta", text: "c" });
        expect(store.getState().entries).toHaveLength(0);
        expect(notified).toBe(0);
        expect(timers.armed()).toBe(true);
        timers.fire();
        expect(notified).toBe(1);
        expect(store.getState().entries[0]).toMatchObject({ text: "abc" });
    });

    it("flushes pending deltas before any other event, keeping order", () => {
        const timers = fakeTimers();
        const store = createTranscriptStore(timers);
        store.push({ type: "thinking_delta", text: "hmm" });
        store.push({ type: "text_delta", text: "answer" });
        store.push({ type: "tool_call_start", id: "t", name: "read_file" });
        expect(store.getState().entries.map((e) => e.kind)).toEqual([
            "thinking",
            "assistant",
            "tool",
        ]);
        expect(timers.armed()).toBe(false);
    });

    it("uses a 32 ms flush interval by default", () => {
        vi.useFakeTimers();
        try {
            const store = createTranscriptStore();
            store.push({ type: "text_delta", text: "x" });
            vi.advanceTimersByTime(STREAM_FLUSH_MS - 1);
            expect(store.getState().entries).toHaveLength(0);
            vi.advanceTimersByTime(1);
            expect(store.getState().entries).toHaveLength(1);
            expect(STREAM_FLUSH_MS).toBe(32);
            store.dispose();
        } finally {
            vi.useRealTimers();
        }
    });
});
