/**
 * The edit corpus: real hunks from real history (test/tools/fixtures/edit-corpus,
 * made by bench/edit-corpus-gen.ts) turned into the edit_replace_exact calls a
 * model sends, as sent and with the mistakes models make, plus calls that must
 * be refused (ambiguous text, a line that is whole once and part of longer
 * lines elsewhere, short or whitespace-only text; as old_text and as an
 * edit_by_anchor anchor), all cut by rule from the same real files. Each call
 * runs through the real tool (prepare, then the atomic apply) and the file is
 * compared byte for byte with the expected post-image, worked out here by the
 * rule rather than by North's code: lines the model kept (the same in its old
 * and new text as sent) keep the file's bytes, lines it changed are as sent,
 * re-based only in indentation. Shared by the bench and its test.
 */
import { promises as fs, readdirSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { diffArrays } from "diff";
import { createEditByAnchorTool } from "../../src/tools/edit-by-anchor";
import { createEditReplaceExactTool } from "../../src/tools/edit-replace-exact";
import type { PreparedWrite, ToolContext } from "../../src/tools/types";

/** One real hunk with the context that makes its old text unique. */
export interface CorpusHunk {
    id: string;
    path: string;
    /** The file around the hunk, as it was before the commit. */
    pre: string;
    /** Offset of `old` in `pre`. */
    start: number;
    old: string;
    new: string;
    /** Unchanged lines included before and after the changed ones. */
    context: [number, number];
}

export interface CorpusCase {
    category: string;
    hunk: CorpusHunk;
    /** The file as it is before the call. */
    pre: string;
    /** edit_replace_exact's old_text and new_text, or edit_by_anchor's anchor and content (insert_after). */
    tool: "edit_replace_exact" | "edit_by_anchor";
    oldText: string;
    newText: string;
    /** The post-image by the rule; null when the right answer is a refusal. */
    expected: string | null;
    /** [start, end) of the lines the edit is for, in `pre`. */
    region: [number, number];
}

const FIXTURES = fileURLToPath(new URL("../tools/fixtures/edit-corpus/", import.meta.url));

export function loadHunks(): CorpusHunk[] {
    return readdirSync(FIXTURES)
        .filter((name) => name.endsWith(".json"))
        .sort()
        .flatMap(
            (name) => JSON.parse(readFileSync(path.join(FIXTURES, name), "utf8")) as CorpusHunk[]
        );
}

const lines = (text: string) => text.split("\n");
const join = (parts: readonly string[]) => parts.join("\n");
const indentOf = (line: string) => /^[ \t]*/.exec(line)?.[0] ?? "";
const nonBlank = (line: string) => line.trim() !== "";

/** Applies `perLine` to each old line, and to each new line that copies an old one. */
function perturbCopied(h: CorpusHunk, perLine: (line: string) => string) {
    const old = lines(h.old);
    const copied = new Set(old);
    return {
        oldText: join(old.map(perLine)),
        newText: join(lines(h.new).map((l) => (copied.has(l) ? perLine(l) : l))),
    };
}

function perturbAll(h: CorpusHunk, perLine: (line: string) => string | null) {
    const mapped = (text: string) => lines(text).map(perLine);
    const old = mapped(h.old);
    const next = mapped(h.new);
    if (old.includes(null) || next.includes(null)) return null;
    return { oldText: join(old as string[]), newText: join(next as string[]) };
}

function toCrlf(text: string): string {
    return text.replace(/\r?\n/g, "\r\n");
}

const TYPOGRAPHIC = /[\u2018\u2019\u201c\u201d\u2013\u2014\u2026\u00a0]/;

function curl(line: string): string {
    return line
        .replace(/"([^"\n]*)"/g, "\u201c$1\u201d")
        .replace(/'/g, "\u2019")
        .replace(/ -- /g, " \u2014 ")
        .replace(/ - /g, " \u2013 ");
}

function flatten(line: string): string {
    return line
        .replace(/[\u2018\u2019]/g, "'")
        .replace(/[\u201c\u201d]/g, '"')
        .replace(/[\u2013\u2014]/g, "-")
        .replace(/\u00a0/g, " ");
}

/** The smallest indentation unit of the old text: a tab, or its narrowest space indent. */
function indentUnit(text: string): string | null {
    const indents = lines(text).filter(nonBlank).map(indentOf).filter(Boolean);
    if (indents.some((i) => i.startsWith("\t"))) return "\t";
    const widths = indents.filter((i) => /^ +$/.test(i)).map((i) => i.length);
    return widths.length > 0 ? " ".repeat(Math.min(...widths)) : null;
}

/** The file's space indentation step (2 or 4): the greatest common divisor of its indents. */
function spaceUnit(text: string): number | null {
    const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
    const widths = lines(text)
        .filter(nonBlank)
        .map((l) => /^ */.exec(l)?.[0].length ?? 0)
        .filter((w) => w > 0);
    const unit = widths.reduce(gcd, 0);
    return unit === 2 || unit === 4 ? unit : null;
}

function commonIndent(text: string): string {
    const indents = lines(text).filter(nonBlank).map(indentOf);
    let common = indents[0] ?? "";
    for (const indent of indents) while (!indent.startsWith(common)) common = common.slice(0, -1);
    return common;
}

interface Call {
    oldText: string;
    newText: string;
    /** The whole file as the call finds it (CRLF). */
    pre?: string;
    /** Each line of the file as the call finds it (trailing whitespace the model does not see). */
    fileLine?: (line: string) => string;
}

type Perturb = (h: CorpusHunk) => Call | null;

const addTrailing = (l: string) => (nonBlank(l) ? l.replace(/(\r?)$/, "  $1") : l);

/** How a model's call differs from the file, by category. */
const CATEGORIES: Array<[string, Perturb]> = [
    ["exact", (h) => ({ oldText: h.old, newText: h.new })],
    [
        "trailing-ws-dropped",
        (h) =>
            /[ \t]\r?$/m.test(h.old)
                ? perturbCopied(h, (l) => l.replace(/[ \t]+(\r?)$/, "$1"))
                : null,
    ],
    ["trailing-ws-added", (h) => perturbAll(h, addTrailing)],
    [
        "file-trailing-ws",
        (h) =>
            /[ \t]\r?$/m.test(h.old)
                ? null
                : { oldText: h.old, newText: h.new, fileLine: addTrailing },
    ],
    [
        "dedented-one-level",
        (h) => {
            const unit = indentUnit(h.old);
            if (
                !unit ||
                !lines(h.old)
                    .filter(nonBlank)
                    .every((l) => l.startsWith(unit))
            )
                return null;
            return perturbAll(h, (l) =>
                l.startsWith(unit) ? l.slice(unit.length) : nonBlank(l) ? null : l
            );
        },
    ],
    [
        "indent-stripped",
        (h) => {
            const common = commonIndent(h.old);
            if (common === "") return null;
            return perturbAll(h, (l) =>
                l.startsWith(common) ? l.slice(common.length) : nonBlank(l) ? null : l
            );
        },
    ],
    [
        "indented-one-level-more",
        (h) => {
            const unit = indentUnit(h.old) ?? indentUnit(h.pre);
            return unit ? perturbAll(h, (l) => (nonBlank(l) ? unit + l : l)) : null;
        },
    ],
    [
        "crlf-sent-to-lf-file",
        (h) =>
            h.old.includes("\n") && !h.pre.includes("\r")
                ? { oldText: toCrlf(h.old), newText: toCrlf(h.new) }
                : null,
    ],
    [
        "tabs-to-spaces",
        (h) =>
            /^\t/m.test(h.old)
                ? perturbAll(h, (l) => l.replace(/^\t+/, (tabs) => "    ".repeat(tabs.length)))
                : null,
    ],
    [
        "tabs-to-two-spaces",
        (h) =>
            /^\t/m.test(h.old)
                ? perturbAll(h, (l) => l.replace(/^\t+/, (tabs) => "  ".repeat(tabs.length)))
                : null,
    ],
    [
        "spaces-to-tabs",
        (h) => {
            const width = spaceUnit(h.pre);
            if (width === null || /^\t/m.test(h.old + h.new)) return null;
            return perturbAll(h, (l) => {
                const spaces = /^ */.exec(l)?.[0].length ?? 0;
                if (spaces % width !== 0) return null;
                return "\t".repeat(spaces / width) + l.slice(spaces);
            });
        },
    ],
    [
        "crlf-file",
        (h) => {
            if (!h.old.includes("\n") && !h.new.includes("\n")) return null;
            const lf = (t: string) => t.replace(/\r\n/g, "\n");
            return { oldText: lf(h.old), newText: lf(h.new), pre: toCrlf(h.pre) };
        },
    ],
    ["curly-quotes-dashes", (h) => (/["']| - | -- /.test(h.old) ? perturbAll(h, curl) : null)],
    ["typography-flattened", (h) => (TYPOGRAPHIC.test(h.old) ? perturbCopied(h, flatten) : null)],
    [
        "tabs-to-spaces+trailing-ws",
        (h) =>
            /^\t/m.test(h.old)
                ? perturbAll(h, (l) =>
                      addTrailing(l.replace(/^\t+/, (tabs) => "    ".repeat(tabs.length)))
                  )
                : null,
    ],
    [
        "tabs-to-spaces+dedented",
        (h) => {
            if (
                !lines(h.old)
                    .filter(nonBlank)
                    .every((l) => l.startsWith("\t"))
            )
                return null;
            return perturbAll(h, (l) => {
                if (!nonBlank(l)) return l;
                if (!l.startsWith("\t")) return null;
                return l.slice(1).replace(/^\t+/, (tabs) => "    ".repeat(tabs.length));
            });
        },
    ],
];

function lineStartOf(text: string, offset: number): number {
    return text.lastIndexOf("\n", offset - 1) + 1;
}

function lineEndOf(text: string, offset: number): number {
    const i = text.indexOf("\n", offset);
    return i === -1 ? text.length : i + 1;
}

function looseLines(text: string): string[] {
    return text.split("\n").map((l) => l.trim());
}

/** Places where `search` occurs exactly, or (when nowhere exactly) line for line ignoring whitespace. */
function occurrences(pre: string, search: string): number {
    let exact = 0;
    for (let i = pre.indexOf(search); i !== -1; i = pre.indexOf(search, i + 1)) exact++;
    if (exact > 0) return exact;
    const file = looseLines(pre);
    const want = looseLines(search);
    let loose = 0;
    for (let i = 0; i + want.length <= file.length; i++) {
        if (want.every((w, k) => file[i + k] === w)) loose++;
    }
    return loose;
}

/** The bare changed lines, when they occur more than once: a model that sent no context. */
function ambiguousCase(h: CorpusHunk): CorpusCase | null {
    const old = lines(h.old);
    const [before, after] = h.context;
    const bare = old.slice(before, old.length - after);
    if (bare.length === 0 || !bare.some((l) => l.trim().length > 2)) return null;
    const oldText = join(bare);
    if (occurrences(h.pre, oldText) < 2) return null;
    return {
        category: "ambiguous",
        hunk: h,
        pre: h.pre,
        tool: "edit_replace_exact",
        oldText,
        newText: `${oldText}\n// ambiguous`,
        expected: null,
        region: [0, 0],
    };
}

/** The hunk only changes trailing whitespace: a whitespace perturbation would erase it. */
function trailingOnly(h: CorpusHunk): boolean {
    const trim = (text: string) => lines(text.replace(/\r/g, "")).map((l) => l.trimEnd());
    return join(trim(h.old)) === join(trim(h.new));
}

/**
 * The post-image the rule asks for: lines the model kept (equal in its old and
 * new text as sent, aligned by a plain diff) keep the file's bytes; changed
 * lines are as sent, with the indentation of the real line (the re-base) when
 * the old text was sent re-indented; a whitespace-only line as sent.
 */
function byRule(
    h: CorpusHunk,
    oldText: string,
    newText: string,
    fileLine: (line: string) => string
): string {
    const bare = (text: string) => lines(text).map((l) => l.replace(/\r$/, ""));
    const sentOld = bare(oldText);
    const sentNew = bare(newText);
    const realOld = bare(h.old);
    const realNew = bare(h.new);
    const after = h.pre.slice(h.start + h.old.length);
    const fileText = (text: string) => lines(text).map(fileLine).join("\n");
    const eol = h.old.includes("\r\n") || after.startsWith("\r\n") ? "\r\n" : "\n";
    // Indentation is re-based only when the old text shows how the model's maps onto
    // the file's; an old text sent as it stands in the file gives nothing to map.
    const rebased = sentOld.some((line, k) => line !== realOld[k]);
    const out: string[] = [];
    let i = 0;
    let j = 0;
    for (const part of diffArrays(sentOld, sentNew)) {
        const count = part.value.length;
        if (part.removed) i += count;
        else if (part.added) {
            for (let k = 0; k < count; k++, j++) {
                const sent = sentNew[j] ?? "";
                const real = realNew[j] ?? "";
                out.push(
                    rebased && nonBlank(sent)
                        ? indentOf(real) + sent.slice(indentOf(sent).length)
                        : sent
                );
            }
        } else {
            for (let k = 0; k < count; k++, i++, j++) out.push(fileLine(realOld[i] ?? ""));
        }
    }
    return fileText(h.pre.slice(0, h.start)) + out.join(eol) + fileText(after);
}

const visible = (text: string) => text.replace(/\s/g, "").length;

function countOf(text: string, search: string): number {
    let count = 0;
    for (let i = text.indexOf(search); i !== -1; i = text.indexOf(search, i + search.length))
        count++;
    return count;
}

function refusal(
    category: string,
    h: CorpusHunk,
    tool: CorpusCase["tool"],
    search: string
): CorpusCase {
    return {
        category,
        hunk: h,
        pre: h.pre,
        tool,
        oldText: search,
        newText: tool === "edit_by_anchor" ? "inserted" : `${search}changed`,
        expected: null,
        region: [0, 0],
    };
}

/**
 * A line of the file that is a whole line once and part of a longer line
 * elsewhere (a 37-dash underline beside a 69-dash rule, `catalogue,` beside
 * `resolve(catalogue, name)`), sent trimmed as old_text and as an anchor.
 */
function wholeLineCases(h: CorpusHunk): CorpusCase[] {
    const file = h.pre.split("\n").map((l) => l.replace(/\r$/, ""));
    const trimmed = file.map((l) => l.trim());
    const line = trimmed.find(
        (t) =>
            visible(t) >= 3 &&
            trimmed.filter((u) => u === t).length === 1 &&
            trimmed.some((u) => u !== t && u.includes(t))
    );
    if (line === undefined) return [];
    const category = "whole-line-once-part-elsewhere";
    return [
        refusal(category, h, "edit_replace_exact", line),
        refusal(`${category}/anchor`, h, "edit_by_anchor", line),
    ];
}

/**
 * Text of under three visible characters that repeats (`}`, `fi`, `);`) as
 * old_text and as an anchor, and an indentation string alone as old_text.
 */
function shortCases(h: CorpusHunk): CorpusCase[] {
    const file = h.pre.split("\n").map((l) => l.replace(/\r$/, ""));
    const cases: CorpusCase[] = [];
    const category = "short-or-whitespace";
    const token = file
        .map((l) => l.trim())
        .find((t) => t !== "" && visible(t) < 3 && file.filter((l) => l.includes(t)).length >= 2);
    if (token !== undefined) {
        cases.push(refusal(category, h, "edit_replace_exact", token));
        cases.push(refusal(`${category}/anchor`, h, "edit_by_anchor", token));
    }
    const indent = file.map(indentOf).find((i) => i !== "" && countOf(h.pre, i) >= 2);
    if (indent !== undefined) cases.push(refusal(category, h, "edit_replace_exact", indent));
    return cases;
}

export function buildCases(hunks: readonly CorpusHunk[]): CorpusCase[] {
    const cases: CorpusCase[] = [];
    for (const h of hunks) {
        for (const [category, perturb] of CATEGORIES) {
            if (category !== "exact" && category !== "crlf-file" && trailingOnly(h)) continue;
            const call = perturb(h);
            if (!call) continue;
            if (
                category !== "exact" &&
                call.oldText === h.old &&
                call.newText === h.new &&
                !call.pre &&
                !call.fileLine
            )
                continue;
            const crlf = call.pre !== undefined && call.pre !== h.pre;
            const fileLine = call.fileLine ?? ((line: string) => line);
            const fileText = (text: string) => lines(text).map(fileLine).join("\n");
            const pre = call.pre ?? fileText(h.pre);
            // Text made ambiguous by the perturbation (a dedented `catalogue,` is also
            // inside `resolve(catalogue, name)`) must be refused.
            const ambiguous = countOf(pre, call.oldText) > 1;
            const post = byRule(h, call.oldText, call.newText, fileLine);
            const asFound = (text: string) => (crlf ? toCrlf(text) : fileText(text));
            const start = asFound(h.pre.slice(0, h.start)).length;
            const oldLength = asFound(h.old).length;
            cases.push({
                category: ambiguous ? "ambiguous" : category,
                hunk: h,
                pre,
                tool: "edit_replace_exact",
                oldText: call.oldText,
                newText: call.newText,
                expected: ambiguous ? null : crlf ? toCrlf(post) : post,
                region: [lineStartOf(pre, start), lineEndOf(pre, start + oldLength)],
            });
        }
        const ambiguous = ambiguousCase(h);
        if (ambiguous) cases.push(ambiguous);
        cases.push(...wholeLineCases(h), ...shortCases(h));
    }
    return cases;
}

export type Verdict = "exact" | "refused" | "wrong_bytes" | "wrong_place";

export interface CaseResult {
    c: CorpusCase;
    verdict: Verdict;
    /** Bytes changed before or after the edited lines. */
    outside: number;
    detail: string;
}

function commonPrefix(a: string, b: string): number {
    let i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) i++;
    return i;
}

function commonSuffix(a: string, b: string, limit: number): number {
    let i = 0;
    while (i < limit && a[a.length - 1 - i] === b[b.length - 1 - i]) i++;
    return i;
}

function score(c: CorpusCase, after: string): CaseResult {
    const [from, to] = c.region;
    const tail = c.pre.length - to;
    const kept =
        after.length >= from + tail &&
        after.startsWith(c.pre.slice(0, from)) &&
        after.endsWith(c.pre.slice(to));
    let outside = 0;
    let overlaps = true;
    if (!kept) {
        const prefix = commonPrefix(c.pre, after);
        const suffix = commonSuffix(c.pre, after, Math.min(c.pre.length, after.length) - prefix);
        outside = Math.max(0, from - prefix) + Math.max(0, tail - suffix);
        overlaps = prefix < to && c.pre.length - suffix > from;
    }
    if (c.expected === null) {
        return {
            c,
            verdict: "wrong_place",
            outside,
            detail: "applied although it must be refused",
        };
    }
    if (after === c.expected) return { c, verdict: "exact", outside: 0, detail: "" };
    return {
        c,
        verdict: overlaps ? "wrong_bytes" : "wrong_place",
        outside,
        detail: kept ? "changed inside the edited lines" : `${outside} bytes changed outside`,
    };
}

/** Runs every case through edit_replace_exact (prepare + apply) in a scratch project. */
export async function runCases(cases: readonly CorpusCase[]): Promise<CaseResult[]> {
    const root = realpathSync(await fs.mkdtemp(path.join(tmpdir(), "north-edit-corpus-")));
    const replaceTool = createEditReplaceExactTool();
    const anchorTool = createEditByAnchorTool();
    const ctx: ToolContext = { repoRoot: root, signal: new AbortController().signal };
    const results: CaseResult[] = [];
    try {
        for (const [i, c] of cases.entries()) {
            const rel = `case${i}${path.extname(c.hunk.path)}`;
            const file = path.join(root, rel);
            await fs.writeFile(file, c.pre);
            const prepared =
                c.tool === "edit_by_anchor"
                    ? await anchorTool.execute(
                          {
                              path: rel,
                              mode: "insert_after",
                              anchor: c.oldText,
                              content: c.newText,
                          },
                          ctx
                      )
                    : await replaceTool.execute(
                          { path: rel, old_text: c.oldText, new_text: c.newText },
                          ctx
                      );
            if (!prepared.ok) {
                const verdict = c.expected === null ? "exact" : "refused";
                results.push({
                    c,
                    verdict,
                    outside: 0,
                    detail: prepared.error.message.split("\n")[0] ?? "",
                });
                continue;
            }
            const applied = await (prepared.data as PreparedWrite).apply();
            if (!applied.ok) {
                results.push({ c, verdict: "refused", outside: 0, detail: applied.error.message });
                continue;
            }
            results.push(score(c, await fs.readFile(file, "utf8")));
            await fs.rm(file);
        }
    } finally {
        await fs.rm(root, { recursive: true, force: true });
    }
    return results;
}

export interface CategoryFigures {
    category: string;
    /** Every call of the category must be refused. */
    mustRefuse: boolean;
    cases: number;
    /** Byte-exact share (for a must-refuse category: the share refused). */
    exactPct: number;
    wrongPlace: number;
    outsideBytes: number;
    refused: number;
}

export function figures(results: readonly CaseResult[]): CategoryFigures[] {
    const categories = [...new Set(results.map((r) => r.c.category))];
    return categories.map((category) => {
        const of = results.filter((r) => r.c.category === category);
        const good = of.filter((r) => r.verdict === "exact").length;
        return {
            category,
            mustRefuse: of.every((r) => r.c.expected === null),
            cases: of.length,
            exactPct: of.length === 0 ? 100 : (good / of.length) * 100,
            wrongPlace: of.filter((r) => r.verdict === "wrong_place").length,
            outsideBytes: of.reduce((n, r) => n + r.outside, 0),
            refused: of.filter((r) => r.verdict === "refused").length,
        };
    });
}
