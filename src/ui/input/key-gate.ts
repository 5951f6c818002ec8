/**
 * Decides who a key belongs to while a review is on screen, so that no
 * deliberate key is dropped and no stray one answers a review:
 *
 * - a quick repeat of the key that just sent a prompt or answered a review
 *   (a double-tapped digit, a bounced Enter) is swallowed;
 * - a review that asks for consent (`guard`) takes no key for REVIEW_GUARD_MS
 *   after it is drawn: those keys were typed for the composer and go there
 *   whole (Enter included), and the review says so (`guardState`); once a key
 *   went there, the review takes none until the keys pause for
 *   DELIBERATE_PAUSE_MS ("no⏎" typed at any pace answers nothing);
 * - only a single key acts on a consent review: an input string of several
 *   keys (a paste, bracketed or not, or fast typing read at once) goes to the
 *   draft like typing, or into the review's own text field as text only
 *   (`review-text`); a mouse report (SGR, or X10 with its three bytes, also
 *   split across reads) is no key at all;
 * - a picker the user opened takes every other key at once, unless it
 *   continues a burst of typing in the composer.
 *
 * The learning question (`yield`) must not take a prompt being typed as its
 * answer: keys within a moment of it appearing, and every key that is not an
 * answer, go to the composer and dismiss it; a y or n waits out the typing
 * window and goes to the composer with what follows it. Its typing window
 * reads as `guarding` (`guardState`), so the question shows its answer keys
 * only once they count.
 *
 * Pure apart from the clock and timers; the App feeds it every input string first.
 */

/** A repeat of the deciding key this soon after it is taken as a bounce. */
export const REPEAT_WINDOW_MS = 250;
/** A key this soon after the last one the composer took continues the typing. */
export const TYPING_BURST_MS = 300;
/** A consent review takes no key this soon after it is drawn. */
export const REVIEW_GUARD_MS = 400;
/**
 * Once a key went to the draft, a consent review waits for a pause this long
 * before it takes one: longer than any gap within typing, so the Enter that
 * ends "no⏎" typed slowly is still the draft's.
 */
export const DELIBERATE_PAUSE_MS = 1000;

/**
 * `review-text`: several keys at once while the review's text field is open
 * (a pasted reason): typed into it as text, never acted on as keys.
 */
export type KeyOwner = "composer" | "review" | "review-text" | "none";

/**
 * How a review treats keys: `guard` for a review asking consent (see above),
 * `yield` for a question dismissed by typing; none for a picker.
 */
export type ReviewPolicy =
    | {
          kind: "guard";
          /** The review's text field is open from the start (an MCP server's form). */
          textField?: boolean;
      }
    | {
          kind: "yield";
          /** The input string is one of the question's answer keys. */
          isAnswer(input: string): boolean;
          /** The composer took a key while the question was shown. */
          onTyping?(): void;
      };

/**
 * A guarded review: `guarding` (keys go to the draft for now, none went yet),
 * `holding` (keys went to the draft and still do), `open` (keys answer it).
 * The learning question is `guarding` for its typing window, then `open`.
 */
