/**
 * Leaving is deliberate: Ctrl+C at an empty, idle composer only arms the
 * exit ("Press Ctrl+C again to exit"); a second one within the window exits.
 * Any other use of Ctrl+C (clearing a draft, cancelling a run, closing a
 * dialog) starts over, so a quick second press after clearing never exits.
 */

/** How long a first Ctrl+C waits for the second. */
export const EXIT_CONFIRM_MS = 1500;

export const EXIT_CONFIRM_HINT = "Press Ctrl+C again to exit";

export class ExitConfirm {
    /** When the window opened; null when none is open. */
    private armedAt: number | null = null;

    constructor(
        private readonly now: () => number = Date.now,
        readonly windowMs: number = EXIT_CONFIRM_MS
    ) {}

    /** Ctrl+C at an empty, idle composer: "exit" within the window, else the window opens. */
    press(): "exit" | "armed" {
        if (this.armed()) {
            this.armedAt = null;
            return "exit";
        }
        this.armedAt = this.now();
        return "armed";
    }

    /** Ctrl+C did something else (cleared, cancelled, closed): the next press starts over. */
    reset(): void {
        this.armedAt = null;
    }

    /** A second press now would exit (the hint shows). */
    armed(): boolean {
        return this.armedAt !== null && this.now() - this.armedAt < this.windowMs;
    }

    /** Milliseconds until the window closes (0 when closed): when the hint goes. */
    remaining(): number {
        if (this.armedAt === null) return 0;
        return Math.max(0, this.armedAt + this.windowMs - this.now());
    }
}
