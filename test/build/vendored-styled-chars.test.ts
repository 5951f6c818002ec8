/**
 * North's styledCharsToString (vendor/, changed for speed) must turn every line Ink hands
 * it into exactly the text the installed function returns.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { vendoredCopyOf } from "../../scripts/vendored-files.mjs";

const root = join(import.meta.dirname, "..", "..");
const file = join(root, "node_modules/@alcalzone/ansi-tokenize/build/styledChars.js");

interface StyledChar {
    value: string;
    styles: unknown[];
}
interface Tokenizer {
    tokenize(text: string): unknown[];
    styledCharsFromTokens(tokens: unknown[]): StyledChar[];
    styledCharsToString(chars: StyledChar[]): string;
}

/** The module's source with its relative imports made absolute, so a copy loads from anywhere. */
function loadable(source: string): string {
    return source
        .replace(/^\/\/# sourceMappingURL=.*$/m, "")
        .replace(
            /from "(\.\/[\w.-]+)";/g,
            (_, name: string) => `from "${pathToFileURL(join(dirname(file), name)).href}";`
        );
}

const STYLED_LINES = [
    "",
    "plain text with no styles at all",
    "\u001b[31mred\u001b[39m then plain",
    "\u001b[1mbold \u001b[2mand dim\u001b[22m back to normal",
    "\u001b[1m\u001b[38;2;1;2;3mtrue colour bold\u001b[39m\u001b[22m",
    "\u001b[7m inverse \u001b[27m \u001b[4munderlined\u001b[24m",
    "\u001b[32m\u001b[42mgreen on green\u001b[49m still green\u001b[39m",
    "\u001b[38;5;244m╭──────╮\u001b[39m ❯ composer ▌",
    "\u001b]8;;https://example.com\u0007link\u001b]8;;\u0007 after",
    "中文 \u001b[33m😀 wide\u001b[39m é",
    "\u001b[1mends styled",
];

describe("North's styledCharsToString (vendor/)", () => {
    let dir: string;
    let original: Tokenizer;
    let patched: Tokenizer;

    beforeAll(async () => {
        dir = mkdtempSync(join(tmpdir(), "north-styled-chars-"));
        const source = readFileSync(file, "utf8");
        writeFileSync(join(dir, "original.mjs"), loadable(source));
        writeFileSync(
            join(dir, "patched.mjs"),
            loadable(readFileSync(vendoredCopyOf(file)!.copy, "utf8"))
        );
        const index = await import(pathToFileURL(join(dirname(file), "index.js")).href);
        original = { ...index, ...(await import(pathToFileURL(join(dir, "original.mjs")).href)) };
        patched = { ...index, ...(await import(pathToFileURL(join(dir, "patched.mjs")).href)) };
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("returns the unpatched text for styled, unstyled, linked and wide lines", () => {
        for (const line of STYLED_LINES) {
            const chars = original.styledCharsFromTokens(original.tokenize(line));
            expect(patched.styledCharsToString(chars), JSON.stringify(line)).toBe(
                original.styledCharsToString(chars)
            );
        }
    });

    it("returns the unpatched text when cells of one line are laid out from several", () => {
        // Ink copies cells from many writes into one row: neighbours with equal styles in
        // different arrays, or in a different order, must still come out the same.
        const cells = STYLED_LINES.flatMap((line) =>
            original.styledCharsFromTokens(original.tokenize(line))
        );
        const shuffled = cells.map((_, i) => cells[(i * 7919) % cells.length]!);
        const reordered = cells.map((cell) => ({ ...cell, styles: [...cell.styles].reverse() }));
        for (const row of [cells, shuffled, reordered, [...cells].reverse()]) {
            expect(patched.styledCharsToString(row)).toBe(original.styledCharsToString(row));
        }
    });
});
