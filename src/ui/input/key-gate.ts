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
 * A question that is not about a request (learn the project? trust it?) must
 * not take a prompt being typed as its answer. Under a `yield` or `guard`
 * policy, keys within a moment of it appearing were typed before it and go to
 * the composer, as does every key that is not an answer; a y or n waits out
 * the typing window and goes to the composer with what follows it, so a burst
 * of typing never answers. `yield` (learning) is dismissed by typing; `guard`
 * (trust) stays until a deliberate answer.
 *
 * Pure apart from the clock and timers; the App feeds it every input string first.
 */

/** A repeat of the deciding key this soon after it is taken as a bounce. */
export const REPEAT_WINDOW_MS = 250;
/** A key this soon after the last one the composer took continues the typing. */
export const TYPING_BURST_MS = 250;

export type KeyOwner = "composer" | "review" | "none";

/** How a question that yields to typing treats keys (see above). */
export interface ReviewPolicy {
    kind: "yield" | "guard";
    /** The input string is one of the question's answer keys. */
    isAnswer(input: string): boolean;
    /** `yield`: the composer took a key while the question was shown. */
    onTyping?(): void;
}

export interface GateTimers {
    set(run: () => void, ms: number): unknown;
    clear(handle: unknown): void;
}

const REAL_TIMERS: GateTimers = {
    set: (run, ms) => setTimeout(run, ms),
    clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface KeyGate {
    /** Every input string, before any component sees it. */
    observe(input: string): void;
    /** Who the key being handled now belongs to. */
    owner(): KeyOwner;
    /** The key being handled sent a prompt or answered a review. */
    decided(): void;
    /** The composer took the key being handled. */
    typed(): void;
    /** A review is shown and listening (true) or gone (false); `policy` for a question that yields to typing. */
    setReviewing(reviewing: boolean, policy?: ReviewPolicy): void;
    /** How a held key is handed on later: fed again to every listener, the gate first. */
    bindReplay(replay: (input: string) => void): void;
    /** Lets the gate tell whether the composer holds text. */
    setComposerProbe(probe: () => boolean): void;
    composerHasText(): boolean;
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

export function createKeyGate(
    now: () => number = () => performance.now(),
    timers: GateTimers = REAL_TIMERS
): KeyGate {
    let reviewing = false;
    let policy: ReviewPolicy | undefined;
    let shownAt = Number.NEGATIVE_INFINITY;
    let current = { input: "", at: Number.NEGATIVE_INFINITY };
    let owner: KeyOwner = "composer";
    let deciding: { key: string; at: number } | null = null;
    let typedAt = Number.NEGATIVE_INFINITY;
    let replay: ((input: string) => void) | null = null;
    let replaying: KeyOwner | null = null;
    let held: { input: string; timer: unknown } | null = null;
    let probe: () => boolean = () => false;

    /** Feeds `input` again with `to` as its owner. */
    const replayAs = (input: string, to: KeyOwner): void => {
        const outer = current;
        replaying = to;
        try {
            replay?.(input);
        } finally {
            replaying = null;
            current = outer;
        }
    };
    /** The held y or n was the start of typing: it goes to the composer now. */
    const release = (): void => {
        if (!held) return;
        timers.clear(held.timer);
        const input = held.input;
        held = null;
        replayAs(input, "composer");
    };

    return {
        observe(input) {
            // Mouse reports (the wheel) are not keys: they never end a review's bounce guard.
            if (input.startsWith("\x1b[<") || input.startsWith("\x1b[M")) return;
            const at = now();
            if (replaying !== null) {
                current = { input, at };
                owner = replaying;
                return;
            }
            if (held) {
                // Enter right after it confirms the answer ("y⏎"); anything else continues typing.
                if (input === "\r") {
                    timers.clear(held.timer);
                    const answer = held.input;
                    held = null;
                    replayAs(answer, "review");
                    current = { input, at };
                    owner = "none";
                    return;
                }
                release();
                current = { input, at };
                owner = "composer";
                return;
            }
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
            const typing = at - typedAt < TYPING_BURST_MS;
            if (!policy) {
                owner = typing ? "composer" : "review";
                return;
            }
            // Typed before the question could be read, or not an answer: the composer's.
            if (typing || at - shownAt < TYPING_BURST_MS || !policy.isAnswer(input)) {
                owner = "composer";
                return;
            }
            if (input.startsWith("\x1b") || replay === null) {
                owner = "review";
                return;
            }
            // A y or n may begin a word: it answers only when nothing follows within the window.
            owner = "none";
            const timer = timers.set(() => {
                if (held?.input !== input) return;
                held = null;
                replayAs(input, "review");
            }, TYPING_BURST_MS);
            held = { input, timer };
        },
        owner: () => owner,
        decided() {
            deciding = { key: lastKey(current.input), at: current.at };
            typedAt = Number.NEGATIVE_INFINITY;
        },
        typed() {
            typedAt = current.at;
            if (reviewing && policy?.kind === "yield") policy.onTyping?.();
        },
        setReviewing(value, next) {
            // A key held for the question that is going away was typed: keep it.
            if (held) release();
            reviewing = value;
            policy = value ? next : undefined;
            if (value) shownAt = now();
        },
        bindReplay(fn) {
            replay = fn;
        },
        setComposerProbe(fn) {
            probe = fn;
        },
        composerHasText: () => probe(),
    };
}
