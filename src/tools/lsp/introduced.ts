/**
 * Which errors and warnings an edit introduced: the language servers'
 * diagnostics after the edit compared with those before it. Pure.
 *
 * The rule, in two passes per file:
 * 1. A diagnostic after the edit is the same problem as one before when its
 *    identity (severity, message, code, source) and the trimmed text of its
 *    first line are equal. Lines are not compared by number, so code the edit
 *    moved (or re-indented) brings no "new" problems.
 * 2. One left over is still the same problem when a left-over diagnostic of
 *    the same identity sat on a line that lands within `NEAR_LINES` of it
 *    after the edit (lines aligned as a line diff does; a rewritten line
 *    lands on what replaced it): the edit rewrote a line that already had
 *    this error, it did not create it.
 * What is still left is introduced. Before-diagnostics nothing matched are
 * fixed (counted only). A file the edit did not touch counts only when the
 * before view has an entry for it: without one, its earlier state is unknown
 * and its problems are not called new.
 */
import { alignLines } from "../editing/align";
import type { DiagnosticsView, LspDiagnostic } from "./types";

/** Lines around a rewritten region where a same-identity problem counts as the old one. */
export const NEAR_LINES = 3;

export interface IntroducedDiagnostics {
    /** Edited files first (in the order given), then the others by path; by line within a file. */
    introduced: LspDiagnostic[];
    /** Errors and warnings present before the edit and gone after it. */
    fixed: number;
}

type Reported = LspDiagnostic & { severity: "error" | "warning" };

function reported(list: readonly LspDiagnostic[] | undefined): Reported[] {
    return (list ?? []).filter(
        (d): d is Reported => d.severity === "error" || d.severity === "warning"
    );
}

function identity(d: LspDiagnostic): string {
    return JSON.stringify([d.severity, d.message, d.code ?? null, d.source ?? null]);
}

function splitLines(text: string | undefined): string[] | null {
    return text === undefined ? null : text.split(/\r\n|\r|\n/);
}

function lineKey(d: LspDiagnostic, lines: readonly string[] | null): string {
    return `${identity(d)}\n${lines?.[d.line - 1]?.trim() ?? ""}`;
}

/**
 * Where each line before the edit is after it, lines aligned as a line diff
 * does (editing/align.ts), so several separate changes (a batch) each keep
 * their own place.
 */
class LineMap {
    /** Before line (0-based) → the after line it was kept as, or -1 when rewritten. */
    private readonly kept: Int32Array;
    private readonly afterLength: number;

    constructor(before: readonly string[], after: readonly string[]) {
        const kept = new Int32Array(before.length).fill(-1);
        alignLines(before, after, (a, b) => a === b).forEach((line, afterLine) => {
            if (line.kind === "same") kept[line.oldIndex] = afterLine;
        });
        this.kept = kept;
        this.afterLength = after.length;
    }

    /** The after lines a before line (0-based) landed on: one line, or the range that replaced it. */
    map(line: number): [number, number] {
        const { kept, afterLength } = this;
        if (line >= kept.length) {
            const moved = line + afterLength - kept.length;
            return [moved, moved];
        }
        const own = kept[line]!;
        if (own !== -1) return [own, own];
        let previous = -1;
        for (let i = line - 1; i >= 0; i--) {
            if (kept[i]! !== -1) {
                previous = kept[i]!;
                break;
            }
        }
        let next = afterLength;
        for (let i = line + 1; i < kept.length; i++) {
            if (kept[i]! !== -1) {
                next = kept[i]!;
                break;
            }
        }
        const first = previous + 1;
        return [first, Math.max(first, next - 1)];
    }
}

function isNear(afterLine: number, range: [number, number]): boolean {
    const distance =
        afterLine < range[0]
            ? range[0] - afterLine
            : afterLine > range[1]
              ? afterLine - range[1]
              : 0;
    return distance <= NEAR_LINES;
}

