/**
 * A review asking consent takes no key for REVIEW_GUARD_MS after it is drawn,
 * nor while keys keep arriving less than TYPING_BURST_MS apart: "yeah", "no"
 * or "hold on" typed across its appearance lands in the draft whole, nothing
 * answered (issue 31, part 1). On an injected clock and timers.
 */
import { describe, expect, it } from "vitest";
import {
    createKeyGate,
    DELIBERATE_PAUSE_MS,
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
        /** One input string (an escape sequence whole, or several keys read at once), now. */
        press(input: string) {
            gate.observe(input);
            if (gate.owner() === "review") answers.push(input);
            else if (gate.owner() === "composer") {
                draft.push(input);
                gate.typed();
            }
        },
        show(textField = false) {
            gate.setReviewing(true, { kind: "guard", textField });
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
        h.advance(DELIBERATE_PAUSE_MS);
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
        h.advance(DELIBERATE_PAUSE_MS);
        expect(h.gate.guardState()).toBe("open");
        // The review was told the guard lifted, so it redraws its keys.
        expect(h.changes()).toBeGreaterThan(seen);
        h.press("\x1b[B");
        h.press("\r");
        expect(h.answers).toEqual(["\x1b[B", "\r"]);
    });

    it("says it opened when its timer fires a moment early and the clock passes the end meanwhile", () => {
        // libuv times a timer off the loop's cached clock: it can fire a fraction of a
        // millisecond before performance.now() reaches the end, which then passes it.
        let now = 1000;
        const readings: number[] = [];
        let fire: (() => void) | undefined;
        const gate = createKeyGate(() => readings.shift() ?? now, {
            set: (run) => (fire = run),
            clear: () => (fire = undefined),
        });
        let changes = 0;
        gate.subscribe(() => changes++);
        gate.setReviewing(true, { kind: "guard" });
        expect(gate.guardState()).toBe("guarding");
        const seen = changes;
        now += REVIEW_GUARD_MS + 1;
        readings.push(now - 1.5, now);
        fire?.();
        expect(gate.guardState()).toBe("open");
        // The review was told, so it stops saying keys go to the draft.
        expect(changes).toBeGreaterThan(seen);
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

describe("keys that went to the draft hold the review until a deliberate pause", () => {
    it.each(["no\r", "yes\r", "ok 1\r", "1\r", "n\x1b[B\r"])(
        "answers nothing with %j typed 350 ms apart across the review's appearance",
        (text) => {
            const h = harness();
            h.show();
            // The first key inside the 400 ms, then a pace slower than the typing burst.
            const keys = text.startsWith("n\x1b") ? ["n", "\x1b[B", "\r"] : [...text];
            keys.forEach((key, i) => {
                h.advance(i === 0 ? 100 : 350);
                h.press(key);
            });
            expect(h.answers).toEqual([]);
            expect(h.draft.join("")).toBe(keys.join(""));
            expect(h.gate.guardState()).toBe("holding");
        }
    );

    it("takes a key after DELIBERATE_PAUSE_MS without keys, not a moment before", () => {
        const h = harness();
        h.show();
        h.type("no", 350, 100);
        h.advance(DELIBERATE_PAUSE_MS - 1);
        h.press("\r");
        expect(h.answers).toEqual([]);
        // That Enter went to the draft too: the pause starts again from it.
        h.advance(DELIBERATE_PAUSE_MS);
        expect(h.gate.guardState()).toBe("open");
        h.press("\r");
        expect(h.answers).toEqual(["\r"]);
    });
});

describe("only a single key acts on a review", () => {
    it.each([
        ["a paste", "sure, option 2\r"],
        ["a digit and Enter read at once", "2\r"],
        ["two digits", "12"],
    ])("gives %s to the draft once the guard is open, and then holds", (_, chunk) => {
        const h = harness();
        h.show();
        h.advance(REVIEW_GUARD_MS);
        h.press(chunk);
        expect(h.answers).toEqual([]);
        expect(h.draft).toEqual([chunk]);
        expect(h.gate.guardState()).toBe("holding");
        // A single key right after is still the draft's.
        h.advance(TYPING_BURST_MS + 50);
        h.press("1");
        expect(h.answers).toEqual([]);
    });

    it("gives a bracketed paste to the draft, even of one character", () => {
        const h = harness();
        h.show();
        h.advance(REVIEW_GUARD_MS);
        // Ink hands the markers and the text on as separate strings.
        for (const input of ["\x1b[200~", "2", "\x1b[201~"]) h.press(input);
        expect(h.answers).toEqual([]);
        expect(h.draft).toEqual(["\x1b[200~", "2", "\x1b[201~"]);
    });

    it("takes several keys as text only while its text field is open", () => {
        const h = harness();
        h.show(true);
        h.advance(REVIEW_GUARD_MS);
        h.gate.observe("use pnpm\r");
        expect(h.gate.owner()).toBe("review-text");
        h.gate.setTextField(false);
        h.gate.observe("use pnpm\r");
        expect(h.gate.owner()).toBe("composer");
    });

    it.each([
        ["an SGR report", ["\x1b[<0;17;5M"]],
        ["an SGR report split across reads", ["\x1b[<0;17", ";5M"]],
        ["an X10 report", ["\x1b[M", " 1!"]],
        ["an X10 report split across reads", ["\x1b[M", " ", "1", "!"]],
        ["an X10 report whose prefix was split", ["\x1b[", "M", " 1", "!"]],
    ])("never gives %s to the review, nor ends the guard", (_, inputs) => {
        const h = harness();
        h.show();
        h.advance(REVIEW_GUARD_MS);
        for (const input of inputs) {
            h.gate.observe(input);
            expect(h.gate.owner()).toBe("none");
        }
        expect(h.gate.guardState()).toBe("open");
        h.press("1");
        expect(h.answers).toEqual(["1"]);
    });
});
