/**
 * Mouse reports (SGR encoding, xterm mode 1006): `ESC [ < button ; col ; row M`
 * for a press, `m` for a release. Only the wheel means something to North; any
 * other report is swallowed so it never reaches the composer as text.
 */

export type MouseEvent = { kind: "wheel"; direction: "up" | "down" } | { kind: "other" };

/** Wheel reports carry bit 64; bits 4/8/16 are Shift, Alt, Ctrl. */
const WHEEL = 64;
const MODIFIER_BITS = 4 | 8 | 16;

// eslint-disable-next-line no-control-regex -- a terminal report starts with ESC
const SGR = /^\x1b\[<(\d+);\d+;\d+[Mm]$/;

/** The legacy X10 encoding's prefix: three raw bytes follow it. */
export const LEGACY_MOUSE_PREFIX = "\x1b[M";

/** A mouse report named, or null when `sequence` is not one. */
export function parseMouse(sequence: string): MouseEvent | null {
    const match = SGR.exec(sequence);
    if (!match) return null;
    const button = Number(match[1]) & ~MODIFIER_BITS;
    if (button === WHEEL) return { kind: "wheel", direction: "up" };
    if (button === WHEEL + 1) return { kind: "wheel", direction: "down" };
    return { kind: "other" };
}
