import { describe, expect, it } from "vitest";
import { createAnsi } from "../../src/ui/render/ansi";
import { diffRows, wrapDiffRows } from "../../src/ui/render/diff-rows";
import {
    MAX_HIGHLIGHT_LINES,
    changedSpans,
    highlightCode,
    loadHighlighter,
} from "../../src/ui/render/highlight";
import { loadMarkdown, renderMarkdown } from "../../src/ui/render/markdown";
import { DARK_THEME, LIGHT_THEME } from "../../src/ui/theme";
import type { FileDiff } from "../../src/tools/types";
import { plain } from "./helpers";

const ESC = String.fromCharCode(27);
const dark = createAnsi(true, DARK_THEME);
const light = createAnsi(true, LIGHT_THEME);
const mono = createAnsi(false);

/** The 24-bit colour ("#rrggbb") the SGR sequences give the first `word` of `line`, or null. */
function colourOf(line: string, word: string): string | null {
    let colour: string | null = null;
    const pattern = new RegExp(`${ESC}\\[([0-9;]*)m|([^${ESC}]+)`, "g");
    for (const [, params, text] of line.matchAll(pattern)) {
        if (params !== undefined) {
            const rgb = /^38;2;(\d+);(\d+);(\d+)$/.exec(params);
            if (rgb) {
                const hex = rgb.slice(1).map((v) => Number(v).toString(16).padStart(2, "0"));
                colour = `#${hex.join("")}`;
            } else if (params === "39") colour = null;
            continue;
        }
        if (text?.includes(word)) return colour;
    }
    return null;
}

const TS_BLOCK = ["```ts", 'const greeting = "hello";', "```"].join("\n");

function fileDiff(path: string, lines: string[]): FileDiff {
    return {
        path,
        isNewFile: false,
        linesAdded: lines.filter((l) => l.startsWith("+")).length,
        linesRemoved: lines.filter((l) => l.startsWith("-")).length,
        diff: [`--- ${path}`, `+++ ${path}`, "@@ -1,2 +1,2 @@", ...lines, ""].join("\n"),
    };
}

describe("syntax highlighting", () => {
    it("draws code plain until the grammars are loaded", async () => {
        await loadMarkdown();
        const line = renderMarkdown(TS_BLOCK, 60, dark)[1]!;
        expect(colourOf(line, "const")).toBe(DARK_THEME.codeBlock);
        expect(colourOf(line, '"hello"')).toBe(DARK_THEME.codeBlock);
        expect(highlightCode("const a = 1;", "ts")).toBeNull();
        expect(changedSpans("value2 = 2", "value2 = 4")).toBeNull();
        await loadHighlighter();
    });

    it("colours a TypeScript block by token: keywords and strings differ", () => {
        const line = renderMarkdown(TS_BLOCK, 60, dark)[1]!;
        expect(plain(line)).toBe('│ const greeting = "hello";');
        expect(colourOf(line, "const")).toBe(DARK_THEME.syntaxKeyword);
        expect(colourOf(line, '"hello"')).toBe(DARK_THEME.syntaxString);
        expect(DARK_THEME.syntaxKeyword).not.toBe(DARK_THEME.syntaxString);
    });

    it("uses the light theme's own colours", () => {
        const line = renderMarkdown(TS_BLOCK, 60, light)[1]!;
        expect(colourOf(line, "const")).toBe(LIGHT_THEME.syntaxKeyword);
        expect(colourOf(line, '"hello"')).toBe(LIGHT_THEME.syntaxString);
        expect(LIGHT_THEME.syntaxKeyword).not.toBe(DARK_THEME.syntaxKeyword);
        expect(LIGHT_THEME.syntaxString).not.toBe(DARK_THEME.syntaxString);
    });

    it("leaves a fence of an unknown language plain, without an error", () => {
        const lines = renderMarkdown("```nosuchlang\nconst x = 'y';\n```", 60, dark);
        expect(plain(lines[0]!)).toBe("╭ nosuchlang");
        expect(colourOf(lines[1]!, "const")).toBe(DARK_THEME.codeBlock);
        expect(colourOf(lines[1]!, "'y'")).toBe(DARK_THEME.codeBlock);
    });

    it("colours a diff block's +/− lines and highlights the code inside by the file's language", () => {
        const md = [
            "```diff",
            "--- a/calc.py",
            "+++ b/calc.py",
            "@@ -1,2 +1,2 @@",
            "-total = compute('a')",
            "+total = compute('b')",
            " print(total)",
            "```",
        ].join("\n");
        const lines = renderMarkdown(md, 60, dark);
        const removed = lines.find((l) => plain(l).includes("-total"))!;
        const added = lines.find((l) => plain(l).includes("+total"))!;
        const context = lines.find((l) => plain(l).includes("print"))!;
        expect(colourOf(removed, "-")).toBe(DARK_THEME.diffRemove);
        expect(colourOf(added, "+")).toBe(DARK_THEME.diffAdd);
        expect(colourOf(added, "total")).toBe(DARK_THEME.diffAdd);
        expect(colourOf(context, "print")).toBe(DARK_THEME.syntaxType);
        expect(colourOf(context, "print")).not.toBe(DARK_THEME.codeBlock);
        // Only the string that changed is marked.
        expect(added).toContain(`${ESC}[7m`);
        expect(plain(added)).toBe("│ +total = compute('b')");
    });

    it("highlights a streaming block the same as the whole block, even across an open comment", () => {
        const whole = [
            "function a() {",
            "  /* a comment",
            "     over lines */",
            '  return "x";',
            "}",
            "const b = 2;",
        ].join("\n");
        const expected = highlightCode(whole, "js");
        expect(expected).not.toBeNull();
        // Delta by delta, as an answer streams in: each prefix drawn, then the next.
        let last: ReturnType<typeof highlightCode> = null;
        for (let end = 1; end <= whole.length; end += 3)
            last = highlightCode(whole.slice(0, Math.min(end, whole.length)), "js");
        last = highlightCode(whole, "js");
        expect(last).toEqual(expected);
        const comment = expected![2]!.find((token) => token.text.includes("over lines"));
        expect(comment?.color).toBe("syntaxComment");
    });

    it(`draws a block over ${MAX_HIGHLIGHT_LINES} lines plain`, () => {
        const huge = Array.from({ length: 10_000 }, (_, i) => `const v${i} = "${i}";`).join("\n");
        expect(highlightCode(huge, "ts")).toBeNull();
        const lines = renderMarkdown(`\`\`\`ts\n${huge}\n\`\`\``, 80, dark);
        expect(lines).toHaveLength(10_001);
        expect(colourOf(lines[1]!, "const")).toBe(DARK_THEME.codeBlock);
    });
});

