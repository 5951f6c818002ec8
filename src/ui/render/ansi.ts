/**
 * The few ANSI styles the pre-rendered transcript lines use. With colours off
 * (`NO_COLOR`) every function returns its text unchanged, so no escape is
 * ever written.
 */

export type ColorName = "cyan" | "magenta" | "yellow" | "green" | "red" | "blue" | "gray";

export interface Ansi {
    colors: boolean;
    bold(text: string): string;
    dim(text: string): string;
    italic(text: string): string;
    underline(text: string): string;
    fg(color: ColorName, text: string): string;
    /** A "#rrggbb" colour (24-bit), for the animation shades. */
    hex(color: string, text: string): string;
}

const FG: Record<ColorName, number> = {
    red: 31,
    green: 32,
    yellow: 33,
    blue: 34,
    magenta: 35,
    cyan: 36,
    gray: 90,
};

const wrap =
    (open: number, close: number) =>
    (text: string): string =>
        text === "" ? "" : `\x1b[${open}m${text}\x1b[${close}m`;

const plain = (text: string): string => text;

export function createAnsi(colors: boolean): Ansi {
    if (!colors) {
        return {
            colors,
            bold: plain,
            dim: plain,
            italic: plain,
            underline: plain,
            fg: (_color, text) => text,
            hex: (_color, text) => text,
        };
    }
    return {
        colors,
        bold: wrap(1, 22),
        dim: wrap(2, 22),
        italic: wrap(3, 23),
        underline: wrap(4, 24),
        fg: (color, text) => (text === "" ? "" : `\x1b[${FG[color]}m${text}\x1b[39m`),
        hex: (color, text) => {
            const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color);
            if (!m) return text;
            const [r, g, b] = [m[1], m[2], m[3]].map((h) => parseInt(h ?? "0", 16));
            return text === "" ? "" : `\x1b[38;2;${r};${g};${b}m${text}\x1b[39m`;
        },
    };
}
