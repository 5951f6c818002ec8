/**
 * The few ANSI styles the pre-rendered transcript lines use, with colours
 * taken from the theme by meaning. With colours off (`NO_COLOR`) every
 * function returns its text unchanged, so no escape is ever written, except
 * `inverse`: it is no colour, and it is how a diff's changed words stay
 * marked without one.
 */
import { DARK_THEME, type Theme, type ThemeColor } from "../theme";

export interface Ansi {
    colors: boolean;
    theme: Theme;
    bold(text: string): string;
    /** Secondary text, in the theme's `dim` colour. */
    dim(text: string): string;
    italic(text: string): string;
    underline(text: string): string;
    /** Reverse video (SGR 7), written with colours off too. */
    inverse(text: string): string;
    fg(color: ThemeColor, text: string): string;
    /** A "#rrggbb" colour, for the animation shades. */
    hex(color: string, text: string): string;
}

const wrap =
    (open: number, close: number) =>
    (text: string): string =>
        text === "" ? "" : `\x1b[${open}m${text}\x1b[${close}m`;

const plain = (text: string): string => text;

const CUBE = [0, 95, 135, 175, 215, 255];

function nearestCube(v: number): number {
    let best = 0;
    for (let i = 1; i < CUBE.length; i++) {
        if (Math.abs(CUBE[i]! - v) < Math.abs(CUBE[best]! - v)) best = i;
    }
    return best;
}

/** The xterm 256-colour index closest to an RGB colour (cube or grey ramp). */
export function ansi256(r: number, g: number, b: number): number {
    const [ri, gi, bi] = [nearestCube(r), nearestCube(g), nearestCube(b)];
    const cube = [CUBE[ri]!, CUBE[gi]!, CUBE[bi]!];
    const grey = Math.min(23, Math.max(0, Math.round(((r + g + b) / 3 - 8) / 10)));
    const level = 8 + grey * 10;
    const dist = (c: number[]): number => (c[0]! - r) ** 2 + (c[1]! - g) ** 2 + (c[2]! - b) ** 2;
    return dist([level, level, level]) < dist(cube) ? 232 + grey : 16 + 36 * ri + 6 * gi + bi;
}

function parseHex(color: string): [number, number, number] | null {
    const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color);
    if (!m) return null;
    return [parseInt(m[1]!, 16), parseInt(m[2]!, 16), parseInt(m[3]!, 16)];
}

/**
 * `trueColor` false writes the nearest of the 256 colours. An inner colour's
 * end re-opens the outer colour, so nested colours end where they should.
 */
export function createAnsi(colors: boolean, theme: Theme = DARK_THEME, trueColor = true): Ansi {
    if (!colors) {
        return {
            colors,
            theme,
            bold: plain,
            dim: plain,
            italic: plain,
            underline: plain,
            inverse: wrap(7, 27),
            fg: (_color, text) => text,
            hex: (_color, text) => text,
        };
    }
    // Lines are styled role by role, many times a second while streaming: parse each colour once.
    const opens = new Map<string, string | null>();
    const openOf = (color: string): string | null => {
        let open = opens.get(color);
        if (open === undefined) {
            const rgb = parseHex(color);
            open = !rgb
                ? null
                : trueColor
                  ? `\x1b[38;2;${rgb.join(";")}m`
                  : `\x1b[38;5;${ansi256(...rgb)}m`;
            opens.set(color, open);
        }
        return open;
    };
    const hex = (color: string, text: string): string => {
        const open = openOf(color);
        if (open === null || text === "") return text;
        return `${open}${text.replaceAll("\x1b[39m", `\x1b[39m${open}`)}\x1b[39m`;
    };
    return {
        colors,
        theme,
        bold: wrap(1, 22),
        dim: (text) => hex(theme.dim, text),
        italic: wrap(3, 23),
        underline: wrap(4, 24),
        inverse: wrap(7, 27),
        fg: (color, text) => hex(theme[color], text),
        hex,
    };
}
