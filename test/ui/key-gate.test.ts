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
