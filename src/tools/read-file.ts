/**
 * read_file: a window of a text file, at most `MAX_LINES` lines or `MAX_BYTES`.
 * The file is streamed in chunks, never loaded whole: lines outside the window
 * are only counted (a byte scan for "\n"), so a 200 MB log costs one pass and
 * ~1 MB of memory. Invalid UTF-8 is decoded as Latin-1, and the note says so.
 * `includeHeadTail` adds the first and last `EDGE_LINES` lines: the head is read
 * from the start, the tail backwards from the end, each at most `EDGE_BYTES`.
 * With the editor's files (ACP), a text file within `CLIENT_FILE_MAX_BYTES`
 * is scanned from the editor's text instead, after the disk copy's checks.
 */
import { isUtf8 } from "node:buffer";
import { promises as fs } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { ClientFileError, readEditorText } from "./client-files";
import type { ClientFiles } from "./client-workspace";
import { type InputOf, toolInput } from "./tool-input";
import { resolveSafePath } from "./path-guard";
import { refuseDeniedRead } from "./read-denial";
import { readImageFile } from "./read-image";
import { BINARY_SNIFF_BYTES, formatBytes, looksBinary } from "./text-file";
import { type ToolDefinition, type ToolResult, toolError, toolOk } from "./types";
import { fileTitle } from "./display-text";
import { digestNote, headTail, isRecord } from "./digest-text";
import {
    CLIENT_FILE_MAX_BYTES,
    DIGEST_BOUNDED_RANGE_LINES,
    DIGEST_READ_HEAD_LINES,
    DIGEST_READ_TAIL_LINES,
    READ_EDGE_LINE_CHARS,
    READ_EDGE_LINES,
    READ_MAX_BYTES,
    READ_MAX_LINES,
} from "./limits";

export const MAX_LINES = READ_MAX_LINES;
export const MAX_BYTES = READ_MAX_BYTES;
const CHUNK_BYTES = 1024 * 1024;
/** Lines in `head` and in `tail`. */
export const EDGE_LINES = READ_EDGE_LINES;
/** Most bytes read for `head` or `tail`; a line reaching past them is cut. */
const EDGE_BYTES = 64 * 1024;
/** Step of the backward read for `tail`. */
const EDGE_CHUNK_BYTES = 8 * 1024;
/** Characters kept of a `head` or `tail` line. */
export const EDGE_LINE_CHARS = READ_EDGE_LINE_CHARS;

const input = toolInput((z) =>
    z.object({
        path: z.string(),
        range: z
            .object({
                start: z.number().int().min(1).describe("1-based."),
                end: z.number().int().min(1).optional().describe("Inclusive."),
            })
            .optional(),
        includeHeadTail: z.boolean().optional().describe("Add first/last 10 lines."),
    })
);

export type ReadFileInput = InputOf<typeof input>;

export interface ReadFileResult {
    path: string;
    /** The lines, joined with "\n" (no trailing newline); "\r" is kept. */
    content: string;
    /** 1-based, inclusive. `endLine` < `startLine` when nothing was read. */
    startLine: number;
    endLine: number;
    totalLines: number;
    /** Requested lines remain unread (or the last line was cut). */
    truncated: boolean;
    note?: string;
    /** With `includeHeadTail`: the first lines not already in `content`. */
    head?: ReadFileEdge;
    /** With `includeHeadTail`: the last lines not already in `content` or `head`. */
    tail?: ReadFileEdge;
}

/** A few lines for orientation. */
export interface ReadFileEdge {
    /** 1-based number of the first line. */
    startLine: number;
    /**
     * The lines, joined with "\n". A line over `EDGE_LINE_CHARS` characters is cut,
     * "…" marking the cut; a tail line whose start is beyond `EDGE_BYTES` shows its end.
     */
    content: string;
}

