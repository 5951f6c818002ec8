/**
 * Runs `rg --json` and stream-parses its output at the byte level: only `match`
 * and `end` lines are looked at, a match's text is decoded only if it can still
 * make the first `limit` results, and a JSON line longer than `HEAD_BYTES` (a
 * minified file) is kept as a head while the rest streams past. Memory stays
 * bounded by `limit` whatever ripgrep prints.
 */
import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";
import { ALWAYS_IGNORED_NAMES, comparePaths } from "../util/ignore-walk";

/** Bytes of one JSON line kept when it is longer (enough for `LINE_SCAN_CHARS`). */
const HEAD_BYTES = 256 * 1024;
/** Characters of a matched line either engine keeps for display. */
export const LINE_SCAN_CHARS = 16_000;

export interface RawMatch {
    path: string;
    line: number;
    /** The line without its terminator, cut to `LINE_SCAN_CHARS`. */
    text: string;
}

export interface RipgrepRequest {
    rgPath: string;
    repoRoot: string;
    /** Repo-relative directory to search ("" for the root). */
    dir: string;
    /** Rust regex (case folding already inside as `(?i)`). */
    pattern: string;
    /** Decode every file as UTF-8 (invalid bytes become U+FFFD) before matching. */
    transcode: boolean;
    limit: number;
    maxFileSize: number;
    signal: AbortSignal;
    /** Drops files ripgrep could not judge (ignore files above `dir`). */
    keep?: (relPath: string) => Promise<boolean>;
}

export type RipgrepOutcome =
    | { kind: "ok"; matches: RawMatch[]; totalMatches: number }
    | { kind: "cancelled" }
    | { kind: "failed"; message: string };

/**
 * ripgrep flags that make it walk exactly like `walkFiles` (see util/ignore-walk)
 * and read files as the JS engine does: BOM sniffing (UTF-16 decoded, UTF-8 BOM
 * dropped) by default, full UTF-8 decoding when `transcode` is set.
 */
export function ripgrepArgs(
    pattern: string,
    dir: string,
    maxFileSize: number,
    transcode: boolean
): string[] {
    const args = [
        "--json",
        "--no-config",
        "--line-number",
        "--hidden",
        "--no-follow",
        "--no-require-git",
        "--no-ignore-global",
        "--no-ignore-parent",
        "--no-mmap",
        "--no-messages",
        "--encoding",
        transcode ? "utf-8" : "auto",
        "--max-filesize",
        String(maxFileSize),
    ];
    for (const name of ALWAYS_IGNORED_NAMES) args.push("--glob", `!${name}`);
    args.push("--regexp", pattern, "--", dir === "" ? "." : dir);
    return args;
}

const PATH_KEY = Buffer.from(`"path":{`);
const LINE_NUMBER_KEY = Buffer.from(`"line_number":`);
const BINARY_KEY = Buffer.from(`"binary_offset":`);
const TEXT_KEY = Buffer.from(`"text":"`);
const BYTES_KEY = Buffer.from(`"bytes":"`);
const LINES_KEY = Buffer.from(`"lines":{`);
/** Offset of the first letter of the event kind in `{"type":"match",...`. */
const TYPE_AT = `{"type":"`.length;
/** Offset of a text path's first byte in a match line. */
const MATCH_TEXT_PATH_AT = `{"type":"match","data":{"path":{"text":"`.length;
const SUMMARY_TYPE = Buffer.from(`"type":"summary"`);
const QUOTE = 34;
const BACKSLASH = 92;

const utf8 = new TextDecoder("utf-8", { ignoreBOM: true });

function startsWith(buf: Buffer, start: number, prefix: Buffer): boolean {
    return (
        start + prefix.length <= buf.length && sameBytes(buf, start, start + prefix.length, prefix)
    );
}

/** `buf[start, end)` equals `other` (a short byte loop beats a native call here). */
function sameBytes(buf: Buffer, start: number, end: number, other: Buffer): boolean {
    if (end - start !== other.length) return false;
    for (let i = 0; i < other.length; i++) if (buf[start + i] !== other[i]) return false;
    return true;
}

/** Index of the quote closing the JSON string whose content starts at `from`, or -1. */
function stringEnd(buf: Buffer, from: number, end: number): number {
    let i = from;
    for (;;) {
        const q = buf.indexOf(QUOTE, i);
        if (q < 0 || q >= end) return -1;
        let slashes = 0;
        for (let k = q - 1; k >= from && buf[k] === BACKSLASH; k--) slashes++;
        if (slashes % 2 === 0) return q;
        i = q + 1;
    }
}

