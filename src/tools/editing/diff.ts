/**
 * Unified diffs for review. Whole-file diffing is quadratic in the worst case,
 * so only the changed window (common prefix and suffix lines removed, three
 * lines of context kept) goes through `structuredPatch`, and its hunks are
 * shifted back to file line numbers.
 */
import type { StructuredPatchHunk, structuredPatch } from "diff";
import { FULL_TEXT_DIFF_CHARS } from "../limits";
import type { FileDiff } from "../types";

type Patcher = typeof structuredPatch;

/**
 * jsdiff's patch module, loaded on first use (importing all of `diff` costs
 * ~20 ms at startup); Node's module cache keeps it after that.
 */
function loadPatcher(): Promise<Patcher> {
    return import("diff/lib/patch/create.js").then((m) => m.structuredPatch);
}

const CONTEXT = 3;
const CHUNK = 4096;

/** Length of the common prefix of `a` and `b`, compared in native-sized chunks. */
function commonPrefixLength(a: string, b: string): number {
    const max = Math.min(a.length, b.length);
    let i = 0;
    while (i + CHUNK <= max && a.slice(i, i + CHUNK) === b.slice(i, i + CHUNK)) i += CHUNK;
    while (i < max && a.charCodeAt(i) === b.charCodeAt(i)) i++;
    return i;
}

function commonSuffixLength(a: string, b: string, limit: number): number {
    const max = Math.min(limit, a.length, b.length);
    let i = 0;
    while (
        i + CHUNK <= max &&
        a.slice(a.length - i - CHUNK, a.length - i) === b.slice(b.length - i - CHUNK, b.length - i)
    ) {
        i += CHUNK;
    }
    while (i < max && a.charCodeAt(a.length - 1 - i) === b.charCodeAt(b.length - 1 - i)) i++;
    return i;
}

function countNewlines(text: string, from: number, to: number): number {
    let count = 0;
    for (let i = text.indexOf("\n", from); i !== -1 && i < to; i = text.indexOf("\n", i + 1))
        count++;
    return count;
}

/** Start of the line `lines` lines above the line starting at `offset`. */
function backLines(text: string, offset: number, lines: number): number {
    let at = offset;
    for (let n = 0; n < lines && at > 0; n++) at = at < 2 ? 0 : text.lastIndexOf("\n", at - 2) + 1;
    return at;
}

/** Offset just past `lines` more line breaks from `offset` (or the end). */
function forwardLines(text: string, offset: number, lines: number): number {
    let at = offset;
    for (let n = 0; n < lines && at < text.length; n++) {
        const next = text.indexOf("\n", at);
        at = next === -1 ? text.length : next + 1;
    }
    return at;
}

interface Window {
    oldText: string;
    newText: string;
    /** 1-based file line of the window's first line. */
    firstLine: number;
}

/** The smallest line-aligned window holding every difference, plus context. */
function changedWindow(oldText: string, newText: string): Window | null {
    if (oldText === newText) return null;
    const prefix = commonPrefixLength(oldText, newText);
    const lineStart = oldText.lastIndexOf("\n", prefix - 1) + 1;
    const suffix = commonSuffixLength(
        oldText,
        newText,
        Math.min(oldText.length, newText.length) - lineStart
    );
    let oldEnd = oldText.length - suffix;
    const shift = newText.length - oldText.length;
    const atLineStart =
        oldEnd === oldText.length ||
        (oldText[oldEnd - 1] === "\n" && newText[oldEnd + shift - 1] === "\n");
    if (!atLineStart) oldEnd = forwardLines(oldText, oldEnd, 1);
    const from = backLines(oldText, lineStart, CONTEXT);
    const oldTo = forwardLines(oldText, oldEnd, CONTEXT);
    const newTo = oldTo + shift;
    return {
        oldText: oldText.slice(from, oldTo),
        newText: newText.slice(from, newTo),
        firstLine: countNewlines(oldText, 0, from) + 1,
    };
}

