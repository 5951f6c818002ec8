import { describe, expect, it } from "vitest";
import { formatDiagnostic, introducedDiagnostics } from "../../../src/tools/lsp/introduced";
import type { DiagnosticsView, LspDiagnostic, LspSeverity } from "../../../src/tools/lsp/types";

const A = "/p/src/a.ts";
const B = "/p/src/b.ts";

function diag(
    path: string,
    line: number,
    message: string,
    severity: LspSeverity = "error",
    code = "2322"
): LspDiagnostic {
    return {
        path,
        line,
        column: 5,
        endLine: line,
        endColumn: 9,
        severity,
        message,
        source: "ts",
        code,
        server: "typescript",
    };
}

function view(
    files: Record<string, { text: string; diagnostics: LspDiagnostic[] }>
): DiagnosticsView {
    return {
        byPath: new Map(Object.entries(files).map(([p, f]) => [p, f.diagnostics])),
        text: new Map(Object.entries(files).map(([p, f]) => [p, f.text])),
        complete: true,
    };
}

const TYPE_ERROR = "Type 'string' is not assignable to type 'number'.";
const source = ["const x: number = 'a';", "function f() {", "  return 1;", "}", ""].join("\n");

describe("introducedDiagnostics", () => {
    it("does not count an old error whose line moved down", () => {
        const before = view({ [A]: { text: source, diagnostics: [diag(A, 1, TYPE_ERROR)] } });
        const moved = `// a comment\n// another\n${source}`;
        const after = view({ [A]: { text: moved, diagnostics: [diag(A, 3, TYPE_ERROR)] } });
        expect(introducedDiagnostics(before, after, [A])).toEqual({ introduced: [], fixed: 0 });
    });

    it("counts the same error on a new line as introduced, the old one kept", () => {
        const before = view({ [A]: { text: source, diagnostics: [diag(A, 1, TYPE_ERROR)] } });
        const text = `${source}const y: number = 'b';\n`;
        const after = view({
            [A]: { text, diagnostics: [diag(A, 1, TYPE_ERROR), diag(A, 5, TYPE_ERROR)] },
        });
        const found = introducedDiagnostics(before, after, [A]);
        expect(found.introduced.map((d) => d.line)).toEqual([5]);
        expect(found.fixed).toBe(0);
    });

    it("does not count an error on a line the edit rewrote when the same error was there", () => {
        const before = view({ [A]: { text: source, diagnostics: [diag(A, 1, TYPE_ERROR)] } });
        const text = source.replace("'a'", "'abc'");
        const after = view({ [A]: { text, diagnostics: [diag(A, 1, TYPE_ERROR)] } });
        expect(introducedDiagnostics(before, after, [A]).introduced).toEqual([]);
    });

    it("counts an identical message far from where the old one was, the old one fixed", () => {
        const long = Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n");
        const before = view({ [A]: { text: long, diagnostics: [diag(A, 2, TYPE_ERROR)] } });
        const text = long.replace("line 1", "line one").replace("line 25", "line twenty-five");
        const after = view({ [A]: { text, diagnostics: [diag(A, 26, TYPE_ERROR)] } });
        const found = introducedDiagnostics(before, after, [A]);
        expect(found.introduced.map((d) => d.line)).toEqual([26]);
        expect(found.fixed).toBe(1);
    });

    it("keeps an old error on a rewritten line in place when a batch also changed lines far away", () => {
        const long = Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n");
        const before = view({ [A]: { text: long, diagnostics: [diag(A, 20, TYPE_ERROR)] } });
        const text = long
            .replace("line 2\n", "line two\nextra\n")
            .replace("line 19", "line nineteen");
        const after = view({ [A]: { text, diagnostics: [diag(A, 21, TYPE_ERROR)] } });
        expect(introducedDiagnostics(before, after, [A])).toEqual({ introduced: [], fixed: 0 });
    });

    it("does not count an old error on a re-indented line", () => {
        const before = view({ [A]: { text: source, diagnostics: [diag(A, 3, "Unreachable.")] } });
        const text = `if (ok) {\n${source.replace("  return 1;", "      return 1;")}}\n`;
        const after = view({ [A]: { text, diagnostics: [diag(A, 4, "Unreachable.")] } });
        expect(introducedDiagnostics(before, after, [A]).introduced).toEqual([]);
    });

    it("reports a new error in a caller file the before view covered", () => {
        const caller = "import { f } from './a';\nf(1);\n";
        const before = view({
            [A]: { text: source, diagnostics: [] },
            [B]: { text: caller, diagnostics: [] },
        });
        const expected = diag(B, 2, "Expected 0 arguments, but got 1.", "error", "2554");
        const after = view({
            [A]: { text: source.replace("f()", "f(): void"), diagnostics: [] },
            [B]: { text: caller, diagnostics: [expected] },
        });
        expect(introducedDiagnostics(before, after, [A]).introduced).toEqual([expected]);
    });

    it("does not call a file's problems new when the before view had no entry for it", () => {
        const before = view({ [A]: { text: source, diagnostics: [] } });
        const after = view({
            [A]: { text: source, diagnostics: [] },
            [B]: { text: "x", diagnostics: [diag(B, 1, "Cannot find name 'x'.")] },
        });
        expect(introducedDiagnostics(before, after, [A]).introduced).toEqual([]);
    });

    it("counts warnings, ignores information and hints", () => {
        const before = view({ [A]: { text: source, diagnostics: [] } });
        const after = view({
            [A]: {
                text: source,
                diagnostics: [
                    diag(A, 2, "'f' is declared but never used.", "warning", "6133"),
                    diag(A, 3, "Unreachable?", "information"),
                    diag(A, 3, "Could be const.", "hint"),
                ],
            },
        });
        const found = introducedDiagnostics(before, after, [A]);
        expect(found.introduced.map((d) => d.severity)).toEqual(["warning"]);
    });

    it("counts what the edit fixed", () => {
        const before = view({
            [A]: {
                text: source,
                diagnostics: [diag(A, 1, TYPE_ERROR), diag(A, 3, "Unused.", "warning", "6133")],
            },
        });
        const text = source.replace("'a'", "1");
        const after = view({
            [A]: { text, diagnostics: [diag(A, 3, "Unused.", "warning", "6133")] },
        });
        expect(introducedDiagnostics(before, after, [A])).toEqual({ introduced: [], fixed: 1 });
    });

    it("treats a new file as having had no problems", () => {
        const before = view({});
        const after = view({ [A]: { text: source, diagnostics: [diag(A, 1, TYPE_ERROR)] } });
        expect(introducedDiagnostics(before, after, [A]).introduced).toHaveLength(1);
    });

    it("lists edited files first, then the others by path, each by line", () => {
        const C = "/p/src/c.ts";
        const files = { text: "a\nb\nc\nd\n", diagnostics: [] };
        const before = view({ [A]: files, [B]: files, [C]: files });
        const after = view({
            [C]: { ...files, diagnostics: [diag(C, 2, "m1")] },
            [B]: { ...files, diagnostics: [diag(B, 3, "m2"), diag(B, 1, "m3")] },
            [A]: { ...files, diagnostics: [diag(A, 4, "m4")] },
        });
        const found = introducedDiagnostics(before, after, [C]);
        expect(found.introduced.map((d) => `${d.path}:${d.line}`)).toEqual([
            `${C}:2`,
            `${A}:4`,
            `${B}:1`,
            `${B}:3`,
        ]);
    });
});

describe("formatDiagnostic", () => {
    it("writes path:line:col severity message (source code), relative to the root", () => {
        const d = { ...diag(A, 3, "Argument of type 'x'\n  is not assignable."), column: 7 };
        expect(formatDiagnostic(d, "/p")).toBe(
            "src/a.ts:3:7 error Argument of type 'x' is not assignable. (ts 2322)"
        );
        expect(formatDiagnostic(d, "/elsewhere")).toContain("/p/src/a.ts:3:7");
        expect(formatDiagnostic(d)).toContain("/p/src/a.ts:3:7");
    });
});