interface Window {
    parts: Buffer[];
    bytes: number;
    /** Last line read completely (start - 1 when none). */
    through: number;
    /** A line cut at `MAX_BYTES` (its number), or 0. */
    cutLine: number;
    /** Bytes of the line that was cut. */
    cutLineBytes: number;
    totalLines: number;
}

/** What the scans read from: the open file, or the editor's text of it. */
interface ByteSource {
    read(
        buffer: Buffer,
        offset: number,
        length: number,
        position: number
    ): Promise<{ bytesRead: number }>;
}

/** The editor's text as a source the scans read like the file. */
function bufferSource(data: Buffer): ByteSource {
    return {
        read: (buffer, offset, length, position) => {
            const bytesRead = Math.max(0, Math.min(length, data.length - position));
            data.copy(buffer, offset, position, position + bytesRead);
            return Promise.resolve({ bytesRead });
        },
    };
}

/** Streams the file once: collects lines `first..last` within `MAX_BYTES`, counts all lines. */
async function scan(
    handle: ByteSource,
    first: number,
    last: number,
    signal: AbortSignal
): Promise<Window | null> {
    const win: Window = {
        parts: [],
        bytes: 0,
        through: first - 1,
        cutLine: 0,
        cutLineBytes: 0,
        totalLines: 0,
    };
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    let state: "before" | "collect" | "after" = first === 1 ? "collect" : "before";
    let line = 1;
    let lineBytes = 0;
    let lineStartPart = 0;
    let lineStartBytes = 0;
    let position = 0;
    let lastByte = -1;
    for (;;) {
        if (signal.aborted) return null;
        const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, position);
        if (bytesRead === 0) break;
        position += bytesRead;
        lastByte = chunk[bytesRead - 1]!;
        let pos = 0;
        while (pos < bytesRead) {
            const nl = chunk.indexOf(10, pos);
            const ended = nl >= 0 && nl < bytesRead;
            const stop = ended ? nl + 1 : bytesRead;
            lineBytes += stop - pos;
            if (state === "collect") {
                const piece = chunk.subarray(pos, stop);
                if (win.bytes + piece.length <= MAX_BYTES) {
                    win.parts.push(Buffer.from(piece));
                    win.bytes += piece.length;
                    if (ended) win.through = line;
                } else if (line === first) {
                    // One line longer than the budget: keep its head.
                    win.parts.push(Buffer.from(piece.subarray(0, MAX_BYTES - win.bytes)));
                    win.bytes = MAX_BYTES;
                    win.cutLine = line;
                    state = "after";
                } else {
                    // Stop before this line rather than show part of it.
                    win.parts.length = lineStartPart;
                    win.bytes = lineStartBytes;
                    state = "after";
                }
            }
            if (!ended) break;
            if (line === win.cutLine) win.cutLineBytes = lineBytes;
            line++;
            lineBytes = 0;
            pos = stop;
            if (state === "before" && line === first) state = "collect";
            else if (state === "collect" && line > last) state = "after";
            lineStartPart = win.parts.length;
            lineStartBytes = win.bytes;
        }
    }
    if (position === 0) return win;
    const unterminated = lastByte !== 10;
    win.totalLines = unterminated ? line : line - 1;
    if (unterminated && state === "collect") win.through = line;
    if (unterminated && line === win.cutLine) win.cutLineBytes = lineBytes;
    if (win.cutLine > 0) win.through = win.cutLine;
    return win;
}

/** Drops an incomplete UTF-8 sequence at the end of a cut. */
function utf8Boundary(buf: Buffer): Buffer {
    let i = buf.length - 1;
    while (i >= 0 && i > buf.length - 4 && (buf[i]! & 0xc0) === 0x80) i--;
    if (i < 0) return buf;
    const lead = buf[i]!;
    const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    return buf.length - i < need ? buf.subarray(0, i) : buf;
}

function decodeEdge(bytes: Buffer): string {
    return isUtf8(bytes) ? bytes.toString("utf8") : bytes.toString("latin1");
}

