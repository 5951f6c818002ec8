/**
 * The edit operations as pure functions over a file's current text: each
 * validates its arguments against the content, places the change (exact or
 * tolerant match, anchors, line numbers) and returns the new text, or an
 * error the model can act on. Nothing here touches the disk.
 */
import type { ToolResult } from "../types";
import { toolError, toolOk } from "../types";
import {
    ambiguousMessage,
    notFoundMessage,
    occurrenceMessage,
    shortSearchMessage,
} from "./diagnostics";
import type { MatchSet, TextMatch, Tolerance } from "./match";
import { findMatches, replaceMatch } from "./match";
import type { TextDoc } from "./text-doc";
import { countLines, endsWithNewline, keepFinalNewline, lineStarts, withEol } from "./text-doc";

/** The file an edit applies to, as it stands before this edit. */
export interface WorkingFile {
    relPath: string;
    /** The file exists (on disk, or created earlier in the same batch). */
    exists: boolean;
    doc: TextDoc;
}

export interface EditOutcome {
    text: string;
    /** 1-based line where the change starts. */
    line: number;
    tolerance?: Tolerance;
}

type Outcome = ToolResult<EditOutcome>;

function lines(content: string): string[] {
    if (content === "") return [];
    return content.replace(/\r?\n$/, "").split(/\r?\n/);
}

/**
 * Replaces lines [start, end) (0-based) with `content` lines, writing line
 * breaks in the file's style and keeping its final-newline state.
 */
export function spliceLines(doc: TextDoc, start: number, end: number, content: string[]): string {
    const work = endsWithNewline(doc.text) ? doc.text : doc.text + doc.eol;
    const starts = lineStarts(work);
    const total = countLines(work);
    const offset = (index: number) =>
        index >= total ? work.length : (starts[index] ?? work.length);
    const inserted = content.map((line) => line + doc.eol).join("");
    const edited = work.slice(0, offset(start)) + inserted + work.slice(offset(end));
    return keepFinalNewline(doc.text, edited, doc.eol);
}

function checkOccurrence(occurrence: number | undefined): Outcome | null {
    if (occurrence !== undefined && occurrence < 1) {
        return toolError(
            "out_of_range",
            `occurrence ${occurrence} is out of range; occurrence counts from 1.`
        );
    }
    return null;
}

/** Search text shorter than this (non-whitespace characters) names no place when it repeats. */
const MIN_SEARCH_CHARS = 3;

function nonWhitespaceLength(search: string): number {
    return search.replace(/\s/g, "").length;
}

/**
 * Picks the one match to edit, or explains why it cannot. Several matches in the
 * tier that matched (an exact hit inside a longer line counts) are refused unless
 * `occurrence` names one: a tool that guesses right nine times in ten silently
 * corrupts the tenth, while a candidates list lets the model retry.
 */
function pick(
    kind: "Text" | "Anchor",
    file: WorkingFile,
    starts: readonly number[],
    search: string,
    set: MatchSet,
    occurrence: number | undefined
): ToolResult<TextMatch> {
    const { matches, level } = set;
    const first = matches[0];
    if (!first) return toolError("no_match", notFoundMessage(kind, file.doc.text, starts, search));
    // Counting hits of `}` or of four spaces is guesswork too, occurrence or not.
    if (matches.length > 1 && nonWhitespaceLength(search) < MIN_SEARCH_CHARS) {
        return toolError(
            "ambiguous_match",
            shortSearchMessage(kind, file.relPath, level, file.doc.text, starts, matches)
        );
    }
    if (occurrence !== undefined) {
        const chosen = matches[occurrence - 1];
        if (!chosen) {
            return toolError(
                "out_of_range",
                occurrenceMessage(kind, file.relPath, occurrence, level, matches.length)
            );
        }
        return toolOk(chosen);
    }
    if (matches.length > 1) {
        return toolError(
            "ambiguous_match",
            ambiguousMessage(kind, file.relPath, level, file.doc.text, starts, matches)
        );
    }
    return toolOk(first);
}

