/**
 * The chat's colours by meaning, in a dark and a light palette. Every value is
 * a "#rrggbb" colour, so its contrast against the background is known (the
 * light palette is checked against white, the dark one against black, in
 * test/ui/theme.test.ts). Most values come from the xterm 256-colour cube, so
 * a terminal without 24-bit colour shows them unchanged.
 */
import type { Mode } from "../agent/events";

export type ThemeName = "dark" | "light";
/** The `theme` setting: `auto` follows the terminal's background when it says (COLORFGBG). */
export type ThemeSetting = ThemeName | "auto";

export interface Theme {
    name: ThemeName;
    /** Selection markers, the composer prompt, highlighted picker rows. */
    accent: string;
    /** The user's prompt marker. */
    user: string;
    /** The assistant's marker. */
    assistant: string;
    /** The assistant's marker while it streams, cycled (the first is `assistant`). */
    assistantPulse: readonly string[];
    /** The spinner of a running tool. */
    toolRunning: string;
    /** The shell tool's marker. */
    tool: string;
    success: string;
    error: string;
    warning: string;
    /** Hints, folded output, secondary text. */
    dim: string;
    /** Dialog borders (/costs). */
    border: string;
    /** A review waiting for the user, cycled while it waits (the first is the steady one). */
    pendingBorder: readonly string[];
    diffAdd: string;
    diffRemove: string;
    diffHunk: string;
    /** Inline code and code blocks in Markdown. */
    code: string;
    codeBlock: string;
    /** Syntax colours of highlighted code (code blocks, diffs): keywords and tags. */
    syntaxKeyword: string;
    /** Strings, regular expressions, characters. */
    syntaxString: string;
    /** Numbers and literals (true, null). */
    syntaxNumber: string;
    syntaxComment: string;
    /** Names being defined: functions, classes, sections. */
    syntaxFunction: string;
    /** Types and built-ins. */
    syntaxType: string;
    /** Attributes, properties, variables. */
    syntaxProperty: string;
    /** Preprocessor lines, decorators, shebangs. */
    syntaxMeta: string;
    listMarker: string;
    statusModel: string;
    costSession: string;
    costAllTime: string;
    /** The context gauge: under 60 %, to 85 %, above. */
    contextLow: string;
    contextMid: string;
    contextHigh: string;
    modeAsk: string;
    modeAgent: string;
    /** Accept edits: edits land without review, so it stands out. */
    modeAcceptEdits: string;
    modePlan: string;
}

/** A single colour of the theme, by meaning (the cycled ones excepted). */
export type ThemeColor = {
    [K in keyof Theme]: Theme[K] extends string ? (K extends "name" ? never : K) : never;
}[keyof Theme];

/** The colour of each mode's name (composer badge, status line). */
export const MODE_COLORS: Record<Mode, ThemeColor> = {
    ask: "modeAsk",
    agent: "modeAgent",
    "accept-edits": "modeAcceptEdits",
    plan: "modePlan",
};

export const DARK_THEME: Theme = {
    name: "dark",
    accent: "#00d7d7",
    user: "#00d7d7",
    assistant: "#d75fd7",
    // The spec's streaming pulse.
    assistantPulse: ["#d75fd7", "#ff6ec7", "#ff8fd5", "#ffa0dc", "#ff8fd5", "#ff6ec7"],
    toolRunning: "#d7d700",
    tool: "#5f87ff",
    success: "#5fd75f",
    error: "#ff5f5f",
    warning: "#d7d700",
    dim: "#8a8a8a",
    border: "#5f87ff",
    // The spec's pending pulse: yellow → #ffff87 → #ffffaf → back.
    pendingBorder: ["#d7d700", "#ffff87", "#ffffaf", "#ffff87"],
    diffAdd: "#5fd75f",
    diffRemove: "#ff5f5f",
    diffHunk: "#00d7d7",
    code: "#00d7d7",
    codeBlock: "#5fd75f",
    syntaxKeyword: "#af87ff",
    syntaxString: "#87d787",
    syntaxNumber: "#ffaf5f",
    syntaxComment: "#808080",
    syntaxFunction: "#5fafff",
    syntaxType: "#5fd7d7",
    syntaxProperty: "#ffd787",
    syntaxMeta: "#d7875f",
    listMarker: "#d7d700",
    statusModel: "#8a8a8a",
    costSession: "#5fd75f",
    costAllTime: "#5f87ff",
    contextLow: "#5fd75f",
    contextMid: "#d7d700",
    contextHigh: "#ff5f5f",
    modeAsk: "#00d7d7",
    modeAgent: "#5fd75f",
    modeAcceptEdits: "#ffaf00",
    modePlan: "#d75fd7",
};

export const LIGHT_THEME: Theme = {
    name: "light",
    accent: "#005f87",
    user: "#005f87",
    assistant: "#870087",
    assistantPulse: ["#870087", "#af00af", "#af5faf", "#af00af"],
    toolRunning: "#875f00",
    tool: "#005faf",
    success: "#005f00",
    error: "#af0000",
    warning: "#875f00",
    dim: "#626262",
    border: "#005faf",
    // Amber shades dark enough for a white background (≥ 3:1 each).
    pendingBorder: ["#875f00", "#af5f00", "#af8700", "#af5f00"],
    diffAdd: "#005f00",
    diffRemove: "#af0000",
    diffHunk: "#005f87",
    code: "#005f87",
    codeBlock: "#005f00",
    syntaxKeyword: "#8700af",
    syntaxString: "#005f00",
    syntaxNumber: "#af5f00",
    syntaxComment: "#6c6c6c",
    syntaxFunction: "#005faf",
    syntaxType: "#005f87",
    syntaxProperty: "#875f00",
    syntaxMeta: "#870000",
    listMarker: "#875f00",
    statusModel: "#626262",
    costSession: "#005f00",
    costAllTime: "#005faf",
    contextLow: "#005f00",
    contextMid: "#875f00",
    contextHigh: "#af0000",
    modeAsk: "#005f87",
    modeAgent: "#005f00",
    modeAcceptEdits: "#af5f00",
    modePlan: "#870087",
};

/**
 * The background COLORFGBG reports ("15;0", "0;default;15": its last field),
 * read as vim does: 0–6 and 8 are dark, other colours light. Null when unset
 * or unreadable.
 */
export function themeFromColorFgBg(value: string | undefined): ThemeName | null {
    const last = value?.split(";").at(-1)?.trim();
    if (last === undefined || !/^\d+$/.test(last)) return null;
    const bg = Number(last);
    return bg <= 6 || bg === 8 ? "dark" : "light";
}

/** The palette for the `theme` setting (dark when unset, or when `auto` cannot tell). */
export function resolveTheme(
    setting: ThemeSetting | undefined,
    env: Record<string, string | undefined>
): Theme {
    const name =
        setting === "auto" ? (themeFromColorFgBg(env.COLORFGBG) ?? "dark") : (setting ?? "dark");
    return name === "light" ? LIGHT_THEME : DARK_THEME;
}

/** 24-bit colour where the terminal says it has it, else the 256-colour palette. */
export function supportsTrueColor(env: Record<string, string | undefined>): boolean {
    const colorterm = env.COLORTERM?.toLowerCase() ?? "";
    if (colorterm === "truecolor" || colorterm === "24bit") return true;
    const program = env.TERM_PROGRAM ?? "";
    if (["iTerm.app", "WezTerm", "vscode", "ghostty"].includes(program)) return true;
    return /-direct$|kitty|ghostty|truecolor/.test(env.TERM ?? "");
}
