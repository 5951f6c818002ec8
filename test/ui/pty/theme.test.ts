/**
 * The theme setting end to end: the colours the terminal actually receives
 * for the pending review's border, read from the emulator's cells.
 * Needs `npm run build` first.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type NorthPtySession, type PtyNorth, startNorthSession } from "../../kit/pty";

const TIMEOUT = 30_000;
const ESC = String.fromCharCode(27);
const LIGHT_BORDER = ["#875f00", "#af5f00", "#af8700"];
const DARK_BORDER = ["#d7d700", "#ffff87", "#ffffaf"];

let session: NorthPtySession | undefined;
let configDir: string | undefined;
afterEach(async () => {
    await session?.dispose();
    session = undefined;
    if (configDir) rmSync(configDir, { recursive: true, force: true });
    configDir = undefined;
});

/** A user config folder holding `settings`. */
function userConfig(settings: Record<string, unknown>): string {
    configDir = mkdtempSync(join(tmpdir(), "north-theme-config-"));
    writeFileSync(join(configDir, "config.json"), JSON.stringify(settings));
    return configDir;
}

interface CellColour {
    kind: "rgb" | "palette" | "default";
    value: number;
}

/** The colour of the first cell on screen holding `char`, scanning from the bottom. */
function colourOf(north: PtyNorth, char: string): CellColour | null {
    const buffer = north.term.buffer.active;
    for (let y = north.term.rows - 1; y >= 0; y--) {
        const line = buffer.getLine(buffer.viewportY + y);
        if (!line) continue;
        for (let x = 0; x < north.term.cols; x++) {
            const cell = line.getCell(x);
            if (cell?.getChars() !== char) continue;
            if (cell.isFgRGB()) return { kind: "rgb", value: cell.getFgColor() };
            if (cell.isFgPalette()) return { kind: "palette", value: cell.getFgColor() };
            return { kind: "default", value: -1 };
        }
    }
    return null;
}

const hex = (rgb: number): string => `#${rgb.toString(16).padStart(6, "0")}`;

async function showEditReview(options: { env: NodeJS.ProcessEnv }): Promise<NorthPtySession> {
    session = await startNorthSession({ files: { "app.ts": "export const a = 1;\n" }, ...options });
    session.server.enqueue(
        {
            toolCalls: [
                {
                    name: "edit_replace_exact",
                    input: { path: "app.ts", old_text: "a = 1", new_text: "a = 2" },
                },
            ],
        },
        { text: "Done." }
    );
    await session.submit("change a");
    await session.north.waitForText("Yes, make this edit");
    return session;
}

describe("themes in the chat", () => {
    it(
        'with "theme": "light" the pending review border is a dark amber (≥ 3:1 on white)',
        async () => {
            const { north } = await showEditReview({
                env: { NORTH_CONFIG_DIR: userConfig({ theme: "light" }) },
            });
            const border = colourOf(north, "╭");
            expect(border?.kind).toBe("rgb");
            expect(LIGHT_BORDER).toContain(hex(border!.value));
            // The pre-rendered transcript follows the theme too: the prompt's ❯ in the light accent.
            const marker = colourOf(north, "❯");
            expect(marker).toEqual({ kind: "rgb", value: 0x005f87 });
        },
        TIMEOUT
    );

    it(
        "without the setting the border is the dark theme's yellow",
        async () => {
            const { north } = await showEditReview({ env: {} });
            const border = colourOf(north, "╭");
            expect(border?.kind).toBe("rgb");
            expect(DARK_BORDER).toContain(hex(border!.value));
        },
        TIMEOUT
    );

    it(
        "NO_COLOR writes no colour at all, even with the light theme",
        async () => {
            const { north } = await showEditReview({
                env: { NORTH_CONFIG_DIR: userConfig({ theme: "light" }), NO_COLOR: "1" },
            });
            expect(colourOf(north, "╭")).toEqual({ kind: "default", value: -1 });
            expect(colourOf(north, "❯")).toEqual({ kind: "default", value: -1 });
            // No SGR sequence that sets a foreground or background colour, anywhere in the output.
            const sgr = [...north.output().matchAll(new RegExp(`${ESC}\\[([0-9;]*)m`, "g"))].map(
                (m) => m[1] ?? ""
            );
            const colours = sgr.filter((params) =>
                params.split(";").some((p) => /^(3[0-8]|4[0-8]|9[0-7]|10[0-7])$/.test(p))
            );
            expect(colours).toEqual([]);
        },
        TIMEOUT
    );
});