/** Where the JSON string content ends if cut at `end` without splitting an escape. */
function safeCut(buf: Buffer, from: number, end: number): number {
    let i = from;
    let safe = from;
    while (i < end) {
        if (buf[i] === BACKSLASH) {
            const len = buf[i + 1] === 117 /* u */ ? 6 : 2;
            if (i + len > end) break;
            i += len;
        } else i++;
        safe = i;
    }
    return safe;
}

interface Field {
    /** Content start and end (exclusive; `end` is the closing quote or the cut). */
    start: number;
    end: number;
    bytes: boolean;
    complete: boolean;
}

/** Reads `{"text":"..."}` or `{"bytes":"..."}` starting at `at` (just after `{`). */
function readField(buf: Buffer, at: number, end: number): Field | null {
    let bytes: boolean;
    let start: number;
    if (startsWith(buf, at, TEXT_KEY)) {
        bytes = false;
        start = at + TEXT_KEY.length;
    } else if (startsWith(buf, at, BYTES_KEY)) {
        bytes = true;
        start = at + BYTES_KEY.length;
    } else return null;
    const close = stringEnd(buf, start, end);
    if (close >= 0) return { start, end: close, bytes, complete: true };
    return { start, end: safeCut(buf, start, end), bytes, complete: false };
}

function decodeField(buf: Buffer, field: Field): string {
    if (field.bytes) {
        const b64 = buf.toString("latin1", field.start, field.end);
        return utf8.decode(Buffer.from(b64.slice(0, b64.length - (b64.length % 4)), "base64"));
    }
    const raw = buf.subarray(field.start, field.end);
    if (raw.indexOf(BACKSLASH) < 0) return utf8.decode(raw);
    return JSON.parse(`"${utf8.decode(raw)}"`) as string;
}

/** Drops a trailing "\n" and cuts to `LINE_SCAN_CHARS` (never inside a surrogate pair). */
export function cutLine(text: string): string {
    let end = text.length;
    if (text.charCodeAt(end - 1) === 10) end--;
    if (end > LINE_SCAN_CHARS) {
        end = LINE_SCAN_CHARS;
        const code = text.charCodeAt(end - 1);
        if (code >= 0xd800 && code <= 0xdbff) end--;
    }
    return end === text.length ? text : text.slice(0, end);
}

interface FileState {
    path: string;
    rawPath: Buffer;
    count: number;
    pending: RawMatch[];
    /** False once the top cannot take more of this file's matches. */
    wanted: boolean;
}

/** Keeps the `limit` smallest matches by (path, line) and the total count. */
class Collector {
    top: RawMatch[] = [];
    total = 0;
    constructor(private readonly limit: number) {}

    /** Whether a match in `filePath` could still enter the top. */
    wants(filePath: string): boolean {
        if (this.top.length < this.limit) return true;
        return comparePaths(filePath, this.top[this.top.length - 1]!.path) < 0;
    }

    add(file: FileState): void {
        this.total += file.count;
        if (file.pending.length === 0 || !this.wants(file.path)) return;
        let lo = 0;
        let hi = this.top.length;
        while (lo < hi) {
            const mid = (lo + hi) >> 1;
            if (comparePaths(this.top[mid]!.path, file.path) < 0) lo = mid + 1;
            else hi = mid;
        }
        this.top.splice(lo, 0, ...file.pending);
        if (this.top.length > this.limit) this.top.length = this.limit;
    }
}

/** Parses rg's JSON lines; finished files are queued for the caller. */
class RgJsonParser {
    private parts: Buffer[] = [];
    private partsLength = 0;
    /** Long-line mode: the head of the line, and the search for its line number. */
    private head: Buffer | null = null;
    private carry = Buffer.alloc(0);
    private lineNumber: number | null = null;
    private digits = "";
    private current: FileState | null = null;
    private files = new Map<string, FileState>();
    readonly finished: FileState[] = [];
    sawSummary = false;

    constructor(
        private readonly collector: Collector,
        private readonly limit: number
    ) {}

