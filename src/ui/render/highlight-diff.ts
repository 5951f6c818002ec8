/**
 * Diff lines in colour: the +/− marker and the text around tokens in the
 * line's colour, the code syntax-coloured by the file's language (the old
 * side and the new side each highlighted as one text, so a comment or string
 * spanning lines reads right), and in each removed/added pair the changed
 * words drawn inverse. Plain-coloured as before until the highlighter loads.
 */
import type { ThemeColor } from "../theme";
import type { Ansi } from "./ansi";
import { type CodeLine, changedSpans, highlightCode, languageOfPath, paintLine } from "./highlight";

export type DiffLineKind = "file" | "hunk" | "add" | "remove" | "context" | "note";

export interface DiffLine {
    kind: DiffLineKind;
    /** The line as the diff has it: its +/−/space first (none for file and hunk lines). */
    text: string;
}

const BASE: Partial<Record<DiffLineKind, ThemeColor>> = {
    hunk: "diffHunk",
    add: "diffAdd",
    remove: "diffRemove",
    note: "dim",
};

/** Removed lines paired with the added lines right after them: [removed index, added index]. */
function pairs(lines: readonly DiffLine[]): Array<[number, number]> {
    const out: Array<[number, number]> = [];
    let i = 0;
    while (i < lines.length) {
        if (lines[i]!.kind !== "remove") {
            i++;
            continue;
        }
        let added = i;
        while (added < lines.length && lines[added]!.kind === "remove") added++;
        let end = added;
        while (end < lines.length && lines[end]!.kind === "add") end++;
        for (let k = 0; k < Math.min(added - i, end - added); k++) out.push([i + k, added + k]);
        i = end;
    }
    return out;
}

/** Token lines of one side of the diff (`kinds`), by line index. */
function side(
    lines: readonly DiffLine[],
    kinds: ReadonlySet<DiffLineKind>,
    language: string | undefined,
    into: Array<CodeLine | undefined>
): void {
    const indexes: number[] = [];
    lines.forEach((line, i) => {
        if (kinds.has(line.kind)) indexes.push(i);
    });
    if (indexes.length === 0) return;
    const tokens = highlightCode(indexes.map((i) => lines[i]!.text.slice(1)).join("\n"), language);
    if (!tokens) return;
    indexes.forEach((line, k) => {
        into[line] ??= tokens[k];
    });
}

const NEW_SIDE = new Set<DiffLineKind>(["add", "context"]);
const OLD_SIDE = new Set<DiffLineKind>(["remove", "context"]);

/** `lines` as ANSI strings, one each, coloured as the module says. */
export function styleDiffLines(
    lines: readonly DiffLine[],
    language: string | undefined,
    ansi: Ansi
): string[] {
    const tokens: Array<CodeLine | undefined> = new Array<CodeLine | undefined>(lines.length);
    side(lines, NEW_SIDE, language, tokens);
    side(lines, OLD_SIDE, language, tokens);
    const marks = new Map<number, Array<[number, number]>>();
    for (const [removed, added] of pairs(lines)) {
        const spans = changedSpans(lines[removed]!.text.slice(1), lines[added]!.text.slice(1));
        if (!spans) continue;
        marks.set(removed, spans.removed);
        marks.set(added, spans.added);
    }
    return lines.map((line, i) => {
        const base = BASE[line.kind];
        if (line.kind === "file") return ansi.bold(line.text);
        const code = tokens[i];
        const mark = marks.get(i);
        if (line.kind === "hunk" || line.kind === "note" || (!code && !mark))
            return base ? ansi.fg(base, line.text) : line.text;
        const marker = line.text.slice(0, 1);
        const body = code ?? [{ text: line.text.slice(1) }];
        return (base ? ansi.fg(base, marker) : marker) + paintLine(body, ansi, base, mark);
    });
}

/** A ```diff block's lines read as diff lines (git's headers as file lines). */
export function readDiffBlock(text: string): { lines: DiffLine[]; language: string | undefined } {
    let path: string | undefined;
    const lines = text.split("\n").map((line): DiffLine => {
        if (/^(diff |index |--- |\+\+\+ )/.test(line)) {
            const target = /^\+\+\+ (?:b\/)?(\S+)/.exec(line)?.[1];
            if (target && target !== "/dev/null") path = target;
            return { kind: "file", text: line };
        }
        if (line.startsWith("@@")) return { kind: "hunk", text: line };
        if (line.startsWith("+")) return { kind: "add", text: line };
        if (line.startsWith("-")) return { kind: "remove", text: line };
        if (line.startsWith("\\")) return { kind: "note", text: line };
        return { kind: "context", text: line };
    });
    return { lines, language: path === undefined ? undefined : languageOfPath(path) };
}
