import { describe, expect, it } from "vitest";
import { firstDifference, notFoundMessage } from "../../src/tools/editing/diagnostics";
import { findMatches, replaceMatch } from "../../src/tools/editing/match";
import { replaceExact } from "../../src/tools/editing/edits";
import { detectEol, lineStarts } from "../../src/tools/editing/text-doc";

function replace(text: string, search: string, replacement: string, eol: "\n" | "\r\n" = "\n") {
    const starts = lineStarts(text);
    const set = findMatches(text, starts, search);
    expect(set.matches).toHaveLength(1);
    const match = set.matches[0]!;
    const replaced = replaceMatch(text, starts, match, search, replacement, eol);
    return { level: set.level, text: replaced.text, applied: replaced.level, match };
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

    it("writes a line as sent when the model changed only its trailing spaces", () => {
        const text = "\tkeep();  \n\told();\n";
        const result = replace(text, "    keep();\n    old();", "    keep();   \n    new();");
        expect(result.text).toBe("\tkeep();   \n\tnew();\n");
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

    it("stops counting places in a hostile file and still refuses with a count", () => {
        // A megabyte of one character: every start is a place; counting all would take seconds.
        const text = `x\n${"a".repeat(1_000_000)}\n`;
        const result = edit(text, "a".repeat(1000), "b");
        expect(result.ok).toBe(false);
        if (result.ok) return;
        expect(result.message).toContain("more than 5000 places");
        expect(result.message).toContain("occurrence (1-5000)");
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

/** Runs edit_replace_exact's pure step on `text`; the new text, or the error message. */
function edit(text: string, oldText: string, newText: string) {
    const doc = { text, eol: detectEol(text), bom: false };
    const result = replaceExact(
        { relPath: "f", exists: true, doc },
        { old_text: oldText, new_text: newText }
    );
    return result.ok
        ? { ok: true as const, text: result.data.text, tolerance: result.data.tolerance }
        : { ok: false as const, code: result.error.code, message: result.error.message };
}

function applied(text: string, oldText: string, newText: string): string {
    const result = edit(text, oldText, newText);
    if (!result.ok) throw new Error(result.message);
    return result.text;
}

describe("edit defects from real history (issue 17)", () => {
    it("never matches inside a CRLF pair and writes CRLF", () => {
        expect(applied("one\r\n\r\ntwo\r\n", "\ntwo", "\nthree\ntwo")).toBe(
            "one\r\n\r\nthree\r\ntwo\r\n"
        );
        expect(applied("a\r\nb\r\n", "a\r", "x\r")).toBe("x\r\nb\r\n");
    });

    it("keeps every line ending of a CRLF file CRLF, whatever line break the search starts or ends with", () => {
        const text = "alpha\r\n\r\nbeta\r\ngamma\r\n\r\ndelta\r\n";
        const cases: Array<[string, string]> = [
            ["\nbeta", "\nbeta\nbeta2"],
            ["beta\n", "beta\nbeta2\n"],
            ["\ngamma\n", "\ngamma\ngamma2\n"],
            ["\r\ndelta", "\r\ndelta\r\ndelta2"],
            ["gamma\r\n\r\n", "gamma\n"],
        ];
        for (const [oldText, newText] of cases) {
            const out = applied(text, oldText, newText);
            expect(out.replace(/\r\n/g, "")).not.toMatch(/[\r\n]/);
        }
    });

    it("keeps the model's tabs when the tolerant match has no indentation to re-base from", () => {
        const makefile = "all: build\n\n# Run tests \u2014 quick\ntest:\n\tgo test ./...\n";
        const result = edit(
            makefile,
            "# Run tests - quick\ntest:",
            "# Run tests - quick\ntest:\n\tgo vet ./..."
        );
        expect(result).toMatchObject({ ok: true, tolerance: "unicode" });
        expect(result.ok && result.text).toBe(
            "all: build\n\n# Run tests \u2014 quick\ntest:\n\tgo vet ./...\n\tgo test ./...\n"
        );
    });

    it("re-bases by the file's own indentation string, tabs included", () => {
        const text = "func f() {\n\t\tfoo()\n\t\tbar()\n}\n";
        expect(applied(text, "foo()\nbar()", "foo()\nif x {\n\tbaz()\n}\nbar()")).toBe(
            "func f() {\n\t\tfoo()\n\t\tif x {\n\t\t\tbaz()\n\t\t}\n\t\tbar()\n}\n"
        );
    });

    it("re-indents kept lines with the rest when the first search line has no indent", () => {
        const go = "func f() int {\n\t// a\n\treturn 1\n}\n";
        expect(applied(go, "// a\nreturn 1", "x := 2\n// a\nreturn x")).toBe(
            "func f() int {\n\tx := 2\n\t// a\n\treturn x\n}\n"
        );
        expect(applied(go, "// a\nreturn 1", "return 1")).toBe("func f() int {\n\treturn 1\n}\n");
    });

    it("re-bases every new line when a one-line search sits inside deeper indentation", () => {
        const py = "def f(x):\n    if x:\n        y = 1\n    return x\n";
        const result = edit(py, "    y = 1", "    y = 1\n    z = 2");
        expect(result.ok && result.text).toBe(
            "def f(x):\n    if x:\n        y = 1\n        z = 2\n    return x\n"
        );
        const workflow = "name: ci\non:\n  push:\n    branches: [main]\njobs: {}\n";
        expect(
            applied(workflow, "push:\n", "push:\n  branches: [main]\nworkflow_dispatch:\n")
        ).toBe(
            "name: ci\non:\n  push:\n    branches: [main]\n  workflow_dispatch:\n    branches: [main]\njobs: {}\n"
        );
    });

    it("keeps a one-line replacement that stays one line exactly as sent", () => {
        expect(applied("\tfoo(a) + b\n", "foo(a)", "foo(a, c)")).toBe("\tfoo(a, c) + b\n");
    });

    it("matches a whitespace-only search line only to a blank line", () => {
        const ruby = "def f\n  if x\n    y\n  \n  end\nend\n";
        expect(applied(ruby, "  \nend", "    z\nend")).toBe(
            "def f\n  if x\n    y\n      z\n  end\nend\n"
        );
        // Without a blank line before an `end`, there is nothing to match.
        const result = edit("def f\n  y\n  end\nend\n", "  \nend", "z\nend");
        expect(result).toMatchObject({ ok: false, code: "no_match" });
    });

    it("writes whitespace-only lines of new_text as sent under a tolerant match", () => {
        const py = "class A:\n    def f(self):\n        return 1\n";
        expect(
            applied(
                py,
                "def f(self):\n    return 1",
                "def f(self):\n    return 1\n    \ndef g(self):\n    return 2"
            )
        ).toBe(
            "class A:\n    def f(self):\n        return 1\n    \n    def g(self):\n        return 2\n"
        );
    });

    it("refuses text that is a whole line once and part of a longer line elsewhere", () => {
        const ts =
            "const r = resolve(catalogue, name);\nreturn {\n    ok: true,\n    catalogue,\n};\n";
        const result = edit(ts, "catalogue,", "catalogue: copy,");
        expect(result).toMatchObject({ ok: false, code: "ambiguous_match" });
        expect(!result.ok && result.message).toContain(
            '1. Line 1: "const r = resolve(catalogue, name);"'
        );
        expect(!result.ok && result.message).toContain('2. Line 4: "catalogue,"');
        // A rule-underline inside a longer one is an occurrence too.
        const readme = `Title\n${"-".repeat(37)}\n\ntext\n${"-".repeat(69)}\n`;
        expect(edit(readme, "-".repeat(37), "=".repeat(37))).toMatchObject({
            ok: false,
            code: "ambiguous_match",
        });
    });

    it("counts overlapping places: a run inside a longer run, a line pair in three equal lines", () => {
        const run = edit(`a\n${"-".repeat(40)}\n`, "-".repeat(37), "=".repeat(37));
        expect(run).toMatchObject({ ok: false, code: "ambiguous_match" });
        expect(!run.ok && run.message).toContain("1-4. Line 2 (4 places on this line)");
        const result = edit("x = 1\nx = 1\nx = 1\n", "x = 1\nx = 1", "y = 2");
        expect(result).toMatchObject({ ok: false, code: "ambiguous_match" });
        expect(!result.ok && result.message).toContain("matches 2 places");
    });

    it("refuses search text of under three visible characters that repeats, even with occurrence", () => {
        const text = "a\n    b\n    \n    c\n";
        const spaces = edit(text, "    ", "");
        expect(spaces).toMatchObject({ ok: false, code: "ambiguous_match" });
        expect(!spaces.ok && spaces.message).toContain("fewer than 3 non-whitespace characters");
        expect(!spaces.ok && spaces.message).toContain("Give a longer old_text");
        const braces = replaceExact(
            {
                relPath: "f",
                exists: true,
                doc: { text: "f() {\n}\ng() {\n}\n", eol: "\n", bom: false },
            },
            { old_text: "}", new_text: "};", occurrence: 2 }
        );
        expect(braces).toMatchObject({ ok: false, error: { code: "ambiguous_match" } });
        // Once it is unique, short text is fine.
        expect(applied("a = 1\n", "1", "2")).toBe("a = 2\n");
    });

    it("re-indents spaces sent for tabs by width, even from one matched line", () => {
        const ts = "test(() => {\n\tconst start = now();\n});\n";
        expect(
            applied(
                ts,
                "    const start = now();",
                "    const start = now();\n    await run({\n        fetch,\n    });"
            )
        ).toBe("test(() => {\n\tconst start = now();\n\tawait run({\n\t\tfetch,\n\t});\n});\n");
        // Two spaces for a tab.
        expect(applied("if x {\n\t\tf()\n}\n", "    f()", "    if y {\n      g()\n    }")).toBe(
            "if x {\n\t\tif y {\n\t\t\tg()\n\t\t}\n}\n"
        );
    });

    it("takes a deleted line's indentation with it when old_text runs through its line break", () => {
        const py = "def f():\n    a = 1\n    b = 2\n";
        expect(applied(py, "a = 1\n", "")).toBe("def f():\n    b = 2\n");
    });

    it("writes a changed line without file trailing whitespace the model never sent", () => {
        expect(applied("a\nfoo();  \nb\n", "foo();", "bar();")).toBe("a\nbar();\nb\n");
        // A line the model kept keeps its bytes, trailing whitespace included.
        expect(applied("a\nfoo();  \nb\n", "foo();", "foo();\nbar();")).toBe(
            "a\nfoo();  \nbar();\nb\n"
        );
        expect(applied("a\n    foo();  \nb\n", "foo();", "")).toBe("a\n\nb\n");
        // The same under a tolerant match (LF sent to a CRLF file).
        expect(applied("a\r\nfoo();  \r\nb\r\n", "a\nfoo();", "a\nbar();")).toBe(
            "a\r\nbar();\r\nb\r\n"
        );
    });

    it("reports the line after a leading line break as each ambiguous match's place", () => {
        for (const text of ["a\nx\nb\nx\n", "a\r\nx\r\nb\r\nx\r\n"]) {
            const result = edit(text, "\nx", "\ny");
            expect(result).toMatchObject({ ok: false, code: "ambiguous_match" });
            expect(!result.ok && result.message).toContain('1. Line 2: "x"');
            expect(!result.ok && result.message).toContain('2. Line 4: "x"');
        }
    });
});