/** A line's first `EDGE_LINE_CHARS` characters; "…" when it is longer or `more` follows. */
function clipEnd(line: string, more: boolean): string {
    if (line.length <= EDGE_LINE_CHARS && !more) return line;
    let end = Math.min(line.length, EDGE_LINE_CHARS);
    const code = line.charCodeAt(end - 1);
    if (end < line.length && code >= 0xd800 && code <= 0xdbff) end--;
    return `${line.slice(0, end)}…`;
}

/** The end of a line whose start was not read. */
function clipStart(line: string): string {
    let start = Math.max(0, line.length - EDGE_LINE_CHARS);
    const code = line.charCodeAt(start);
    if (start > 0 && code >= 0xdc00 && code <= 0xdfff) start++;
    return `…${line.slice(start)}`;
}

/** Up to `EDGE_LINES` first lines, from at most `EDGE_BYTES` at the start. */
async function readHead(handle: ByteSource, size: number): Promise<string[]> {
    const buf = Buffer.alloc(Math.min(size, EDGE_BYTES));
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    const whole = bytesRead >= size;
    let text = decodeEdge(whole ? buf : utf8Boundary(buf.subarray(0, bytesRead)));
    if (text.startsWith("\uFEFF")) text = text.slice(1);
    const lines = text.split("\n");
    if (whole && lines[lines.length - 1] === "") lines.pop();
    // Not the whole file: the last piece is the head of a longer line.
    return lines
        .slice(0, EDGE_LINES)
        .map((line, i) => clipEnd(line, !whole && i === lines.length - 1));
}

/**
 * Up to `EDGE_LINES` last lines, read backwards from the end in chunks until
 * enough line breaks are seen, the start is reached, or `EDGE_BYTES` were read.
 */
async function readTail(handle: ByteSource, size: number): Promise<string[]> {
    const chunks: Buffer[] = [];
    let position = size;
    let breaks = 0;
    let endsWithBreak = false;
    while (position > 0 && size - position < EDGE_BYTES && breaks < EDGE_LINES) {
        const length = Math.min(EDGE_CHUNK_BYTES, position, EDGE_BYTES - (size - position));
        position -= length;
        const chunk = Buffer.alloc(length);
        const { bytesRead } = await handle.read(chunk, 0, length, position);
        if (bytesRead < length) break;
        if (chunks.length === 0) endsWithBreak = chunk[length - 1] === 10;
        chunks.unshift(chunk);
        for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) breaks++;
        // The file's final "\n" ends the last line rather than starting another.
        if (chunks.length === 1 && endsWithBreak) breaks--;
    }
    let bytes = Buffer.concat(chunks);
    if (endsWithBreak) bytes = bytes.subarray(0, bytes.length - 1);
    const fromStart = position === 0;
    if (!fromStart) {
        // Skip a UTF-8 sequence cut by the chunk boundary.
        let skip = 0;
        while (skip < 3 && skip < bytes.length && (bytes[skip]! & 0xc0) === 0x80) skip++;
        bytes = bytes.subarray(skip);
    }
    let text = decodeEdge(bytes);
    if (fromStart && text.startsWith("\uFEFF")) text = text.slice(1);
    const lines = text.split("\n");
    // The first piece is a whole line only if a line break precedes it.
    const before = Buffer.alloc(1);
    if (!fromStart) await handle.read(before, 0, 1, position - 1);
    const partial = !fromStart && before[0] !== 10;
    const kept = lines.slice(-EDGE_LINES);
    return kept.map((line, i) =>
        partial && i === 0 && kept.length === lines.length ? clipStart(line) : clipEnd(line, false)
    );
}

