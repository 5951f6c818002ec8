/**
 * North's copies of string-width, slice-ansi's and ansi-tokenize's tokenizers (vendor/,
 * changed for start-up) must return exactly what the installed packages return, for every
 * copy North bundles.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { vendoredCopyOf } from "../../scripts/vendored-files.mjs";

/** The text of North's copy of the installed `file`. */
function vendoredText(file: string): string {
    const vendored = vendoredCopyOf(file);
    if (!vendored) throw new Error(`vendor/ has no copy of ${file}`);
    return readFileSync(vendored.copy, "utf8");
}

type StringWidth = (text: string, options?: { ambiguousIsNarrow?: boolean }) => number;

const root = join(import.meta.dirname, "..", "..");
const COPIES = {
    "8.x (North, Ink)": join(root, "node_modules/string-width/index.js"),
    "7.x (Ink's wrap-ansi)": join(
        root,
        "node_modules/ink/node_modules/wrap-ansi/node_modules/string-width/index.js"
    ),
};

/** The package's source with its bare imports made absolute, so a copy loads from anywhere. */
function withAbsoluteImports(source: string, file: string): string {
    const resolve = createRequire(file).resolve;
    return source.replace(
        /from '([a-z-]+)';/g,
        (_, name: string) => `from '${pathToFileURL(resolve(name)).href}';`
    );
}

const CORPUS = [
    "",
    "plain ascii text",
    "North · claude-sonnet-4 · /tmp/repo",
    "❯ ",
    "──────────",
    "Ctrl+R older · Enter edit · Esc cancel",
    "\u001b[31mred · text\u001b[39m",
    "中文字符",
    "日本語のテキスト",
    "한국어",
    "\u1100\u1161\u11a8",
    "😀",
    "👍🏽",
    "👨‍👩‍👧‍👦",
    "🏳️‍🌈",
    "©",
    "©️",
    "▶",
    "▶️",
    "⌚",
    "1️⃣",
    "#\u20e3",
    "🇫🇷",
    "e\u0301",
    "a\u0300\u0301\u0302",
    "\u00ad",
    "\u200b",
    "\u202e",
    "ｶﾞ",
    "tab\there",
    "\u0000\u0007",
    "mixed 中 ascii ─ 😀 é",
    "±×÷ ¼½¾ ¡¿ «»",
    "→ ← ↑ ↓ ⇒ ∀ ∃ ≤ ≥",
    "╭─╮│╰─╯ ▁▂▃ ░▒▓ █",
    "ʼ ˈ ˌ ɐ ə",
];

/** Every code point of the ranges the fast path takes, alone and beside other text. */
function fastPathSamples(): string[] {
    const samples: string[] = [];
    for (const [from, to] of [
        [0x20, 0x7e],
        [0xa0, 0x2ff],
        [0x2010, 0x205e],
        [0x2190, 0x2bff],
    ] as const) {
        for (let cp = from; cp <= to; cp++) {
            const char = String.fromCodePoint(cp);
            samples.push(char, `a${char}b`, `${char}\u0301`, `${char}\ufe0f`, `${char}\u200d😀`);
        }
    }
    return samples;
}

