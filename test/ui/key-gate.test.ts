import { describe, expect, it } from "vitest";
import { createKeyGate, REPEAT_WINDOW_MS, TYPING_BURST_MS } from "../../src/ui/input/key-gate";

/** A gate on a clock the test moves. */
function gateAt() {
    let now = 0;
    const gate = createKeyGate(() => now);
    return {
        gate,
        /** The owner of `input` pressed `ms` after the previous key. */
        press(input: string, ms = 0) {
            now += ms;
            gate.observe(input);
            return gate.owner();
        },
    };
}

describe("key gate", () => {
    it("gives every key to the composer while no review is shown", () => {
        const { gate, press } = gateAt();
        expect(press("y")).toBe("composer");
        gate.decided();
        expect(press("y", 1)).toBe("composer");
    });

    it("takes the deciding key again once another key came between (Down Down Enter in a picker)", () => {
        const { gate, press } = gateAt();
        press("\r");
        gate.decided();
        gate.setReviewing(true);
        expect(press("\x1b[B", 5)).toBe("review");
        expect(press("\x1b[B", 5)).toBe("review");
        expect(press("\r", 5)).toBe("review");
    });

    it("does not let a wheel report end the bounce guard", () => {
        const { gate, press } = gateAt();
        press("y");
        gate.decided();
        gate.setReviewing(true);
        press("\x1b[<65;10;5M", 5);
        expect(press("y", 5)).toBe("none");
    });

    it("gives a review the first key at once, however soon after it appeared", () => {
        const { gate, press } = gateAt();
        gate.setReviewing(true);
        expect(press("a")).toBe("review");
    });

    it("swallows a quick repeat of the deciding key, and of a held one, but not another key", () => {
        const { gate, press } = gateAt();
        gate.setReviewing(true);
        press("y");
        gate.decided();
        expect(press("y", 80)).toBe("none");
        // Held: each repeat extends the window.
        expect(press("y", REPEAT_WINDOW_MS - 1)).toBe("none");
        expect(press("d", 1)).toBe("review");
        expect(press("y", REPEAT_WINDOW_MS)).toBe("review");
    });

    it("treats the Enter that sent a prompt as the deciding key (a bounced Enter does not pick)", () => {
        const { gate, press } = gateAt();
        press("/model\r");
        gate.decided();
        gate.setReviewing(true);
        expect(press("\r", 40)).toBe("none");
        expect(press("\x1b[B", 40)).toBe("review");
    });

    it("keeps a burst of typing with the composer until a pause", () => {
        const { gate, press } = gateAt();
        press("h");
        gate.typed();
        gate.setReviewing(true);
        expect(press("a", TYPING_BURST_MS - 1)).toBe("composer");
        gate.typed();
        expect(press("y", TYPING_BURST_MS - 1)).toBe("composer");
        gate.typed();
        expect(press("a", TYPING_BURST_MS)).toBe("review");
    });
});

describe("settling: whether a picker opened with Enter takes Enter yet", () => {
    /** A gate whose clock and timers the test moves together. */
    function settlingGate() {
        let now = 0;
        let pending: Array<{ at: number; run: () => void; live: boolean }> = [];
        const gate = createKeyGate(() => now, {
            set: (run, ms) => {
                const timer = { at: now + ms, run, live: true };
                pending.push(timer);
                return timer;
            },
            clear: (timer) => void ((timer as { live: boolean }).live = false),
        });
        let changes = 0;
        gate.subscribe(() => changes++);
        const advance = (ms: number): void => {
            now += ms;
            const due = pending.filter((t) => t.live && t.at <= now);
            pending = pending.filter((t) => t.live && t.at > now);
            for (const timer of due) timer.run();
        };
        const press = (input: string, ms = 0): string => {
            advance(ms);
            gate.observe(input);
            return gate.owner();
        };
        return { gate, advance, press, changes: () => changes };
    }

    it("settles while a repeat of the deciding key is a bounce, and says so when it ends", () => {
        const { gate, advance, press, changes } = settlingGate();
        expect(gate.settling()).toBe(false);
        press("/permissions\r");
        gate.decided();
        gate.setReviewing(true);
        expect(gate.settling()).toBe(true);
        const before = changes();
        advance(REPEAT_WINDOW_MS - 1);
        expect(gate.settling()).toBe(true);
        advance(1);
        expect(gate.settling()).toBe(false);
        expect(changes()).toBeGreaterThan(before);
        expect(press("\r")).toBe("review");
    });

    it("settles while a key would continue the typing that opened the picker (Esc Esc)", () => {
        const { gate, advance, press } = settlingGate();
        advance(1000);
        press("\x1b");
        gate.typed();
        press("\x1b", 100);
        gate.typed();
        gate.setReviewing(true);
        expect(gate.settling()).toBe(true);
        advance(TYPING_BURST_MS - 1);
        expect(gate.settling()).toBe(true);
        advance(1);
        expect(gate.settling()).toBe(false);
        expect(press("\x1b")).toBe("review");
    });

    it("goes on settling while the key repeats, and stops at once when another key comes", () => {
        const { gate, advance, press } = settlingGate();
        press("\r");
        gate.decided();
        gate.setReviewing(true);
        expect(press("\r", REPEAT_WINDOW_MS - 10)).toBe("none");
        advance(REPEAT_WINDOW_MS - 1);
        expect(gate.settling()).toBe(true);
        expect(press("\x1b[B", 0)).toBe("review");
        expect(gate.settling()).toBe(false);
    });
});