/** Adds `head` and `tail`: lines 1-10 and the last 10, less those already shown. */
async function addEdges(handle: ByteSource, size: number, result: ReadFileResult): Promise<void> {
    const total = result.totalLines;
    if (total === 0) return;
    const shown = result.endLine >= result.startLine;
    let headLines = 0;
    const headWanted = Math.min(EDGE_LINES, shown ? result.startLine - 1 : total);
    if (headWanted > 0) {
        const lines = (await readHead(handle, size)).slice(0, headWanted);
        headLines = lines.length;
        if (headLines > 0) result.head = { startLine: 1, content: lines.join("\n") };
    }
    const tailStart = Math.max(
        total - EDGE_LINES + 1,
        shown ? result.endLine + 1 : 1,
        headLines + 1
    );
    if (tailStart > total) return;
    const lines = (await readTail(handle, size)).slice(-(total - tailStart + 1));
    if (lines.length > 0) {
        result.tail = { startLine: total - lines.length + 1, content: lines.join("\n") };
    }
}

/** Lines of the range the model asked for, or null when it asked for none. */
function requestedRange(args: unknown): number | null {
    if (!isRecord(args) || !isRecord(args.range)) return null;
    const { start, end } = args.range;
    return typeof start === "number" && typeof end === "number" ? end - start + 1 : null;
}

const DESCRIPTION = `Read a text file or image: up to ${MAX_LINES} lines or ${MAX_BYTES / 1024} KB from range.start (default 1), with totalLines. If truncated, continue at range.start = endLine + 1.`;

export interface ReadFileOptions {
    /**
     * The editor's files (ACP): a text file within the size cap is read from
     * its buffer (unsaved changes included); images, binary and larger files
     * from the disk.
     */
    files?: ClientFiles;
}

export function createReadFileTool(
    options: ReadFileOptions = {}
): ToolDefinition<ReadFileInput, ReadFileResult> {
    return {
        name: "read_file",
        description: DESCRIPTION,
        input,
        approvalPolicy: "none",
        readOnly: true,
        display: { title: fileTitle("Reading") },
        digest(data, args, keep) {
            if (!isRecord(data) || typeof data.content !== "string") return data;
            const range = requestedRange(args);
            if (range !== null && range <= DIGEST_BOUNDED_RANGE_LINES) return data;
            const cut = headTail(data.content, DIGEST_READ_HEAD_LINES, DIGEST_READ_TAIL_LINES);
            if (!cut) return data;
            const id = keep(data);
            return {
                ...data,
                content: cut.text,
                ...digestNote(
                    id,
                    `Showing the first ${DIGEST_READ_HEAD_LINES} and last ${DIGEST_READ_TAIL_LINES} lines; ${cut.omitted} lines in between omitted. Prefer read_file with a range of at most ${DIGEST_BOUNDED_RANGE_LINES} lines.`
                ),
            };
        },
        hookAliases: ["Read"],
        async execute(args, ctx): Promise<ToolResult<ReadFileResult>> {
            const resolved = await resolveSafePath(ctx.repoRoot, args.path, {
                mustExist: true,
                addedRoots: ctx.addedRoots,
            });
            if (!resolved.ok) return resolved;
            const { realPath, relPath } = resolved.data;
            const refused = refuseDeniedRead(ctx, relPath, resolved.data.absPath, realPath);
            if (refused) return refused;
            const first = args.range?.start ?? 1;
            const requestedEnd = args.range?.end ?? Number.POSITIVE_INFINITY;
            if (requestedEnd < first) {
                return toolError(
                    "invalid_args",
                    `range.end (${requestedEnd}) is before range.start (${first}).`
                );
            }
            const last = Math.min(requestedEnd, first + MAX_LINES - 1);

            let handle: FileHandle;
            try {
                const stat = await fs.stat(realPath);
                if (stat.isDirectory()) {
                    return toolError(
                        "not_a_file",
                        `${relPath} is a directory. Use find_files or list_root to see files.`
                    );
                }
                if (!stat.isFile())
                    return toolError("not_a_file", `${relPath} is not a regular file.`);
                handle = await fs.open(realPath, "r");
            } catch (error) {
                return toolError("io_error", `Cannot open ${relPath}: ${String(error)}`);
            }
            try {
                const size = (await handle.stat()).size;
                const sniff = Buffer.alloc(Math.min(BINARY_SNIFF_BYTES, size));
                await handle.read(sniff, 0, sniff.length, 0);
                if (looksBinary(sniff)) {
                    const image = await readImageFile(realPath, relPath, size, sniff);
                    if (image) return image;
                    return toolError(
                        "binary_file",
                        `${relPath} is a binary file (${formatBytes(size)}); read_file only reads text.`
                    );
                }
                let source: ByteSource = handle;
                let sourceSize = size;
                // The binary test above was the disk copy's: nothing binary reaches the editor.
                if (options.files && size <= CLIENT_FILE_MAX_BYTES) {
                    const text = await readEditorText(options.files, realPath, ctx.signal);
                    source = bufferSource(text);
                    sourceSize = text.length;
                }
                const win = await scan(source, first, last, ctx.signal);
                if (!win) return toolError("cancelled", "Read cancelled.");
                const result = present(relPath, win, first, requestedEnd);
                if (args.includeHeadTail) await addEdges(source, sourceSize, result);
                return toolOk(result);
            } catch (error) {
                if (error instanceof ClientFileError)
                    return toolError("io_error", `Cannot read ${relPath}: ${error.message}`);
                return toolError("io_error", `Cannot read ${relPath}: ${String(error)}`);
            } finally {
                await handle.close().catch(() => undefined);
            }
        },
    };
}