    push(chunk: Buffer): void {
        let pos = 0;
        while (pos < chunk.length) {
            const nl = chunk.indexOf(10, pos);
            const stop = nl < 0 ? chunk.length : nl;
            if (this.head) {
                this.scanLineNumber(chunk.subarray(pos, stop));
            } else if (nl < 0 || this.partsLength > 0) {
                this.parts.push(chunk.subarray(pos, stop));
                this.partsLength += stop - pos;
                if (this.partsLength > HEAD_BYTES) this.startLong();
            } else {
                this.handleLine(chunk, pos, stop, null);
            }
            if (nl < 0) return;
            if (this.head) this.finishLong();
            else if (this.partsLength > 0) {
                const line = Buffer.concat(this.parts);
                this.parts = [];
                this.partsLength = 0;
                this.handleLine(line, 0, line.length, null);
            }
            pos = nl + 1;
        }
    }

    private startLong(): void {
        const line = Buffer.concat(this.parts);
        this.parts = [];
        this.partsLength = 0;
        this.head = Buffer.from(line.subarray(0, HEAD_BYTES));
        this.carry = Buffer.alloc(0);
        this.lineNumber = null;
        this.digits = "";
        this.scanLineNumber(line);
    }

    /** Finds `"line_number":N` in a long line (it cannot occur inside a JSON string). */
    private scanLineNumber(piece: Buffer): void {
        if (this.lineNumber !== null || piece.length === 0) return;
        let i = 0;
        if (this.digits === "") {
            const window = this.carry.length ? Buffer.concat([this.carry, piece]) : piece;
            const at = window.indexOf(LINE_NUMBER_KEY);
            if (at < 0) {
                this.carry = Buffer.from(
                    window.subarray(Math.max(0, window.length - LINE_NUMBER_KEY.length))
                );
                return;
            }
            i = at + LINE_NUMBER_KEY.length - (window.length - piece.length);
            this.digits = "#";
        }
        while (i < piece.length && piece[i]! >= 48 && piece[i]! <= 57) {
            this.digits += String.fromCharCode(piece[i++]!);
        }
        if (i < piece.length) this.lineNumber = Number(this.digits.slice(1));
    }

    private finishLong(): void {
        const head = this.head!;
        this.head = null;
        if (this.lineNumber === null && this.digits.length > 1)
            this.lineNumber = Number(this.digits.slice(1));
        this.handleLine(head, 0, head.length, this.lineNumber ?? 0);
    }

    private handleLine(buf: Buffer, start: number, end: number, knownLine: number | null): void {
        // Every event line but the summary starts with `{"type":"<kind>"`.
        const kind = end - start > TYPE_AT ? buf[start + TYPE_AT] : 0;
        if (buf[start + 2] === 116 /* t */) {
            if (kind === 109 /* m(atch) */) this.handleMatch(buf, start, end, knownLine);
            else if (kind === 101 /* e(nd) */) this.handleEnd(buf, start, end);
            else if (kind === 115 /* s(ummary) */) this.sawSummary = true;
        } else if (buf.subarray(start, end).indexOf(SUMMARY_TYPE) >= 0) {
            this.sawSummary = true;
        }
    }

    private fileFor(buf: Buffer, field: Field): FileState {
        const current = this.current;
        if (current && sameBytes(buf, field.start, field.end, current.rawPath)) return current;
        let relPath = decodeField(buf, field);
        if (relPath.startsWith("./")) relPath = relPath.slice(2);
        let file = this.files.get(relPath);
        if (!file) {
            const rawPath = Buffer.from(buf.subarray(field.start, field.end));
            file = { path: relPath, rawPath, count: 0, pending: [], wanted: true };
            this.files.set(relPath, file);
        }
        this.current = file;
        return file;
    }

