import stringWidth from "string-width";
import { beforeAll, describe, expect, it } from "vitest";
import { createAnsi } from "../../src/ui/render/ansi";
import { loadMarkdown, renderMarkdown } from "../../src/ui/render/markdown";
import { plain } from "./helpers";

beforeAll(() => loadMarkdown());

const color = createAnsi(true);
const mono = createAnsi(false);

describe("markdown rendering", () => {
    it("renders headings, lists, code blocks and inline styles", () => {
        const md = [
            "# Title",
            "",
            "Some **bold**, *em* and `code` text.",
            "",
            "- one",
            "- two",
            "  - nested",
            "",
            "1. first",
            "2. second",
            "",
            "```ts",
            "const x = 1;",
            "```",
            "",
            "> quoted",
        ].join("\n");
        const lines = renderMarkdown(md, 40, mono);
        expect(lines).toEqual([
            "Title",
            "",
            "Some bold, em and code text.",
            "",
            "• one",
            "• two",
            "  • nested",
            "",
            "1. first",
            "2. second",
            "",
            "╭ ts",
            "│ const x = 1;",
            "",
            "▎ quoted",
        ]);
    });

    it("styles with ANSI when colours are on and never when off", () => {
        const styled = renderMarkdown("**bold** `code`", 40, color);
        expect(styled[0]).toContain("\x1b[1m");
        expect(plain(styled[0]!)).toBe("bold code");
        const none = renderMarkdown("# H\n\n**bold** `code`\n\n```\nx\n```", 40, mono);
        expect(none.join("\n")).not.toContain("\x1b");
    });

    it("wraps every line to the width, with hanging indents in lists", () => {
        const md = `- ${"word ".repeat(30)}\n\n${"longword".repeat(20)}`;
        const lines = renderMarkdown(md, 30, color);
        for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(30);
        expect(plain(lines[1]!).startsWith("  word")).toBe(true);
    });

    it("renders tables that fit and falls back when they do not", () => {
        const md = "| a | bb |\n|---|---:|\n| 1 | 2 |";
        expect(renderMarkdown(md, 40, mono)).toEqual(["a │ bb", "──┼───", "1 │  2"]);
        const wide = renderMarkdown(md, 4, mono);
        for (const line of wide) expect(stringWidth(line)).toBeLessThanOrEqual(4);
    });

    it("decodes entities and shows link targets", () => {
        const lines = renderMarkdown("a &amp; b [docs](https://x.dev) <https://y.dev>", 80, mono);
        expect(lines).toEqual(["a & b docs (https://x.dev) https://y.dev"]);
    });

    it("copes with unfinished markdown while streaming", () => {
        expect(renderMarkdown("```ts\nconst a", 20, mono)).toEqual(["╭ ts", "│ const a"]);
        expect(renderMarkdown("**unclosed", 20, mono)).toEqual(["**unclosed"]);
        expect(renderMarkdown("", 20, mono)).toEqual([]);
    });
});

describe("sanitizing", () => {
    it("drops escapes and controls, keeps the last write of a carriage-returned line", async () => {
        const { sanitizeText } = await import("../../src/ui/render/sanitize");
        expect(sanitizeText("plain")).toBe("plain");
        expect(sanitizeText("a\x1b[2J\x1b[31mred\x1b[0m\x07b")).toBe("aredb");
        expect(sanitizeText("10%\r50%\r100%\nnext\r\n")).toBe("100%\nnext\n");
        expect(sanitizeText("\x1b]0;title\x07ok")).toBe("ok");
    });
});
