/**
 * A review asking consent takes no key for REVIEW_GUARD_MS after it is drawn,
 * nor while keys keep arriving less than TYPING_BURST_MS apart: "yeah", "no"
 * or "hold on" typed across its appearance lands in the draft whole, nothing
 * answered (issue 31, part 1). On an injected clock and timers.
 */
import { describe, expect, it } from "vitest";
import {
    createKeyGate,
    type KeyOwner,
    REVIEW_GUARD_MS,
    TYPING_BURST_MS,
} from "../../../src/ui/input/key-gate";

/** A gate on a test clock, with the App's composer and a review listening behind it. */
function harness() {
    let now = 1000;
    const timers: Array<{ at: number; run: () => void; live: boolean }> = [];
    const gate = createKeyGate(() => now, {
        set: (run, ms) => {
            const timer = { at: now + ms, run, live: true };
            timers.push(timer);
            return timer;
        },
        clear: (timer) => void ((timer as { live: boolean }).live = false),
    });
    const draft: string[] = [];
    const answers: string[] = [];
    let changes = 0;
    gate.subscribe(() => changes++);
    const advance = (ms: number): void => {
        now += ms;
        for (const timer of timers.splice(0)) {
            if (timer.live && timer.at <= now) timer.run();
            else if (timer.live) timers.push(timer);
        }
    };
    return {
        gate,
        draft,
        answers,
        changes: () => changes,
        advance,
        /** Each character of `text`, `gap` ms apart, the first `first` ms from now. */
        type(text: string, gap: number, first = gap) {
            [...text].forEach((ch, i) => {
                advance(i === 0 ? first : gap);
                gate.observe(ch);
                const owner: KeyOwner = gate.owner();
                if (owner === "composer") {
                    draft.push(ch);
                    gate.typed();
                } else if (owner === "review") answers.push(ch);
            });
        },
        /** One input string (an escape sequence whole), now. */
        press(input: string) {
            gate.observe(input);
            if (gate.owner() === "review") answers.push(input);
            else if (gate.owner() === "composer") draft.push(input);
        },
        show() {
            gate.setReviewing(true, { kind: "guard" });
        },
    };
}

describe("the consent review's guard", () => {
    it.each(["yeah", "no", "hold on", "y\r", "1\r"])(
        "keeps %j typed across the review's appearance in the draft, answering nothing",
        (text) => {
            const h = harness();
            // The first key before the review, the rest after it at a typing pace.
            h.type(text.slice(0, 1), 120);
            h.show();
            h.type(text.slice(1), 120, 60);
            expect(h.draft.join("")).toBe(text);
            expect(h.answers).toEqual([]);
        }
    );

    it("keeps keys arriving in the same moment as the review, Enter included", () => {
        const h = harness();
        h.show();
        h.type("yeah\r", 0, 0);
        expect(h.draft.join("")).toBe("yeah\r");
        expect(h.answers).toEqual([]);
    });

    it("holds for as long as keys keep arriving less than the burst apart", () => {
        const h = harness();
        h.show();
        // Long past the guard's 400 ms, but each key within the burst of the last.
        h.type("abcdefghij", TYPING_BURST_MS - 1, 10);
        expect(h.draft.join("")).toBe("abcdefghij");
        expect(h.gate.guardState()).toBe("holding");
        h.advance(TYPING_BURST_MS);
        expect(h.gate.guardState()).toBe("open");
        h.type("1", 0, 0);
        expect(h.answers).toEqual(["1"]);
    });

    it("answers a deliberate key after the guard, and says keys went to the draft", () => {
        const h = harness();
        h.show();
        expect(h.gate.guardState()).toBe("guarding");
        expect(h.gate.divertedKeys()).toBe(false);
        h.advance(REVIEW_GUARD_MS - 1);
        h.type("2", 0, 0);
        expect(h.draft).toEqual(["2"]);
        expect(h.gate.guardState()).toBe("holding");
        expect(h.gate.divertedKeys()).toBe(true);
        const seen = h.changes();
        h.advance(TYPING_BURST_MS);
        expect(h.gate.guardState()).toBe("open");
        // The review was told the guard lifted, so it redraws its keys.
        expect(h.changes()).toBeGreaterThan(seen);
        h.press("\x1b[B");
        h.press("\r");
        expect(h.answers).toEqual(["\x1b[B", "\r"]);
    });

    it("opens at REVIEW_GUARD_MS when nothing was typed, and starts again for the next review", () => {
        const h = harness();
        h.show();
        h.advance(REVIEW_GUARD_MS);
        expect(h.gate.guardState()).toBe("open");
        h.type("1", 0, 0);
        expect(h.answers).toEqual(["1"]);
        h.gate.setReviewing(false);
        h.show();
        h.type("1", 0, 100);
        expect(h.draft).toEqual(["1"]);
    });
});
