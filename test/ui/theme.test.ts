import { describe, expect, it } from "vitest";
import { parseLayer } from "../../src/storage/settings/load";
import { ansi256, createAnsi } from "../../src/ui/render/ansi";
import {
    DARK_THEME,
    LIGHT_THEME,
    resolveTheme,
    supportsTrueColor,
    type Theme,
    themeFromColorFgBg,
} from "../../src/ui/theme";

/** WCAG 2 relative luminance of "#rrggbb". */
function luminance(hex: string): number {
    const [r, g, b] = [1, 3, 5].map((i) => {
        const v = parseInt(hex.slice(i, i + 2), 16) / 255;
        return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

function contrast(a: string, b: string): number {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi! + 0.05) / (lo! + 0.05);
}

/** The RGB of an xterm 256-colour index (16–255), as terminals draw it. */
function xterm256(index: number): string {
    const hex = (v: number): string => v.toString(16).padStart(2, "0");
    if (index >= 232) return `#${hex(8 + (index - 232) * 10).repeat(3)}`;
    const levels = [0, 95, 135, 175, 215, 255];
    const i = index - 16;
    return `#${[Math.floor(i / 36), Math.floor(i / 6) % 6, i % 6].map((n) => hex(levels[n]!)).join("")}`;
}

/** Every colour of a theme: the single ones (text) and the cycled frames (markers, borders). */
function coloursOf(theme: Theme): {
    text: Array<[string, string]>;
    cycled: Array<[string, string]>;
} {
    const text: Array<[string, string]> = [];
    const cycled: Array<[string, string]> = [];
    for (const [role, value] of Object.entries(theme)) {
        if (role === "name") continue;
        if (typeof value === "string") text.push([role, value]);
        else for (const frame of value as string[]) cycled.push([role, frame]);
    }
    return { text, cycled };
}

const BACKGROUNDS: Array<[Theme, string]> = [
    [LIGHT_THEME, "#ffffff"],
    [DARK_THEME, "#000000"],
];

describe("theme contrast (WCAG 2)", () => {
    for (const [theme, background] of BACKGROUNDS) {
        it(`${theme.name}: every text colour ≥ 4.5:1 and every frame ≥ 3:1 on ${background}`, () => {
            const { text, cycled } = coloursOf(theme);
            expect(text.length).toBeGreaterThan(20);
            const low = [
                ...text.filter(([, c]) => contrast(c, background) < 4.5),
                ...cycled.filter(([, c]) => contrast(c, background) < 3),
            ].map(([role, c]) => `${role} ${c} ${contrast(c, background).toFixed(2)}:1`);
            expect(low).toEqual([]);
        });

        it(`${theme.name}: the 256-colour fallback keeps the text colours ≥ 4.5:1`, () => {
            const low = coloursOf(theme)
                .text.map(([role, c]) => {
                    const rgb = [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16));
                    const drawn = xterm256(ansi256(rgb[0]!, rgb[1]!, rgb[2]!));
                    return [role, drawn, contrast(drawn, background)] as const;
                })
                .filter(([, , ratio]) => ratio < 4.5);
            expect(low).toEqual([]);
        });
    }

    it("the light pending-review border is ≥ 3:1 on white (the dark one's yellow is not)", () => {
        for (const frame of LIGHT_THEME.pendingBorder) {
            expect(contrast(frame, "#ffffff")).toBeGreaterThanOrEqual(3);
        }
        expect(contrast(DARK_THEME.pendingBorder[1]!, "#ffffff")).toBeLessThan(1.2);
    });
});

describe("choosing the theme", () => {
    it("follows the setting, dark when unset", () => {
        expect(resolveTheme("light", {}).name).toBe("light");
        expect(resolveTheme("dark", { COLORFGBG: "0;15" }).name).toBe("dark");
        expect(resolveTheme(undefined, { COLORFGBG: "0;15" }).name).toBe("dark");
    });

    it("auto reads the background from COLORFGBG, else dark", () => {
        expect(resolveTheme("auto", { COLORFGBG: "0;15" }).name).toBe("light");
        expect(resolveTheme("auto", { COLORFGBG: "0;default;7" }).name).toBe("light");
        expect(resolveTheme("auto", { COLORFGBG: "15;0" }).name).toBe("dark");
        expect(resolveTheme("auto", { COLORFGBG: "7;8" }).name).toBe("dark");
        expect(resolveTheme("auto", {}).name).toBe("dark");
        expect(themeFromColorFgBg("15;default")).toBeNull();
        expect(themeFromColorFgBg("")).toBeNull();
    });

    it("knows which terminals draw 24-bit colour", () => {
        expect(supportsTrueColor({ COLORTERM: "truecolor" })).toBe(true);
        expect(supportsTrueColor({ TERM_PROGRAM: "iTerm.app" })).toBe(true);
        expect(supportsTrueColor({ TERM: "xterm-256color" })).toBe(false);
        expect(supportsTrueColor({ TERM_PROGRAM: "Apple_Terminal" })).toBe(false);
    });
});

describe("theme colours in transcript lines", () => {
    it("writes the theme's colour: 24-bit, or its 256-colour index", () => {
        expect(createAnsi(true, LIGHT_THEME).fg("error", "x")).toBe("\x1b[38;2;175;0;0mx\x1b[39m");
        expect(createAnsi(true, LIGHT_THEME, false).fg("error", "x")).toBe(
            "\x1b[38;5;124mx\x1b[39m"
        );
        expect(createAnsi(true, DARK_THEME).dim("x")).toBe("\x1b[38;2;138;138;138mx\x1b[39m");
    });

    it("an inner colour's end goes back to the outer colour", () => {
        const ansi = createAnsi(true, LIGHT_THEME);
        const line = ansi.dim(`a ${ansi.fg("code", "b")} c`);
        const dim = "\x1b[38;2;98;98;98m";
        expect(line).toBe(`${dim}a \x1b[38;2;0;95;135mb\x1b[39m${dim} c\x1b[39m`);
    });

    it("with colours off (NO_COLOR) writes no escape, whatever the theme", () => {
        for (const theme of [LIGHT_THEME, DARK_THEME]) {
            const ansi = createAnsi(false, theme);
            const out = [
                ansi.fg("error", "e"),
                ansi.dim("d"),
                ansi.hex(theme.pendingBorder[0]!, "p"),
                ansi.bold("b"),
            ].join("");
            expect(out).toBe("edpb");
        }
    });
});

describe("the theme setting", () => {
    const file = "/home/u/.config/north/config.json";

    it("is a user setting: dark, light or auto", () => {
        const read = parseLayer(JSON.stringify({ theme: "light" }), file, "user");
        expect(read.layer?.settings.theme).toBe("light");
        expect(read.errors).toEqual([]);
        expect(read.warnings).toEqual([]);
    });

    it("a bad value is an error naming the key", () => {
        const read = parseLayer(JSON.stringify({ theme: "solarized" }), file, "user");
        expect(read.layer?.settings.theme).toBeUndefined();
        expect(read.errors.join("\n")).toMatch(/config\.json is invalid: theme:/);
    });

    it("a project file cannot set it", () => {
        const read = parseLayer(
            JSON.stringify({ theme: "light" }),
            "/repo/.north/settings.json",
            "project"
        );
        expect(read.layer?.settings.theme).toBeUndefined();
        expect(read.warnings).toEqual([
            '/repo/.north/settings.json: "theme" is a user setting: set it in ~/.config/north/config.json; ignored here',
        ]);
    });
});