function present(
    relPath: string,
    win: Window,
    first: number,
    requestedEnd: number
): ReadFileResult {
    const total = win.totalLines;
    if (total === 0) {
        return {
            path: relPath,
            content: "",
            startLine: 1,
            endLine: 0,
            totalLines: 0,
            truncated: false,
            note: "The file is empty.",
        };
    }
    if (first > total) {
        return {
            path: relPath,
            content: "",
            startLine: first,
            endLine: first - 1,
            totalLines: total,
            truncated: false,
            note: `The file has ${total} lines; range.start ${first} is past the end.`,
        };
    }
    let bytes: Buffer = Buffer.concat(win.parts);
    if (win.cutLine > 0) bytes = utf8Boundary(bytes);
    else if (bytes[bytes.length - 1] === 10) bytes = bytes.subarray(0, bytes.length - 1);
    const notes: string[] = [];
    let content: string;
    if (isUtf8(bytes)) {
        content = bytes.toString("utf8");
        if (first === 1 && content.startsWith("\uFEFF")) content = content.slice(1);
    } else {
        content = bytes.toString("latin1");
        notes.push("The file is not valid UTF-8; it was decoded as Latin-1 (ISO-8859-1).");
    }
    const endLine = win.through;
    const wanted = Math.min(requestedEnd, total);
    const truncated = endLine < wanted || win.cutLine > 0;
    if (win.cutLine > 0) {
        notes.unshift(
            `Line ${win.cutLine} is ${formatBytes(win.cutLineBytes)} long; only its first ${MAX_BYTES / 1024} KB are shown.` +
                (win.cutLine < total ? ` Continue with range {start: ${win.cutLine + 1}}.` : "")
        );
    } else if (truncated) {
        const why =
            endLine - first + 1 >= MAX_LINES ? `${MAX_LINES}-line` : `${MAX_BYTES / 1024} KB`;
        notes.unshift(
            `Showing lines ${first}-${endLine} of ${total} (${why} limit). Continue with range {start: ${endLine + 1}}.`
        );
    }
    const result: ReadFileResult = {
        path: relPath,
        content,
        startLine: first,
        endLine,
        totalLines: total,
        truncated,
    };
    if (notes.length > 0) result.note = notes.join(" ");
    return result;
}
