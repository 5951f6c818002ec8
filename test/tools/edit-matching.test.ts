import { describe, expect, it } from "vitest";
import { firstDifference, notFoundMessage } from "../../src/tools/editing/diagnostics";
import { findMatches, replaceMatch } from "../../src/tools/editing/match";
import { lineStarts } from "../../src/tools/editing/text-doc";

function replace(text: string, search: string, replacement: string, eol: "\n" | "\r\n" = "\n") {
    const starts = lineStarts(text);
    const set = findMatches(text, starts, search);
    expect(set.matches).toHaveLength(1);
    const match = set.matches[0]!;
    return {
        level: set.level,
        text: replaceMatch(text, starts, match, search, replacement, eol),
        match,
    };
}

describe("findMatches levels", () => {
    it("prefers an exact match and reports its lines", () => {
        const text = "a\nfoo bar\nb\n";
        const set = findMatches(text, lineStarts(text), "foo bar");
        expect(set.level).toBe("exact");
        expect(set.matches.map((m) => [m.startLine, m.endLine])).toEqual([[2, 2]]);
    });

    it("finds every exact occurrence in file order", () => {
        const text = "x = 1\ny = 2\nx = 1\n";
        const set = findMatches(text, lineStarts(text), "x = 1");
        expect(set.matches.map((m) => m.startLine)).toEqual([1, 3]);
    });

    it("matches LF search text in a CRLF file and writes CRLF back", () => {
        const text = "one\r\ntwo\r\nthree\r\n";
        const result = replace(text, "one\ntwo\n", "uno\ndos\n", "\r\n");
        expect(result.level).toBe("line_endings");
        expect(result.text).toBe("uno\r\ndos\r\nthree\r\n");
    });

    it("ignores trailing whitespace and keeps unchanged lines byte for byte", () => {
        const text = "a = 1;   \nb = 2;\t\nc = 3;\n";
        const result = replace(text, "a = 1;\nb = 2;", "a = 1;\nb = 20;");
        expect(result.level).toBe("trailing_whitespace");
        expect(result.text).toBe("a = 1;   \nb = 20;\nc = 3;\n");
    });

    it("keeps a line's bytes when the model's two copies differ only in trailing spaces", () => {
        const text = "\tkeep();  \n\told();\n";
        const result = replace(text, "    keep();\n    old();", "    keep();   \n    new();");
        expect(result.text).toBe("\tkeep();  \n\tnew();\n");
    });

    it("re-indents a block searched with spaces in a tab-indented file", () => {
        const text = "func main() {\n\tif ok {\n\t\trun()\n\t}\n}\n";
        const result = replace(
            text,
            "    if ok {\n        run()\n    }",
            "    if ok {\n        run()\n        stop()\n    }"
        );
        expect(result.level).toBe("indentation");
        expect(result.text).toBe("func main() {\n\tif ok {\n\t\trun()\n\t\tstop()\n\t}\n}\n");
    });

    it("re-indents a block the model dedented", () => {
        const text = "class A:\n    def f(self):\n        return 1\n";
        const result = replace(
            text,
            "def f(self):\n    return 1",
            "def f(self):\n    x = 2\n    return x"
        );
        expect(result.level).toBe("indentation");
        expect(result.text).toBe("class A:\n    def f(self):\n        x = 2\n        return x\n");
    });

    it("refuses a block whose relative indentation differs", () => {
        const text = "if a:\n    b()\n    c()\n";
        const set = findMatches(text, lineStarts(text), "if a:\n    b()\nc()");
        expect(set.matches).toHaveLength(0);
    });

    it("folds typographic quotes and dashes, keeping the file's characters on untouched lines", () => {
        const text = "const a = \u201chello\u201d;\nconst b = 1 \u2014 2;\n";
        const result = replace(
            text,
            'const a = "hello";\nconst b = 1 - 2;',
            'const a = "hello";\nconst b = 3;'
        );
        expect(result.level).toBe("unicode");
        expect(result.text).toBe("const a = \u201chello\u201d;\nconst b = 3;\n");
    });

    it("matches a fragment inside a line under tolerance without eating indentation", () => {
        const text = "\tcall(a,   \n\t\tb)\n";
        const result = replace(text, "call(a,\n    b)", "call(a, b)");
        expect(result.text).toBe("\tcall(a, b)\n");
    });

    it("is ambiguous at a tolerant level rather than guessing", () => {
        const text = "\tx()\n\ty()\n\n\tx()\n\ty()\n";
        const set = findMatches(text, lineStarts(text), "  x()\n  y()");
        expect(set.level).toBe("indentation");
        expect(set.matches.map((m) => m.startLine)).toEqual([1, 4]);
    });

    it("never matches whitespace-only search text tolerantly", () => {
        const text = "a\n\n\nb\n";
        expect(findMatches(text, lineStarts(text), "   \n   ").matches).toHaveLength(0);
        expect(findMatches(text, lineStarts(text), "").matches).toHaveLength(0);
    });

    it("does not match an indented search line in the middle of a line", () => {
        const text = "x = foo()\n";
        expect(findMatches(text, lineStarts(text), "    foo()").matches).toHaveLength(0);
    });

    it("respects minStart", () => {
        const text = "end\nstart\nend\n";
        const set = findMatches(text, lineStarts(text), "end", { minStart: 4 });
        expect(set.matches.map((m) => m.startLine)).toEqual([3]);
    });
});

describe("diagnostics", () => {
    it("formats the spec's near-miss example", () => {
        const lines = Array.from({ length: 50 }, (_, i) => `const other${i} = ${i};`);
        lines[41] = "const myVariable = 1;";
        const text = lines.join("\n") + "\n";
        const message = notFoundMessage("Text", text, lineStarts(text), "const myVeriable = 1;");
        expect(message).toContain("Text not found in file.");
        expect(message).toContain(
            "Near matches found:\n  - Line 42: \"const myVariable = 1;\"\n    (differs at position 9: 'a' vs 'e')"
        );
        expect(
            message.endsWith(
                "Hint: Use read_around to see exact content, or use anchor-based editing (edit_by_anchor)."
            )
        ).toBe(true);
    });

    it("reports tabs vs spaces, CRLF vs LF and trailing whitespace", () => {
        const text = "function f() {\r\n    return 1;\r\n}\r\n";
        const message = notFoundMessage(
            "Text",
            text,
            lineStarts(text),
            "function f() {  \n\treturn 2;\n}"
        );
        expect(message).toContain("Possible whitespace issues:");
        expect(message).toContain("  - Your search uses tabs but file uses spaces for indentation");
        expect(message).toContain("  - Your search uses LF line endings but file uses CRLF");
        expect(message).toContain(
            "  - Your search has trailing whitespace (line 1 of your search)"
        );
        expect(message).toContain('Line 2: "return 1;"');
    });

    it("says when every line exists but not together", () => {
        const text = "a();\nb();\nc();\n";
        const message = notFoundMessage("Text", text, lineStarts(text), "a();\nc();");
        expect(message).toContain("not consecutively");
    });

    it("shows the first difference with the file character first", () => {
        expect(firstDifference("const myVariable", "const myVariebl")).toBe(
            "differs at position 12: 'a' vs 'e'"
        );
        expect(firstDifference("abc", "abcd")).toBe("differs at position 3: end of line vs 'd'");
    });
});
