/**
 * Decides who a key belongs to while a review is on screen, so that no
 * deliberate key is dropped and no stray one answers a review:
 *
 * - a quick repeat of the key that just sent a prompt or answered a review
 *   (a double-tapped `y`, a bounced Enter) is swallowed;
 * - keys that continue a burst of typing in the composer stay with the
 *   composer (the user has not seen the review yet), until a pause;
 * - every other key goes to the review at once, however soon after it appeared.
 *
 * Pure apart from the clock; the App feeds it every input string first.
 */

/** A repeat of the deciding key this soon after it is taken as a bounce. */
export const REPEAT_WINDOW_MS = 250;
/** A key this soon after the last one the composer took continues the typing. */
export const TYPING_BURST_MS = 250;

export type KeyOwner = "composer" | "review" | "none";

export interface KeyGate {
    /** Every input string, before any component sees it. */
    observe(input: string): void;
    /** Who the key being handled now belongs to. */
    owner(): KeyOwner;
    /** The key being handled sent a prompt or answered a review. */
    decided(): void;
    /** The composer took the key being handled. */
    typed(): void;
    /** A review is shown and listening (true) or gone (false). */
    setReviewing(reviewing: boolean): void;
}

/** The first key of an input string: an escape sequence whole, else one character. */
function firstKey(input: string): string {
    if (input.startsWith("\x1b")) return input;
    return String.fromCodePoint(input.codePointAt(0) ?? 0);
}

/** The last key of an input string (an Ink text run may end with the Enter that sent it). */
function lastKey(input: string): string {
    if (input.startsWith("\x1b")) return input;
    const chars = [...input];
    return chars[chars.length - 1] ?? "";
}

export function createKeyGate(now: () => number = () => performance.now()): KeyGate {
    let reviewing = false;
    let current = { input: "", at: Number.NEGATIVE_INFINITY };
    let owner: KeyOwner = "composer";
    let deciding: { key: string; at: number } | null = null;
    let typedAt = Number.NEGATIVE_INFINITY;

    return {
        observe(input) {
            const at = now();
            current = { input, at };
            if (!reviewing) {
                owner = "composer";
                return;
            }
            if (
                deciding &&
                firstKey(input) === deciding.key &&
                at - deciding.at < REPEAT_WINDOW_MS
            ) {
                // A held or bounced key keeps being a repeat while it goes on.
                deciding = { key: deciding.key, at };
                owner = "none";
                return;
            }
            // Only a repeat that comes straight after is a bounce: any other key ends the guard.
            deciding = null;
            if (at - typedAt < TYPING_BURST_MS) owner = "composer";
            else owner = "review";
        },
        owner: () => owner,
        decided() {
            deciding = { key: lastKey(current.input), at: current.at };
            typedAt = Number.NEGATIVE_INFINITY;
        },
        typed() {
            typedAt = current.at;
        },
        setReviewing(value) {
            reviewing = value;
        },
    };
}