function byPosition(a: LspDiagnostic, b: LspDiagnostic): number {
    return a.line - b.line || a.column - b.column;
}

function groupInto<T>(groups: Map<string, T[]>, key: string, item: T): void {
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
}

/** One file's comparison: the introduced diagnostics and how many before ones are gone. */
function compareFile(
    beforeList: readonly Reported[],
    afterList: readonly Reported[],
    beforeText: string | undefined,
    afterText: string | undefined
): { introduced: Reported[]; fixed: number } {
    const beforeLines = splitLines(beforeText);
    const afterLines = splitLines(afterText);
    // Pass 1: same identity on a line with the same text.
    const unmatchedBefore = new Map<string, Reported[]>();
    for (const d of beforeList) {
        groupInto(unmatchedBefore, lineKey(d, beforeLines), d);
    }
    const leftAfter: Reported[] = [];
    for (const d of afterList) {
        const same = unmatchedBefore.get(lineKey(d, afterLines));
        if (same && same.length > 0) same.shift();
        else leftAfter.push(d);
    }
    // Pass 2: same identity in or near the rewritten lines. Without both texts
    // nothing can be placed, so any same-identity problem counts as the old one.
    const leftBefore = new Map<string, Reported[]>();
    for (const d of [...unmatchedBefore.values()].flat()) {
        groupInto(leftBefore, identity(d), d);
    }
    const lineMap = beforeLines && afterLines ? new LineMap(beforeLines, afterLines) : null;
    const introduced: Reported[] = [];
    for (const d of leftAfter) {
        const candidates = leftBefore.get(identity(d)) ?? [];
        const index = candidates.findIndex(
            (b) => lineMap === null || isNear(d.line - 1, lineMap.map(b.line - 1))
        );
        if (index === -1) introduced.push(d);
        else candidates.splice(index, 1);
    }
    const fixed = [...leftBefore.values()].reduce((sum, list) => sum + list.length, 0);
    return { introduced: introduced.sort(byPosition), fixed };
}

/**
 * The errors and warnings in `after` that were not in `before`, in the
 * edited files (absolute paths) and in other files both views report on.
 */
export function introducedDiagnostics(
    before: DiagnosticsView,
    after: DiagnosticsView,
    edited: readonly string[]
): IntroducedDiagnostics {
    const editedSet = new Set(edited);
    const others = [...after.byPath.keys()]
        .filter((path) => !editedSet.has(path) && before.byPath.has(path))
        .sort();
    const introduced: LspDiagnostic[] = [];
    let fixed = 0;
    for (const path of [...new Set(edited), ...others]) {
        // An edited file the after view does not cover cannot be judged.
        if (!after.byPath.has(path)) continue;
        const result = compareFile(
            reported(before.byPath.get(path)),
            reported(after.byPath.get(path)),
            before.text.get(path),
            after.text.get(path)
        );
        introduced.push(...result.introduced);
        fixed += result.fixed;
    }
    return { introduced, fixed };
}

/** Characters of one diagnostic's message kept on its line. */
const MAX_MESSAGE_CHARS = 300;

/**
 * `path:line:col severity message (source code)` on one line; the path
 * relative to `root` when given and inside it, else as it is.
 */
export function formatDiagnostic(d: LspDiagnostic, root?: string): string {
    const prefix = root === undefined ? null : root.endsWith("/") ? root : `${root}/`;
    const path = prefix && d.path.startsWith(prefix) ? d.path.slice(prefix.length) : d.path;
    const flat = d.message.replace(/\s+/g, " ").trim();
    const message =
        flat.length > MAX_MESSAGE_CHARS ? `${flat.slice(0, MAX_MESSAGE_CHARS - 1)}…` : flat;
    const origin = [d.source, d.code].filter((part) => part !== undefined && part !== "");
    return `${path}:${d.line}:${d.column} ${d.severity} ${message}${origin.length > 0 ? ` (${origin.join(" ")})` : ""}`;
}
