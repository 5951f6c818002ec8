/**
 * A text file as the edit tools see it: decoded UTF-8 without its BOM, its
 * dominant line ending, and helpers to address it by 1-based line numbers.
 * Edits work on the raw text (line endings untouched), so bytes outside the
 * edited region are written back exactly as they were read.
 */

export type Eol = "\n" | "\r\n";

export interface TextDoc {
    /** Decoded content without the BOM; line endings as on disk. */
    text: string;
    /** Dominant line ending; new lines are written with it. */
    eol: Eol;
    /** The file started with a UTF-8 BOM (kept on write). */
    bom: boolean;
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export type DecodeResult =
    { ok: true; doc: TextDoc } | { ok: false; reason: "binary" | "encoding"; message: string };

/** Decodes file bytes; refuses binary content and anything that is not valid UTF-8. */
export function decodeText(bytes: Uint8Array): DecodeResult {
    const bom = bytes.length >= 3 && BOM.equals(bytes.subarray(0, 3));
    const body = bom ? bytes.subarray(3) : bytes;
    if ((body[0] === 0xff && body[1] === 0xfe) || (body[0] === 0xfe && body[1] === 0xff)) {
        return { ok: false, reason: "encoding", message: "is UTF-16 encoded" };
    }
    if (body.subarray(0, 8000).includes(0)) {
        return { ok: false, reason: "binary", message: "looks binary (it contains NUL bytes)" };
    }
    let text: string;
    try {
        text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(body);
    } catch {
        return { ok: false, reason: "encoding", message: "is not valid UTF-8" };
    }
    return { ok: true, doc: { text, eol: detectEol(text), bom } };
}

/** Bytes to write for `text` in the document's encoding (BOM restored). */
export function encodeText(text: string, bom: boolean): Buffer {
    const body = Buffer.from(text, "utf8");
    return bom ? Buffer.concat([BOM, body]) : body;
}

/** CRLF when most line breaks are CRLF, else LF. */
export function detectEol(text: string): Eol {
    let crlf = 0;
    let lf = 0;
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
        if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++;
        else lf++;
    }
    return crlf > lf ? "\r\n" : "\n";
}

/** Rewrites every line break of `text` (LF or CRLF) as `eol`. */
export function withEol(text: string, eol: Eol): string {
    const lf = text.includes("\r\n") ? text.replace(/\r\n/g, "\n") : text;
    return eol === "\n" ? lf : lf.replace(/\n/g, eol);
}

/** Offsets at which each line starts (index 0 is line 1). */
export function lineStarts(text: string): number[] {
    const starts = [0];
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
    return starts;
}

/** 0-based line index containing `offset`, given `lineStarts(text)`. */
export function lineIndexAt(starts: readonly number[], offset: number): number {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if ((starts[mid] ?? 0) <= offset) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/** Number of lines as an editor shows them: "" has 0, "a" and "a\n" have 1. */
export function countLines(text: string): number {
    if (text === "") return 0;
    let count = 0;
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) count++;
    return text.endsWith("\n") ? count : count + 1;
}

/** True when the text is empty or ends with a line break. */
export function endsWithNewline(text: string): boolean {
    return text === "" || text.endsWith("\n");
}

/**
 * Keeps the original's final-newline state: a file that ended with a line
 * break still does, one that did not still does not.
 */
export function keepFinalNewline(original: string, edited: string, eol: Eol): string {
    if (edited === "") return edited;
    const had = endsWithNewline(original);
    const has = edited.endsWith("\n");
    if (had && !has) return edited + eol;
    if (!had && has) return edited.slice(0, edited.endsWith("\r\n") ? -2 : -1);
    return edited;
}

/** One line's text without its terminator (0-based index). */
export function lineText(text: string, starts: readonly number[], index: number): string {
    const start = starts[index] ?? text.length;
    const next = starts[index + 1];
    let end = next === undefined ? text.length : next - 1;
    if (end > start && text.charCodeAt(end - 1) === 13) end--;
    return text.slice(start, end);
}

/** A one-line preview for messages: trimmed, tabs shown, long lines cut. */
export function preview(line: string, max = 100): string {
    const trimmed = line.replace(/\s+$/, "");
    return trimmed.length > max ? `${trimmed.slice(0, max - 1)}…` : trimmed;
}