export type GuardState = "open" | "guarding" | "holding";

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
    /** The guarded review's text field (a refusal's reason) is open or closed. */
    setTextField(open: boolean): void;
    /** A review is shown and listening (true) or gone (false), with how it treats keys. */
    setReviewing(reviewing: boolean, policy?: ReviewPolicy): void;
    /** A full-screen view (the transcript) covers the chat: no key reaches a review under it. */
    setCovered(covered: boolean): void;
    /** How a held key is handed on later: fed again to every listener, the gate first. */
    bindReplay(replay: (input: string) => void): void;
    /** The guarded review's (or the question's typing window's) state now; "open" when there is none. */
    guardState(): GuardState;
    /** Counts `setReviewing(true)` calls: a review drawn before its call is not listening yet. */
    generation(): number;
    /** Keys went to the draft while this review was guarded. */
    divertedKeys(): boolean;
    /**
     * A key now would not reach a picker yet: the key that sent the last prompt
     * or answer would still be taken as a bounce (`REPEAT_WINDOW_MS`: a picker
     * opened with Enter does not take Enter yet), or a key would continue a
     * burst of typing in the composer (`TYPING_BURST_MS`: a picker opened by Esc Esc).
     */
    settling(): boolean;
    /** Called whenever `guardState`, `divertedKeys` or `settling` may have changed; returns an unsubscribe. */
    subscribe(listener: () => void): () => void;
    /** Lets the gate tell whether the composer holds text. */
    setComposerProbe(probe: () => boolean): void;
    composerHasText(): boolean;
}

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";
/** The legacy X10 mouse report's prefix: three raw bytes follow it. */
const X10_MOUSE = "\x1b[M";
const X10_MOUSE_BYTES = 3;
// eslint-disable-next-line no-control-regex -- a CSI sequence begun, not finished
const UNFINISHED_CSI = /^\x1b\[[0-?]*[ -/]*$/;
/** What ends a CSI sequence that was split: its parameters, then the final byte. */
const CSI_REST = /^[0-?]*[ -/]*[@-~]/;
const isSgrMouse = (sequence: string): boolean => sequence.startsWith("\x1b[<");

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
    let guardUntil = Number.NEGATIVE_INFINITY;
    let diverted = false;
    let guardTimer: unknown = null;
    // Flipped by the timer (not read off the clock), so a render sees one value until it notifies.
    let guarded = false;
    // Flipped by a timer too: true while a key would be a bounce or continue the typing (`settling()`).
    let settling = false;
    let settleTimer: unknown = null;
    let settleUntil = Number.NEGATIVE_INFINITY;
    let generation = 0;
    let textField = false;
    let pasting = false;
    let x10BytesLeft = 0;
    let covered = false;
    let csiHead: string | null = null;
    const listeners = new Set<() => void>();
    const notify = (): void => {
        for (const listener of [...listeners]) listener();
    };
    /** Wakes the listeners when the guard ends (it may have been extended meanwhile). */
    const scheduleGuardEnd = (): void => {
        if (guardTimer !== null) timers.clear(guardTimer);
        guardTimer = null;
        const left = guardUntil - now();
        if (!reviewing || policy === undefined || left <= 0) {
            guarded = false;
            return;
        }
        guarded = true;
        guardTimer = timers.set(() => {
            guardTimer = null;
            // A timer may fire a moment before the clock reaches the end (libuv times it off
            // the loop's cached clock): wait out the rest, or open now if the clock got there.
            if (now() < guardUntil) scheduleGuardEnd();
            else guarded = false;
            if (!guarded) notify();
        }, left);
    };
    /** The deciding key's bounce window starts again now (or ends, with `ms` 0). */
    const settleFor = (ms: number): void => {
        if (settleTimer !== null) timers.clear(settleTimer);
        settleTimer = null;
        const was = settling;
        settling = ms > 0;
        settleUntil = settling ? now() + ms : Number.NEGATIVE_INFINITY;
        if (settling) {
            settleTimer = timers.set(() => {
                settleTimer = null;
                settling = false;
                notify();
            }, ms);
        }
        if (was !== settling) notify();
    };
    /** Settles until `until` at least (a picker shown within a burst of typing). */
    const settleUntilAtLeast = (until: number): void => {
        if (until > settleUntil && until > now()) settleFor(until - now());
    };
    const guardState = (): GuardState => {
        if (!guarded) return "open";
        return diverted ? "holding" : "guarding";
    };

    /**
     * What an input string is: no key (a mouse report, or the start of a
     * sequence split across reads), one key, or several keys at once.
     */
    const classify = (input: string): "nothing" | "single" | "several" => {
        if (x10BytesLeft > 0 && !input.startsWith("\x1b")) {
            const count = [...input].length;
            if (count <= x10BytesLeft) {
                x10BytesLeft -= count;
                return "nothing";
            }
            x10BytesLeft = 0;
            return "several";
        }
        x10BytesLeft = 0;
        if (csiHead !== null) {
            const head = csiHead;
            csiHead = null;
            const end = CSI_REST.exec(input);
            if (end) {
                const whole = head + end[0];
                if (input.length > end[0].length) return "several";
                if (whole === X10_MOUSE) x10BytesLeft = X10_MOUSE_BYTES;
                return whole === X10_MOUSE || isSgrMouse(whole) ? "nothing" : "single";
            }
        }
        if (input === X10_MOUSE) {
            x10BytesLeft = X10_MOUSE_BYTES;
            return "nothing";
        }
        if (UNFINISHED_CSI.test(input)) {
            csiHead = input;
            return "nothing";
        }
        if (isSgrMouse(input)) return "nothing";
        if (input === PASTE_START || input === PASTE_END) {
            pasting = input === PASTE_START;
            return "several";
        }
        if (pasting) return "several";
        if (input.startsWith("\x1b")) return "single";
        return [...input].length > 1 ? "several" : "single";
    };

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
            const at = now();
            if (replaying !== null) {
                current = { input, at };
                owner = replaying;
                return;
            }
            const keys = classify(input);
            if (covered) {
                current = { input, at };
                owner = "none";
                return;
            }
            // Mouse reports (the wheel) are not keys: they never end a review's bounce guard.
            if (keys === "nothing") {
                owner = "none";
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
                keys === "single" &&
                deciding &&
                firstKey(input) === deciding.key &&
                at - deciding.at < REPEAT_WINDOW_MS
            ) {
                // A held or bounced key keeps being a repeat while it goes on.
                deciding = { key: deciding.key, at };
                settleFor(REPEAT_WINDOW_MS);
                owner = "none";
                return;
            }
            // Only a repeat that comes straight after is a bounce: any other key ends the guard.
            deciding = null;
            settleFor(0);
            if (policy?.kind === "guard") {
                if (at >= guardUntil && keys === "single") {
                    owner = "review";
                    return;
                }
                if (at >= guardUntil && textField) {
                    owner = "review-text";
                    return;
                }
                // Typed for the composer: it keeps the keys until they pause deliberately.
                owner = "composer";
                guardUntil = Math.max(guardUntil, at + DELIBERATE_PAUSE_MS);
                const first = !diverted;
                diverted = true;
                scheduleGuardEnd();
                if (first) notify();
                return;
            }
            const typing = at - typedAt < TYPING_BURST_MS;
            if (!policy) {
                owner = typing ? "composer" : "review";
                return;
            }
            // Typed before the question could be read, or not an answer: the composer's.
            if (typing || at < guardUntil || !policy.isAnswer(input)) {
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
            settleFor(REPEAT_WINDOW_MS);
            typedAt = Number.NEGATIVE_INFINITY;
        },
        typed() {
            typedAt = current.at;
            if (reviewing && policy?.kind === "yield") policy.onTyping?.();
            if (reviewing && policy === undefined) settleUntilAtLeast(typedAt + TYPING_BURST_MS);
        },
        setCovered(value) {
            covered = value;
        },
        setReviewing(value, next) {
            // A key held for the question that is going away was typed: keep it.
            if (held) release();
            reviewing = value;
            policy = value ? next : undefined;
            textField = policy?.kind === "guard" && policy.textField === true;
            diverted = false;
            if (value) {
                shownAt = now();
                generation++;
            }
            guardUntil = !value
                ? Number.NEGATIVE_INFINITY
                : next?.kind === "guard"
                  ? shownAt + REVIEW_GUARD_MS
                  : next?.kind === "yield"
                    ? shownAt + TYPING_BURST_MS
                    : Number.NEGATIVE_INFINITY;
            scheduleGuardEnd();
            // A picker's first key must not continue the typing that opened it.
            if (value && next === undefined) settleUntilAtLeast(typedAt + TYPING_BURST_MS);
            notify();
        },
        setTextField(open) {
            textField = open;
        },
        guardState,
        generation: () => generation,
        settling: () => settling,
        divertedKeys: () => reviewing && diverted,
        subscribe(listener) {
            listeners.add(listener);
            return () => void listeners.delete(listener);
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