/** Anchor matches, one per distinct line range (an anchor twice on one line is one place). */
function anchorMatches(
    text: string,
    starts: readonly number[],
    anchor: string,
    minStart = 0
): MatchSet {
    const set = findMatches(text, starts, anchor, { minStart });
    const seen = new Set<string>();
    const matches = set.matches.filter((m) => {
        const key = `${m.startLine}:${m.endLine}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
    });
    return { level: set.level, matches };
}

function toleranceOf(match: TextMatch): Tolerance | undefined {
    return match.level === "exact" ? undefined : match.level;
}

export interface ReplaceExactInput {
    old_text: string;
    new_text: string;
    occurrence?: number;
}

export function replaceExact(file: WorkingFile, input: ReplaceExactInput): Outcome {
    if (input.old_text === "") {
        return toolError(
            "invalid_args",
            "old_text is empty; give the exact text to replace (to add text, use edit_insert_at_line or edit_after_anchor)."
        );
    }
    if (input.old_text === input.new_text) {
        return toolError("no_change", "old_text and new_text are identical; nothing would change.");
    }
    const bad = checkOccurrence(input.occurrence);
    if (bad) return bad;
    const { text, eol } = file.doc;
    const starts = lineStarts(text);
    const set = findMatches(text, starts, input.old_text);
    const picked = pick("Text", file, starts, input.old_text, set, input.occurrence);
    if (!picked.ok) return picked;
    const match = picked.data;
    const edited = replaceMatch(text, starts, match, input.old_text, input.new_text, eol);
    return toolOk({
        text: keepFinalNewline(text, edited.text, eol),
        line: match.startLine,
        tolerance: edited.level === "exact" ? undefined : edited.level,
    });
}

export interface InsertAtLineInput {
    line: number;
    content: string;
}

export function insertAtLine(file: WorkingFile, input: InsertAtLineInput): Outcome {
    const total = countLines(file.doc.text);
    if (!Number.isInteger(input.line) || input.line < 1 || input.line > total + 1) {
        const why =
            input.line < 1
                ? "lines count from 1"
                : `the file has ${total} line${total === 1 ? "" : "s"}`;
        return toolError(
            "out_of_range",
            `line ${input.line} is out of range: ${why}. Use a line from 1 to ${total + 1} (${total + 1} appends at the end).`
        );
    }
    const content = lines(input.content);
    if (content.length === 0)
        return toolError("invalid_args", "content is empty; nothing to insert.");
    return toolOk({
        text: spliceLines(file.doc, input.line - 1, input.line - 1, content),
        line: input.line,
    });
}

export type AnchorMode = "insert_before" | "insert_after" | "replace_line" | "replace_between";

export interface AnchorEditInput {
    mode: AnchorMode;
    anchor: string;
    anchor_end?: string;
    content: string;
    occurrence?: number;
    inclusive?: boolean;
}

function emptyAnchor(name: string): Outcome {
    return toolError(
        "invalid_args",
        `${name} is empty; give text that appears on the line you mean.`
    );
}

/** The four anchor modes (the after/before/block tools are thin wrappers). */
export function anchorEdit(file: WorkingFile, input: AnchorEditInput): Outcome {
    if (input.anchor.trim() === "") return emptyAnchor("anchor");
    const bad = checkOccurrence(input.occurrence);
    if (bad) return bad;
    const { text } = file.doc;
    const starts = lineStarts(text);
    const picked = pick(
        "Anchor",
        file,
        starts,
        input.anchor,
        anchorMatches(text, starts, input.anchor),
        input.occurrence
    );
    if (!picked.ok) return picked;
    const match = picked.data;
    const content = lines(input.content);
    const tolerance = toleranceOf(match);
    const done = (edited: string, line: number): Outcome =>
        toolOk({ text: edited, line, tolerance });

    switch (input.mode) {
        case "insert_before":
        case "insert_after": {
            if (content.length === 0)
                return toolError("invalid_args", "content is empty; nothing to insert.");
            const at = input.mode === "insert_before" ? match.startLine - 1 : match.endLine;
            return done(spliceLines(file.doc, at, at, content), at + 1);
        }
        case "replace_line":
            return done(
                spliceLines(file.doc, match.startLine - 1, match.endLine, content),
                match.startLine
            );
        case "replace_between":
            return replaceBetween(file, starts, match, input, content, tolerance);
    }
}

function replaceBetween(
    file: WorkingFile,
    starts: readonly number[],
    start: TextMatch,
    input: AnchorEditInput,
    content: string[],
    tolerance: Tolerance | undefined
): Outcome {
    const endAnchor = input.anchor_end ?? "";
    if (endAnchor.trim() === "") {
        return toolError(
            "invalid_args",
            "replace_between needs anchor_end: text on the line that closes the block."
        );
    }
    const { text } = file.doc;
    const from = starts[start.endLine] ?? text.length;
    // The block closes at the end anchor's first hit after the start: a stated rule
    // (the tools' descriptions say so), not a choice among places.
    const set = anchorMatches(text, starts, endAnchor, from);
    const end = set.matches[0];
    if (!end || from >= text.length) {
        return toolError(
            "no_match",
            notFoundMessage(
                "End anchor",
                text,
                starts,
                endAnchor,
                `after the start anchor (line ${start.endLine})`
            )
        );
    }
    const first = input.inclusive ? start.startLine - 1 : start.endLine;
    const last = input.inclusive ? end.endLine : end.startLine - 1;
    const endTolerance = end.level === "exact" ? undefined : end.level;
    return toolOk({
        text: spliceLines(file.doc, first, last, content),
        line: first + 1,
        tolerance: tolerance ?? endTolerance,
    });
}

export interface CreateFileInput {
    content: string;
    overwrite?: boolean;
}

export function createFile(file: WorkingFile, input: CreateFileInput): Outcome {
    if (file.exists && !input.overwrite) {
        return toolError(
            "already_exists",
            `${file.relPath} already exists. Pass overwrite: true to replace it, or use an edit tool to change part of it.`
        );
    }
    // An overwritten file keeps its line-ending style (and, on write, its BOM).
    const text =
        file.exists && file.doc.eol === "\r\n" ? withEol(input.content, "\r\n") : input.content;
    return toolOk({ text, line: 1 });
}
