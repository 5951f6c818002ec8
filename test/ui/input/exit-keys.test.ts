import { describe, expect, it } from "vitest";
import { EXIT_CONFIRM_MS, ExitConfirm } from "../../../src/ui/input/exit-keys";

function clock(): { now: () => number; advance(ms: number): void } {
    let t = 1_000;
    return { now: () => t, advance: (ms) => (t += ms) };
}

describe("the Ctrl+C exit window", () => {
    it("arms on the first press and exits on a second within 1.5 s", () => {
        const c = clock();
        const confirm = new ExitConfirm(c.now);
        expect(confirm.press()).toBe("armed");
        expect(confirm.armed()).toBe(true);
        expect(confirm.remaining()).toBe(EXIT_CONFIRM_MS);
        c.advance(EXIT_CONFIRM_MS - 1);
        expect(confirm.press()).toBe("exit");
    });

    it("starts over once the window has closed", () => {
        const c = clock();
        const confirm = new ExitConfirm(c.now);
        confirm.press();
        c.advance(EXIT_CONFIRM_MS);
        expect(confirm.armed()).toBe(false);
        expect(confirm.remaining()).toBe(0);
        expect(confirm.press()).toBe("armed");
    });

    it("does not exit on a press right after one that cleared the draft", () => {
        const c = clock();
        const confirm = new ExitConfirm(c.now);
        confirm.press();
        // The App resets the window when Ctrl+C cleared, cancelled or closed something.
        confirm.reset();
        c.advance(100);
        expect(confirm.press()).toBe("armed");
        c.advance(10);
        expect(confirm.press()).toBe("exit");
    });
});
