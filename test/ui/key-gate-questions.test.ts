/**
 * The learning question never takes a prompt being typed as its answer
 * (issue 18, part 10). Consent reviews (trust included) have their own
 * guard: test/ui/input/review-guard.test.ts.
 */
import { describe, expect, it } from "vitest";
import { type KeyOwner, createKeyGate, TYPING_BURST_MS } from "../../src/ui/input/key-gate";

const isAnswer = (input: string): boolean => ["y", "n", "Y", "N", "\x1b"].includes(input);

/**
 * A gate on a test clock and timers, with the App's two listeners behind it:
 * the composer (takes what the gate gives it) and the question.
 */
function harness(kind: "yield") {
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
    const composer: string[] = [];
    const answers: string[] = [];
    let dismissed = 0;
    const feed = (input: string): void => {
        gate.observe(input);
        const owner: KeyOwner = gate.owner();
        if (owner === "composer") {
            composer.push(input);
            gate.typed();
        } else if (owner === "review") {
            answers.push(input);
            gate.decided();
        }
    };
    gate.bindReplay(feed);
    gate.setReviewing(true, { kind, isAnswer, onTyping: () => dismissed++ });
    const advance = (ms: number): void => {
        now += ms;
        for (const timer of timers.splice(0)) {
            if (timer.live && timer.at <= now) timer.run();
            else if (timer.live) timers.push(timer);
        }
    };
    return {
        gate,
        composer,
        answers,
        dismissed: () => dismissed,
        press(input: string, ms = 0) {
            advance(ms);
            feed(input);
        },
        advance,
    };
}

describe("start-up questions and typing", () => {
    it("gives keys typed before the question could be read to the composer", () => {
        const h = harness("yield");
        h.press("n", 10);
        h.press("ow fix the build", 1);
        expect(h.composer.join("")).toBe("now fix the build");
        expect(h.answers).toEqual([]);
        expect(h.dismissed()).toBeGreaterThan(0);
    });

    it("holds a y that starts a burst and gives it, then the rest, to the composer in order", () => {
        const h = harness("yield");
        h.press("y", TYPING_BURST_MS + 100);
        expect(h.composer).toEqual([]);
        h.press("e", TYPING_BURST_MS - 50);
        h.press("s", 40);
        expect(h.composer).toEqual(["y", "e", "s"]);
        h.advance(TYPING_BURST_MS * 4);
        expect(h.answers).toEqual([]);
    });

    it("answers with a lone y once the typing window passed, and with y then Enter at once", () => {
        const lone = harness("yield");
        lone.press("y", TYPING_BURST_MS + 100);
        lone.advance(TYPING_BURST_MS - 1);
        expect(lone.answers).toEqual([]);
        lone.advance(1);
        expect(lone.answers).toEqual(["y"]);
        expect(lone.composer).toEqual([]);

        const entered = harness("yield");
        entered.press("n", TYPING_BURST_MS + 100);
        entered.press("\r", 60);
        expect(entered.answers).toEqual(["n"]);
        expect(entered.composer).toEqual([]);
    });

    it("sends a key that is not an answer to the composer and dismisses learning", () => {
        const learning = harness("yield");
        learning.press("x", TYPING_BURST_MS + 100);
        expect(learning.composer).toEqual(["x"]);
        expect(learning.dismissed()).toBe(1);
    });

    it("takes Esc at once, and keeps a held key typed when the question goes away", () => {
        const h = harness("yield");
        h.press("\x1b", TYPING_BURST_MS + 100);
        expect(h.answers).toEqual(["\x1b"]);

        const gone = harness("yield");
        gone.press("n", TYPING_BURST_MS + 100);
        gone.gate.setReviewing(false);
        expect(gone.composer).toEqual(["n"]);
        gone.advance(TYPING_BURST_MS * 2);
        expect(gone.answers).toEqual([]);
    });

    it("reads as guarding for its typing window, then open, so its answer keys show when they count", () => {
        const h = harness("yield");
        const notified: string[] = [];
        h.gate.subscribe(() => notified.push(h.gate.guardState()));
        expect(h.gate.guardState()).toBe("guarding");
        h.advance(TYPING_BURST_MS - 1);
        expect(h.gate.guardState()).toBe("guarding");
        h.advance(1);
        expect(h.gate.guardState()).toBe("open");
        expect(notified).toEqual(["open"]);
    });

    it("lets a picker the user opened take the first key at once", () => {
        const gate = createKeyGate(() => 0);
        gate.setReviewing(true);
        gate.observe("y");
        expect(gate.owner()).toBe("review");
    });
});
