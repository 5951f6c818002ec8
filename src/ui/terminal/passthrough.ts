/**
 * A sequence meant for the outer terminal (a notification, OSC 52) passed
 * through the multiplexer North runs in: tmux hands on a DCS `tmux;` string
 * with every ESC doubled (with `allow-passthrough on`); GNU screen hands on a
 * plain DCS string of at most 768 bytes, so a long sequence goes in pieces.
 */

/** A multiplexer between North and the terminal, whose passthrough a sequence needs. */
export type Multiplexer = "tmux" | "screen" | null;

type Env = Record<string, string | undefined>;

const ST = "\x1b\\";
/** What screen passes of one DCS string, with room to spare. */
const SCREEN_PIECE = 760;

export function detectMultiplexer(env: Env): Multiplexer {
    if (env.TMUX) return "tmux";
    if (env.STY || (env.TERM ?? "").startsWith("screen")) return "screen";
    return null;
}

/** `sequence` as the multiplexer must receive it to pass it on unchanged. */
export function throughMultiplexer(sequence: string, multiplexer: Multiplexer): string {
    if (multiplexer === "tmux") return `\x1bPtmux;${sequence.replaceAll("\x1b", "\x1b\x1b")}${ST}`;
    if (multiplexer !== "screen") return sequence;
    const pieces: string[] = [];
    for (let i = 0; i < sequence.length; i += SCREEN_PIECE) {
        pieces.push(`\x1bP${sequence.slice(i, i + SCREEN_PIECE)}${ST}`);
    }
    return pieces.join("");
}