function allLinesHunk(oldText: string, newText: string): StructuredPatchHunk {
    const split = (text: string) => (text === "" ? [] : text.replace(/\n$/, "").split("\n"));
    const oldLines = split(oldText);
    const newLines = split(newText);
    const lines = [...oldLines.map((l) => `-${l}`), ...newLines.map((l) => `+${l}`)];
    return {
        oldStart: 1,
        oldLines: oldLines.length,
        newStart: 1,
        newLines: newLines.length,
        lines,
    };
}

async function windowHunks(window: Window): Promise<StructuredPatchHunk[]> {
    const structuredPatch = await loadPatcher();
    const patch = structuredPatch("a", "b", window.oldText, window.newText, "", "", {
        context: CONTEXT,
        timeout: 1000,
    });
    const hunks = patch ? patch.hunks : [allLinesHunk(window.oldText, window.newText)];
    const offset = window.firstLine - 1;
    return hunks.map((h) => ({
        ...h,
        oldStart: h.oldStart + offset,
        newStart: h.newStart + offset,
    }));
}

/** A hunk range; an empty range names the line before it (structuredPatch counts one higher). */
function range(start: number, count: number): string {
    if (count === 0) return `${Math.max(0, start - 1)},0`;
    return count === 1 ? `${start}` : `${start},${count}`;
}

function formatDiff(oldName: string, newName: string, hunks: StructuredPatchHunk[]): string {
    const out = [`--- ${oldName}`, `+++ ${newName}`];
    for (const h of hunks) {
        out.push(`@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@`);
        for (const line of h.lines) out.push(line.endsWith("\r") ? line.slice(0, -1) : line);
    }
    return out.join("\n") + "\n";
}

function countChanges(hunks: StructuredPatchHunk[]): { added: number; removed: number } {
    let added = 0;
    let removed = 0;
    for (const h of hunks) {
        for (const line of h.lines) {
            if (line.startsWith("+")) added++;
            else if (line.startsWith("-")) removed++;
        }
    }
    return { added, removed };
}

/** The whole texts beside the diff, when the file's real path is known and both are small enough. */
function fullTexts(
    absPath: string | undefined,
    oldText: string | null,
    newText: string
): Pick<FileDiff, "absPath" | "oldText" | "newText"> {
    if (absPath === undefined) return {};
    if (newText.length > FULL_TEXT_DIFF_CHARS) return {};
    if (oldText !== null && oldText.length > FULL_TEXT_DIFF_CHARS) return {};
    return { absPath, oldText, newText };
}

/**
 * The review diff of one file. `oldText` is null for a file that does not
 * exist yet. Texts are decoded content (BOM excluded). With `absPath` (the
 * file's real path) the diff also carries both whole texts, bounded.
 */
export async function computeFileDiff(
    relPath: string,
    oldText: string | null,
    newText: string,
    absPath?: string
): Promise<FileDiff> {
    if (oldText === null) {
        const lines = newText === "" ? [] : newText.replace(/\r?\n$/, "").split("\n");
        const hunk: StructuredPatchHunk = {
            oldStart: 1,
            oldLines: 0,
            newStart: lines.length === 0 ? 0 : 1,
            newLines: lines.length,
            lines: lines.map((l) => `+${l}`),
        };
        if (newText !== "" && !newText.endsWith("\n"))
            hunk.lines.push("\\ No newline at end of file");
        const hunks = lines.length === 0 ? [] : [hunk];
        return {
            path: relPath,
            diff: formatDiff("/dev/null", `b/${relPath}`, hunks),
            linesAdded: lines.length,
            linesRemoved: 0,
            isNewFile: true,
            ...fullTexts(absPath, null, newText),
        };
    }
    const window = changedWindow(oldText, newText);
    const hunks = window ? await windowHunks(window) : [];
    const { added, removed } = countChanges(hunks);
    return {
        path: relPath,
        diff: formatDiff(`a/${relPath}`, `b/${relPath}`, hunks),
        linesAdded: added,
        linesRemoved: removed,
        isNewFile: false,
        ...fullTexts(absPath, oldText, newText),
    };
}
