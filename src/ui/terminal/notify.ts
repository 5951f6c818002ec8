/**
 * Tells the user, through the terminal, that North waits for them: an answer
 * that took a while has ended, or a review waits. The terminal picks the form
 * (OSC 9, OSC 777, kitty's OSC 99, else the bell); inside tmux or GNU screen
 * it is wrapped so it reaches the outer terminal. Nothing is sent while the
 * terminal reports that it has focus (DECSET 1004): a terminal that never
 * reported focus may not support the reports, so it always gets one.
 */

import { type Multiplexer, detectMultiplexer, throughMultiplexer } from "./passthrough";

export { type Multiplexer, detectMultiplexer } from "./passthrough";

export type NotificationMethod = "osc9" | "osc777" | "osc99" | "bell";

export interface NotificationSettings {
    enabled?: boolean;
    afterSeconds?: number;
    method?: "auto" | NotificationMethod;
}

/** An answer shorter than this ends without a notification (the `afterSeconds` default). */
export const DEFAULT_NOTIFY_AFTER_SECONDS = 10;

const BEL = "\x07";

type Env = Record<string, string | undefined>;

/**
 * The form the terminal shows as a desktop notification, read from what
 * terminals put in the environment (kept through tmux and ssh where they
 * are: KITTY_WINDOW_ID, WT_SESSION, LC_TERMINAL); the bell when none is known.
 */
export function detectNotificationMethod(env: Env): NotificationMethod {
    const program = (env.TERM_PROGRAM ?? "").toLowerCase();
    const term = (env.TERM ?? "").toLowerCase();
    if (env.KITTY_WINDOW_ID || term === "xterm-kitty") return "osc99";
    if (program === "ghostty" || term === "xterm-ghostty") return "osc9";
    if (program === "iterm.app" || (env.LC_TERMINAL ?? "").toLowerCase() === "iterm2")
        return "osc9";
    if (program === "wezterm" || env.WEZTERM_PANE) return "osc9";
    if (env.WT_SESSION) return "osc9";
    if (term.startsWith("foot") || term.startsWith("rxvt-unicode")) return "osc777";
    return "bell";
}

/** Text that cannot end or split the sequence it is put in. */
function plain(text: string): string {
    // eslint-disable-next-line no-control-regex -- control characters are what is removed
    return text.replace(/[\x00-\x1f\x7f-\x9f;]/g, " ").slice(0, 200);
}

/** The bytes of one notification, wrapped for the multiplexer (the bell passes through as is). */
export function encodeNotification(
    method: NotificationMethod,
    title: string,
    body: string,
    multiplexer: Multiplexer
): string {
    let sequences: string[];
    switch (method) {
        case "bell":
            return BEL;
        case "osc9":
            sequences = [`\x1b]9;${plain(`${title}: ${body}`)}${BEL}`];
            break;
        case "osc777":
            sequences = [`\x1b]777;notify;${plain(title)};${plain(body)}${BEL}`];
            break;
        case "osc99":
            // The title (d=0: more follows), then the body, as one notification; BEL ends each so screen's DCS is not cut short.
            sequences = [
                `\x1b]99;i=north:d=0;${plain(title)}${BEL}`,
                `\x1b]99;i=north:p=body;${plain(body)}${BEL}`,
            ];
            break;
    }
    // One passthrough string per sequence: screen would cut a DCS holding two.
    return sequences.map((seq) => throughMultiplexer(seq, multiplexer)).join("");
}

export interface NotifierOptions {
    settings: NotificationSettings;
    env: Env;
    /** Writes to the terminal. */
    write(bytes: string): void;
    now(): number;
}

export interface Notifier {
    /** The terminal reported focus in (true) or out (false). */
    focus(focused: boolean): void;
    runStarted(): void;
    /** An answer ended: notifies when it took longer than `afterSeconds` (not when `tell` is false: cancelled). */
    runEnded(tell?: boolean): void;
    /** A review (approval, plan, question, password) now waits for the user. */
    reviewWaiting(what: string): void;
}

/** The decisions: when a notification is due, and whether the terminal has focus. */
export function createNotifier(options: NotifierOptions): Notifier {
    const enabled = options.settings.enabled ?? true;
    const afterMs = (options.settings.afterSeconds ?? DEFAULT_NOTIFY_AFTER_SECONDS) * 1000;
    const chosen = options.settings.method ?? "auto";
    const method = chosen === "auto" ? detectNotificationMethod(options.env) : chosen;
    const multiplexer = detectMultiplexer(options.env);
    /** null until the terminal reports: unknown focus notifies. */
    let focused: boolean | null = null;
    let startedAt: number | null = null;
    const send = (body: string): void => {
        if (!enabled || focused === true) return;
        options.write(encodeNotification(method, "North", body, multiplexer));
    };
    return {
        focus(next) {
            focused = next;
        },
        runStarted() {
            startedAt ??= options.now();
        },
        runEnded(tell = true) {
            if (startedAt === null) return;
            const took = options.now() - startedAt;
            startedAt = null;
            if (tell && took >= afterMs) send("the answer is ready");
        },
        reviewWaiting(what) {
            send(`${what} waits for you`);
        },
    };
}

export const FOCUS_IN = "\x1b[I";
export const FOCUS_OUT = "\x1b[O";