describe.each(Object.entries(COPIES))("North's string-width %s", (_, file) => {
    let dir: string;
    let original: StringWidth;
    let patched: StringWidth;

    beforeAll(async () => {
        dir = mkdtempSync(join(tmpdir(), "north-string-width-"));
        const source = readFileSync(file, "utf8");
        writeFileSync(join(dir, "original.mjs"), withAbsoluteImports(source, file));
        writeFileSync(join(dir, "patched.mjs"), withAbsoluteImports(vendoredText(file), file));
        original = (await import(pathToFileURL(join(dir, "original.mjs")).href)).default;
        patched = (await import(pathToFileURL(join(dir, "patched.mjs")).href)).default;
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("builds neither the Intl.Segmenter nor the RGI_Emoji regex at import", () => {
        const source = vendoredText(file);
        expect(source).not.toContain("const segmenter = new Intl.Segmenter()");
        expect(source).not.toMatch(/^const rgiEmojiRegex/m);
        expect(source).toContain("northFastWidth(string, !ambiguousIsNarrow)");
    });

    it("returns the unpatched widths for ASCII, CJK, emoji, marks and ZWJ sequences", () => {
        for (const ambiguousIsNarrow of [true, false]) {
            for (const text of [...CORPUS, ...fastPathSamples()]) {
                const options = { ambiguousIsNarrow };
                if (patched(text, options) !== original(text, options)) {
                    expect
                        .soft(
                            patched(text, options),
                            `${JSON.stringify(text)} ${ambiguousIsNarrow}`
                        )
                        .toBe(original(text, options));
                }
            }
        }
        expect(patched("中文 · 😀")).toBe(original("中文 · 😀"));
    });
});

const TOKENIZERS = {
    "@alcalzone/ansi-tokenize": [
        "node_modules/@alcalzone/ansi-tokenize/build/tokenize.js",
        "tokenize",
    ],
    "slice-ansi": ["node_modules/slice-ansi/tokenize-ansi.js", "default"],
} as const;

describe.each(Object.entries(TOKENIZERS))(
    "North's %s (split by hand when every code unit is a cluster)",
    (_, [path, exportName]) => {
        type Tokenize = (text: string, limit?: unknown) => unknown[];
        const file = join(root, path);
        let dir: string;
        let original: Tokenize;
        let patched: Tokenize;

        beforeAll(async () => {
            dir = mkdtempSync(join(tmpdir(), "north-tokenize-"));
            const loadable = (source: string): string =>
                source
                    .replace(/^\/\/# sourceMappingURL=.*$/m, "")
                    .replace(
                        /from ["'](\.\/[\w.-]+|[\w-]+)["'];/g,
                        (_, name: string) =>
                            `from "${pathToFileURL(name.startsWith(".") ? join(dirname(file), name) : createRequire(file).resolve(name)).href}";`
                    );
            writeFileSync(join(dir, "original.mjs"), loadable(readFileSync(file, "utf8")));
            writeFileSync(join(dir, "patched.mjs"), loadable(vendoredText(file)));
            original = (await import(pathToFileURL(join(dir, "original.mjs")).href))[exportName];
            patched = (await import(pathToFileURL(join(dir, "patched.mjs")).href))[exportName];
        });
        afterAll(() => rmSync(dir, { recursive: true, force: true }));

        it("builds no Intl.Segmenter at import", () => {
            const source = vendoredText(file);
            expect(source).not.toMatch(/^const \w+ = new Intl\.Segmenter/m);
        });

        it("returns the unpatched tokens for styled text, links, wide and combined characters", () => {
            const styled = (text: string) =>
                `\u001b[1m\u001b[38;2;1;2;3m${text}\u001b[39m\u001b[22m`;
            const link = "\u001b]8;;https://example.com\u0007link\u001b]8;;\u0007";
            const limit = exportName === "default" ? { endCharacter: 3 } : 3;
            // The per-character samples in lines of 40, as Ink hands over whole lines.
            const characters = fastPathSamples();
            const lines = Array.from({ length: Math.ceil(characters.length / 40) }, (_, i) =>
                characters.slice(i * 40, i * 40 + 40).join(" ")
            );
            const samples = [...CORPUS, ...lines, "\r\n", "a\r\nb", link];
            for (const text of samples) {
                for (const input of [text, styled(text), `${link} ${text}`]) {
                    for (const end of [undefined, limit]) {
                        const expected = original(input, end);
                        // Deep comparison of every sample is slow: assert only the differences.
                        if (JSON.stringify(patched(input, end)) !== JSON.stringify(expected)) {
                            expect
                                .soft(patched(input, end), JSON.stringify([input, end]))
                                .toEqual(expected);
                        }
                    }
                }
            }
        });
    }
);