describe("word-level diff marks", () => {
    it("marks only the changed characters of a changed line", () => {
        expect(changedSpans("value2 = 2", "value2 = 4")).toEqual({
            removed: [[9, 10]],
            added: [[9, 10]],
        });
    });

    it("skips lines that are too long or too unequal, and lines with nothing in common", () => {
        expect(changedSpans("a".repeat(600), `${"a".repeat(599)}b`)).toBeNull();
        expect(changedSpans("x = 1", "x = 1 + some(very, long, expression, here)")).toBeNull();
        expect(changedSpans("alpha", "omega")).toBeNull();
        expect(changedSpans("", "added")).toBeNull();
    });

    it("draws the changed word inverse in an edit's rows, the rest of the line in its +/− colour", () => {
        const diff = fileDiff("calc.ts", ["-const value2 = 2;", "+const value2 = 4;"]);
        const rows = diffRows([diff], Infinity, dark).rows;
        const added = rows.find((row) => row.kind === "add")!;
        const removed = rows.find((row) => row.kind === "remove")!;
        expect(added.styled).toContain(`${ESC}[7m${ESC}[38;2;95;215;95m4`);
        expect(removed.styled).toContain(`${ESC}[7m${ESC}[38;2;255;95;95m2`);
        expect(colourOf(added.styled!, " value2 = ")).toBe(DARK_THEME.diffAdd);
        expect(colourOf(added.styled!, "const")).toBe(DARK_THEME.syntaxKeyword);
        // Inverse wraps the changed character only.
        const inverse = [
            ...added.styled!.matchAll(new RegExp(`${ESC}\\[7m(.*?)${ESC}\\[27m`, "g")),
        ];
        expect(inverse.map((m) => plain(m[1]!))).toEqual(["4"]);
    });

    it("with NO_COLOR writes no colour, keeps the +/− markers and marks the changed word inverse", () => {
        const diff = fileDiff("calc.ts", ["-const value2 = 2;", "+const value2 = 4;"]);
        const rows = diffRows([diff], Infinity, mono).rows;
        const styled = rows.map((row) => row.styled ?? row.text);
        expect(styled).toContain(`-const value2 = ${ESC}[7m2${ESC}[27m;`);
        expect(styled).toContain(`+const value2 = ${ESC}[7m4${ESC}[27m;`);
        const sgr = styled.join("\n").match(new RegExp(`${ESC}\\[[0-9;]*m`, "g")) ?? [];
        expect(new Set(sgr)).toEqual(new Set([`${ESC}[7m`, `${ESC}[27m`]));
        const md = renderMarkdown("```diff\n-a = 1\n+a = 2\n```", 40, mono);
        expect(md.map(plain)).toEqual(["╭ diff", "│ -a = 1", "│ +a = 2"]);
        expect(md.join("\n")).not.toMatch(new RegExp(`${ESC}\\[3[0-9;]`));
    });
});

describe("continuation marks for wrapped code", () => {
    it("continues a wrapped code line at its indentation after ↪", () => {
        const code = "    const result = computeSomething(firstArgument, secondArgument, third);";
        const lines = renderMarkdown(`\`\`\`ts\n${code}\n\`\`\``, 40, mono);
        expect(lines[1]).toBe("│     const result = ");
        for (const line of lines.slice(2)) expect(line).toMatch(/^│ {5}↪ \S/);
        const rejoined = lines
            .slice(1)
            .map((line, i) => (i === 0 ? line.slice(2) : line.replace(/^│ {5}↪ /, "")))
            .join("");
        expect(rejoined).toBe(code);
    });

    it("continues a wrapped diff row under its code, the +/− column and gutter blank", () => {
        const long = `+    call(${"argument, ".repeat(8)}last);`;
        const diff = fileDiff("a.ts", ["-    call();", long]);
        const rows = wrapDiffRows(diffRows([diff], Infinity, dark).rows, 40, dark);
        const added = rows.filter((row) => row.kind === "add");
        expect(added.length).toBeGreaterThan(1);
        expect(added[0]!.text.startsWith("+    call(")).toBe(true);
        for (const row of added.slice(1)) {
            expect(row.gutter.trim()).toBe("");
            expect(row.text).toMatch(/^ {5}↪ /);
            expect(plain(row.styled!)).toBe(row.text);
        }
        const rejoined = added.map((row, i) => (i === 0 ? row.text : row.text.slice(7))).join("");
        expect(rejoined).toBe(long);
    });
});