    private handleMatch(buf: Buffer, start: number, end: number, knownLine: number | null): void {
        // Fast path: another line of the current file, which the top no longer wants.
        const current = this.current;
        if (current && !current.wanted) {
            const at = start + MATCH_TEXT_PATH_AT;
            const stop = at + current.rawPath.length;
            if (stop < end && buf[stop] === QUOTE && sameBytes(buf, at, stop, current.rawPath)) {
                current.count++;
                return;
            }
        }
        const pathAt = buf.indexOf(PATH_KEY, start);
        if (pathAt < 0 || pathAt >= end) return;
        const pathField = readField(buf, pathAt + PATH_KEY.length, end);
        if (!pathField?.complete) return;
        const file = this.fileFor(buf, pathField);
        file.count++;
        if (!file.wanted) return;
        if (file.pending.length >= this.limit || !this.collector.wants(file.path)) {
            file.wanted = false;
            return;
        }
        // `},"lines":{` follows the path object.
        const linesAt = buf.indexOf(LINES_KEY, pathField.end);
        if (linesAt < 0 || linesAt >= end) return;
        const textField = readField(buf, linesAt + LINES_KEY.length, end);
        if (!textField) return;
        let line = knownLine;
        if (line === null) {
            const at = buf.indexOf(LINE_NUMBER_KEY, textField.end);
            if (at < 0 || at >= end) return;
            let n = 0;
            for (let i = at + LINE_NUMBER_KEY.length; i < end; i++) {
                const c = buf[i]!;
                if (c < 48 || c > 57) break;
                n = n * 10 + (c - 48);
            }
            line = n;
        }
        file.pending.push({ path: file.path, line, text: cutLine(decodeField(buf, textField)) });
    }

    private handleEnd(buf: Buffer, start: number, end: number): void {
        const pathAt = buf.indexOf(PATH_KEY, start);
        if (pathAt < 0 || pathAt >= end) return;
        const pathField = readField(buf, pathAt + PATH_KEY.length, end);
        if (!pathField?.complete) return;
        const file = this.fileFor(buf, pathField);
        this.files.delete(file.path);
        if (this.current === file) this.current = null;
        const at = buf.indexOf(BINARY_KEY, pathField.end);
        const binary = at >= 0 && at < end && buf[at + BINARY_KEY.length] !== 110; /* n(ull) */
        // ripgrep stops at the first NUL byte; like the JS engine, skip such files whole.
        if (!binary) this.finished.push(file);
    }
}

/** Runs ripgrep; a query it cannot compile or a crash comes back as `failed`. */
export async function runRipgrep(request: RipgrepRequest): Promise<RipgrepOutcome> {
    const { signal, limit } = request;
    if (signal.aborted) return { kind: "cancelled" };
    const child = spawn(
        request.rgPath,
        ripgrepArgs(request.pattern, request.dir, request.maxFileSize, request.transcode),
        {
            cwd: request.repoRoot,
            stdio: ["ignore", "pipe", "pipe"],
        }
    );
    const kill = () => child.kill("SIGKILL");
    signal.addEventListener("abort", kill, { once: true });
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (text: string) => {
        if (stderr.length < 4096) stderr += text;
    });
    const exited = new Promise<{ code: number | null; error?: Error }>((resolve) => {
        child.once("error", (error) => resolve({ code: null, error }));
        child.once("close", (code) => resolve({ code }));
    });
    const collector = new Collector(limit);
    const parser = new RgJsonParser(collector, limit);
    try {
        for await (const chunk of child.stdout) {
            parser.push(chunk as Buffer);
            if (parser.finished.length > 0) await drain(parser.finished, collector, request.keep);
        }
        parser.push(Buffer.from("\n"));
        await drain(parser.finished, collector, request.keep);
    } catch (error) {
        if (!signal.aborted) kill();
        if (!signal.aborted) return { kind: "failed", message: String(error) };
    } finally {
        signal.removeEventListener("abort", kill);
    }
    const { code, error } = await exited;
    if (signal.aborted) return { kind: "cancelled" };
    if (error) return { kind: "failed", message: error.message };
    if (!parser.sawSummary) {
        return { kind: "failed", message: stderr.trim() || `ripgrep exited with code ${code}` };
    }
    return { kind: "ok", matches: collector.top, totalMatches: collector.total };
}

async function drain(
    finished: FileState[],
    collector: Collector,
    keep: RipgrepRequest["keep"]
): Promise<void> {
    const files = finished.splice(0, finished.length);
    for (const file of files) {
        if (keep && !(await keep(file.path))) continue;
        collector.add(file);
    }
}

/** The first executable `rg` on PATH, or null. */
export async function findRipgrep(envPath = process.env.PATH ?? ""): Promise<string | null> {
    const names = process.platform === "win32" ? ["rg.exe", "rg.cmd"] : ["rg"];
    for (const dir of envPath.split(path.delimiter)) {
        if (dir === "") continue;
        for (const name of names) {
            const candidate = path.join(dir, name);
            try {
                await fs.access(candidate, fs.constants.X_OK);
                if ((await fs.stat(candidate)).isFile()) return candidate;
            } catch {
                // not here
            }
        }
    }
    return null;
}
