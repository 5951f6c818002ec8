import { describe, expect, it } from "vitest";
import { pausableDeadline } from "../../src/util/pausable-deadline";
import { manualTimers } from "../kit/manual-timers";

describe("pausableDeadline", () => {
    it("fires once its limit has passed, and only once", () => {
        const timers = manualTimers();
        let fired = 0;
        pausableDeadline(1000, () => fired++, { timers });
        timers.advance(999);
        expect(fired).toBe(0);
        timers.advance(1);
        timers.advance(5000);
        expect(fired).toBe(1);
    });

    it("does not count paused time, and keeps what was left", () => {
        const timers = manualTimers();
        let fired = 0;
        const deadline = pausableDeadline(1000, () => fired++, { timers });
        timers.advance(600);
        deadline.pause();
        timers.advance(60_000);
        expect(fired).toBe(0);
        deadline.resume();
        timers.advance(399);
        expect(fired).toBe(0);
        timers.advance(1);
        expect(fired).toBe(1);
    });

    it("starts paused when asked, and counts from its resume", () => {
        const timers = manualTimers();
        let fired = 0;
        const deadline = pausableDeadline(1000, () => fired++, { timers, paused: true });
        timers.advance(5000);
        expect(fired).toBe(0);
        deadline.resume();
        deadline.resume();
        timers.advance(1000);
        expect(fired).toBe(1);
    });

    it("starts over with the whole limit on restart, paused or not", () => {
        const timers = manualTimers();
        let fired = 0;
        const deadline = pausableDeadline(1000, () => fired++, { timers });
        timers.advance(900);
        deadline.restart();
        timers.advance(900);
        expect(fired).toBe(0);
        deadline.pause();
        deadline.restart();
        timers.advance(5000);
        expect(fired).toBe(0);
        deadline.resume();
        timers.advance(999);
        expect(fired).toBe(0);
        timers.advance(1);
        expect(fired).toBe(1);
    });

    it("never fires once cancelled, and leaves no timer behind", () => {
        const timers = manualTimers();
        let fired = 0;
        const deadline = pausableDeadline(1000, () => fired++, { timers });
        deadline.cancel();
        deadline.resume();
        deadline.restart();
        timers.advance(5000);
        expect(fired).toBe(0);
        expect(timers.pending()).toBe(0);
    });
});
