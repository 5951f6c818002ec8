/**
 * search_text: lines matching a literal or regex, via ripgrep when it is on PATH
 * and a JavaScript walk otherwise. Both engines see the same files (see
 * util/ignore-walk), skip the same ones (binary: any NUL byte; over
 * `MAX_SEARCH_FILE_BYTES`), match with the same semantics (see search-query) and
 * return the same results: sorted by path then line, text trimmed alike.
 * `file` searches one file (JavaScript only), optionally within `lineRange`;
 * `contextLines` is added afterwards from the kept matches' files (match-lines.ts).
 */
import { closeSync, fstatSync, promises as fs, openSync, readSync } from "node:fs";
import { NON_BLOCKING_READ } from "../util/read-regular-file";
import path from "node:path";
import { type InputOf, toolInput } from "./tool-input";
import { collectFiles, createIgnoreMatcher, walkFiles } from "../util/ignore-walk";
import { resolveSafePath } from "./path-guard";
import { isReadableRel, refuseDeniedRead } from "./read-denial";
import { MAX_TEXT_CHARS, attachContext } from "./match-lines";
import { type SearchQuery, compileQuery } from "./search-query";
import { type RawMatch, cutLine, findRipgrep, runRipgrep } from "./search-ripgrep";
import { countLines } from "./editing/text-doc";
import { splitLines } from "./text-file";
import { type ToolContext, type ToolDefinition, type ToolResult, toolError, toolOk } from "./types";
import { asRecord, oneLine, plural, str } from "./display-text";
import { digestNote, isRecord } from "./digest-text";
import {
    DIGEST_SEARCH_MATCHES,
    SEARCH_DEFAULT_LIMIT,
    SEARCH_MAX_CONTEXT_LINES,
    SEARCH_MAX_LIMIT,
} from "./limits";

/** Files larger than this are not searched (by either engine). */
export const MAX_SEARCH_FILE_BYTES = 10 * 1024 * 1024;
const DEFAULT_LIMIT = SEARCH_DEFAULT_LIMIT;
const MAX_LIMIT = SEARCH_MAX_LIMIT;
const MAX_CONTEXT = SEARCH_MAX_CONTEXT_LINES;
/** Longest stretch of synchronous reading before yielding to the event loop. */
const SLICE_MS = 10;

const input = toolInput((z) =>
    z.object({
        query: z.string().min(1),
        regex: z.boolean().default(false),
        caseSensitive: z.boolean().default(false),
        path: z.string().optional().describe("Directory to search."),
        file: z.string().optional().describe("One file to search."),
        lineRange: z
            .object({ start: z.number().int().min(1), end: z.number().int().min(1) })
            .optional()
            .describe("Lines to search; needs file."),
        contextLines: z
            .number()
            .int()
            .min(1)
            .max(MAX_CONTEXT)
            .optional()
            .describe("Context lines per match."),
        limit: z
            .number()
            .int()
            .min(1)
            .max(MAX_LIMIT)
            .default(DEFAULT_LIMIT)
            .describe(`Default ${DEFAULT_LIMIT}.`),
    })
);

export type SearchTextInput = InputOf<typeof input>;

export interface SearchTextMatch {
    path: string;
    /** 1-based line number. */
    line: number;
    /** The line, trimmed; a long line is cut to a window around the first match ("…"). */
    text: string;
    /** With `contextLines` (see `MatchContext`): neighbouring lines, trimmed and cut alike. */
    before?: string[];
    after?: string[];
}

export interface SearchTextResult {
    matches: SearchTextMatch[];
    /** All matching lines, including those not returned. */
    totalMatches: number;
    truncated: boolean;
    engine: "ripgrep" | "js";
    note?: string;
}

export interface SearchTextOptions {
    /**
     * The ripgrep binary. Omitted: the first `rg` on PATH, if any (looked up once
     * per tool). `null`: never use ripgrep (the JavaScript engine always runs).
     */
    ripgrepPath?: string | null;
}

const utf8 = new TextDecoder("utf-8");
const utf16le = new TextDecoder("utf-16le");
const utf16be = new TextDecoder("utf-16be");

/**
 * Decodes like `rg --encoding utf-8`: a UTF-16 byte-order mark selects UTF-16, a
 * UTF-8 one is dropped, and invalid sequences become U+FFFD.
 */
function decode(data: Buffer): string {
    if (data[0] === 0xff && data[1] === 0xfe) return utf16le.decode(data);
    if (data[0] === 0xfe && data[1] === 0xff) return utf16be.decode(data);
    return utf8.decode(data);
}

interface Hits {
    count: number;
    matches: RawMatch[];
}

/** 1-based, inclusive lines. */
interface LineSpan {
    start: number;
    end: number;
}

function scanText(
    relPath: string,
    text: string,
    query: SearchQuery,
    limit: number,
    span?: LineSpan
): Hits | null {
    const literal = query.literal;
    if (
        literal !== null ? !text.includes(literal) : query.prefilter && !query.prefilter.test(text)
    ) {
        return null;
    }
    const hits: Hits = { count: 0, matches: [] };
    let lineNo = 0;
    let start = 0;
    while (start < text.length) {
        const nl = text.indexOf("\n", start);
        const end = nl < 0 ? text.length : nl;
        lineNo++;
        if (span && lineNo > span.end) break;
        const skip = span !== undefined && lineNo < span.start;
        const line = skip ? "" : text.slice(start, end);
        if (!skip && (literal !== null ? line.includes(literal) : query.regex.test(line))) {
            hits.count++;
            if (hits.matches.length < limit) {
                hits.matches.push({ path: relPath, line: lineNo, text: cutLine(line) });
            }
        }
        if (nl < 0) break;
        start = nl + 1;
    }
    return hits;
}

type FileRead =
    { kind: "text"; text: string } | { kind: "binary" | "large" | "unreadable"; size: number };

/**
 * Reads a file for searching. Synchronous on purpose: per small file, sync
 * open/fstat/read/close is ~15× faster than the promise API (thread-pool round
 * trips); `searchJs` yields to the event loop between time slices.
 */
function readSearchable(absPath: string): FileRead {
    let fd: number;
    try {
        // O_NONBLOCK: opening a FIFO with no writer would block the event loop for good.
        fd = openSync(absPath, NON_BLOCKING_READ);
    } catch {
        return { kind: "unreadable", size: 0 };
    }
    try {
        const stat = fstatSync(fd);
        if (!stat.isFile()) return { kind: "unreadable", size: 0 };
        if (stat.size > MAX_SEARCH_FILE_BYTES) return { kind: "large", size: stat.size };
        const buf = Buffer.allocUnsafe(stat.size);
        let length = 0;
        while (length < buf.length) {
            const n = readSync(fd, buf, length, buf.length - length, length);
            if (n === 0) break;
            length += n;
        }
        const text = decode(buf.subarray(0, length));
        // Binary, as for ripgrep: a NUL anywhere in the (decoded) text.
        if (text.includes("\0")) return { kind: "binary", size: length };
        return { kind: "text", text };
    } catch {
        return { kind: "unreadable", size: 0 };
    } finally {
        closeSync(fd);
    }
}

interface Found {
    matches: RawMatch[];
    totalMatches: number;
}

/** The JavaScript engine: walk in sorted order, read each file whole (synchronously, in time slices). */
async function searchJs(
    root: string,
    dir: string,
    query: SearchQuery,
    limit: number,
    signal: AbortSignal,
    readable: (rel: string) => boolean = () => true
): Promise<Found | "cancelled"> {
    const matches: RawMatch[] = [];
    let totalMatches = 0;
    const consume = (hits: Hits | null) => {
        if (!hits) return;
        totalMatches += hits.count;
        for (const match of hits.matches) {
            if (matches.length >= limit) break;
            matches.push(match);
        }
    };
    let sliceStart = performance.now();
    for await (const rel of walkFiles(root, { dir, signal })) {
        if (!readable(rel)) continue;
        const read = readSearchable(path.join(root, rel));
        if (read.kind === "text") consume(scanText(rel, read.text, query, limit));
        if (performance.now() - sliceStart > SLICE_MS) {
            await new Promise((resolve) => setImmediate(resolve));
            sliceStart = performance.now();
            if (signal.aborted) break;
        }
    }
    return signal.aborted ? "cancelled" : { matches, totalMatches };
}

/** Trimmed display text; a long line becomes a window around the first match. */
export function formatMatchText(raw: string, query: SearchQuery): string {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    const found =
        query.literal !== null
            ? line.indexOf(query.literal)
            : (query.regex.exec(line)?.index ?? -1);
    const lead = line.length - line.trimStart().length;
    const text = line.trim();
    if (text.length <= MAX_TEXT_CHARS) return text;
    const at = Math.max(0, found - lead);
    let start = at + 40 <= MAX_TEXT_CHARS ? 0 : at - 100;
    if (isLowSurrogate(text.charCodeAt(start))) start++;
    let end = Math.min(text.length, start + MAX_TEXT_CHARS);
    if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end--;
    return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""}`;
}

function isLowSurrogate(code: number): boolean {
    return code >= 0xdc00 && code <= 0xdfff;
}

/** Below this many files the built-in search beats starting ripgrep. */
const SMALL_TREE_FILES = 500;

const DESCRIPTION = `Search file contents line by line: literal, or a JS regex with regex; case-insensitive unless caseSensitive. Skips .gitignore'd and binary files. Truncated: narrow path, file, lineRange or query.`;

export function createSearchTextTool(
    options: SearchTextOptions = {}
): ToolDefinition<SearchTextInput, SearchTextResult> {
    let ripgrep: Promise<string | null> | undefined;
    const smallTrees = new Map<string, Promise<boolean>>();
    /**
     * The engine for a project: ripgrep when it is on PATH, except in small
     * projects, where the built-in search answers before rg has even started
     * (both give identical results). An explicit `ripgrepPath` always wins.
     */
    const ripgrepPath = async (repoRoot: string): Promise<string | null> => {
        if (options.ripgrepPath !== undefined) return options.ripgrepPath;
        ripgrep ??= findRipgrep();
        const found = await ripgrep;
        if (!found) return null;
        let small = smallTrees.get(repoRoot);
        if (!small) {
            small = collectFiles(repoRoot, { maxFiles: SMALL_TREE_FILES + 1 }).then(
                (files) => files.length <= SMALL_TREE_FILES,
                () => false
            );
            smallTrees.set(repoRoot, small);
        }
        return (await small) ? null : found;
    };

    return {
        name: "search_text",
        description: DESCRIPTION,
        input,
        approvalPolicy: "none",
        readOnly: true,
        display: {
            title: (args) => {
                const query = str(args.query);
                return query ? `Searching "${oneLine(query, 40)}"` : undefined;
            },
            resultSuffix: (details) => {
                const { totalMatches } = asRecord(details);
                return typeof totalMatches === "number"
                    ? ` - ${plural(totalMatches, "match", "matches")}`
                    : "";
            },
        },
        digest(data, _input, keep) {
            if (!isRecord(data) || !Array.isArray(data.matches)) return data;
            if (data.matches.length <= DIGEST_SEARCH_MATCHES) return data;
            const id = keep(data);
            return {
                ...data,
                matches: data.matches.slice(0, DIGEST_SEARCH_MATCHES),
                shownMatches: DIGEST_SEARCH_MATCHES,
                ...digestNote(
                    id,
                    `Showing ${DIGEST_SEARCH_MATCHES} of ${data.matches.length} returned matches (total ${String(data.totalMatches ?? data.matches.length)}).`
                ),
            };
        },
        hookAliases: ["Grep"],
        async execute(args, ctx): Promise<ToolResult<SearchTextResult>> {
            if (/[\r\n]/.test(args.query)) {
                return toolError(
                    "invalid_args",
                    "query must be a single line: search_text matches within one line. Search for one line of it."
                );
            }
            const span = args.lineRange;
            if (span && span.end < span.start) {
                return toolError(
                    "invalid_args",
                    `lineRange.end (${span.end}) is before lineRange.start (${span.start}).`
                );
            }
            const scope = scopeOf(args);
            if (typeof scope !== "string") return scope;
            const compiled = compileQuery(args.query, args.regex, args.caseSensitive);
            if (!compiled.ok) {
                return toolError(
                    "invalid_regex",
                    `Invalid regex: ${compiled.message}. The syntax is JavaScript's; escape special characters, or set regex: false to search for the text literally.`
                );
            }
            const query = compiled.query;
            const search: Search = {
                query,
                limit: args.limit,
                span,
                context: args.contextLines ?? 0,
            };
            let dir = "";
            if (scope !== "") {
                const resolved = await resolveSafePath(ctx.repoRoot, scope, {
                    mustExist: true,
                    addedRoots: ctx.addedRoots,
                });
                if (!resolved.ok) return resolved;
                const refused = refuseDeniedRead(
                    ctx,
                    resolved.data.relPath,
                    resolved.data.absPath,
                    resolved.data.realPath
                );
                if (refused) return refused;
                const stat = await fs.stat(resolved.data.realPath).catch(() => null);
                if (!stat) return toolError("io_error", `Cannot read ${scope}.`);
                const rel = path
                    .relative(ctx.repoRoot, resolved.data.realPath)
                    .split(path.sep)
                    .join("/");
                if (!stat.isDirectory()) return searchOneFile(ctx, rel, search);
                if (args.file !== undefined) {
                    return toolError(
                        "not_a_file",
                        `${rel} is a directory; pass it as path to search a directory.`
                    );
                }
                dir = rel;
            }
            if (span) {
                return toolError(
                    "invalid_args",
                    "lineRange needs file: name the one file whose lines to search."
                );
            }
            const outcome = await runEngines(
                ctx,
                dir,
                query,
                args.limit,
                await ripgrepPath(ctx.repoRoot)
            );
            if (outcome === "cancelled") return toolError("cancelled", "Search cancelled.");
            const linesOf = (rel: string) => {
                const read = readSearchable(path.join(ctx.repoRoot, rel));
                return read.kind === "text" ? splitLines(read.text) : null;
            };
            return toolOk(
                present(outcome.matches, outcome.totalMatches, search, outcome.engine, linesOf)
            );
        },
    };
}

/** What to find, how many, where in a file, with how much context (0: none). */
interface Search {
    query: SearchQuery;
    limit: number;
    span: LineSpan | undefined;
    context: number;
}

/** The path to search ("" for the project root), or an error when file and path disagree. */
function scopeOf(args: SearchTextInput): string | ToolResult<never> {
    const dir = args.path?.trim() ?? "";
    const scopedDir = dir !== "" && dir !== ".";
    if (args.file === undefined) return scopedDir ? (args.path ?? "") : "";
    if (scopedDir) {
        return toolError("invalid_args", "Pass file or path, not both (file is the one file).");
    }
    if (args.file.trim() === "") return toolError("invalid_args", "file is empty.");
    return args.file;
}

async function runEngines(
    ctx: ToolContext,
    dir: string,
    query: SearchQuery,
    limit: number,
    rgPath: string | null
): Promise<(Found & { engine: SearchTextResult["engine"] }) | "cancelled"> {
    if (rgPath !== null && query.rust !== null) {
        const matcher = dir === "" ? null : createIgnoreMatcher(ctx.repoRoot);
        if (!matcher || !(await matcher.hasWhitelistAbove(dir))) {
            const outcome = await runRipgrep({
                rgPath,
                repoRoot: ctx.repoRoot,
                dir,
                pattern: query.rust,
                transcode: query.transcode,
                limit,
                maxFileSize: MAX_SEARCH_FILE_BYTES,
                signal: ctx.signal,
                keep:
                    matcher || ctx.readDenial
                        ? async (rel) =>
                              isReadableRel(ctx, rel) &&
                              !(await matcher?.isIgnored(rel, false, dir))
                        : undefined,
            });
            if (outcome.kind === "cancelled") return "cancelled";
            if (outcome.kind === "ok") return { ...outcome, engine: "ripgrep" };
            // ripgrep could not run this query (e.g. a Rust regex size limit): fall through.
        }
    }
    const outcome = await searchJs(ctx.repoRoot, dir, query, limit, ctx.signal, (rel) =>
        isReadableRel(ctx, rel)
    );
    return outcome === "cancelled" ? outcome : { ...outcome, engine: "js" };
}

async function searchOneFile(
    ctx: ToolContext,
    rel: string,
    search: Search
): Promise<ToolResult<SearchTextResult>> {
    const read = readSearchable(path.join(ctx.repoRoot, rel));
    if (read.kind === "binary") {
        return toolError(
            "binary_file",
            `${rel} is a binary file (${read.size} bytes); it was not searched.`
        );
    }
    if (read.kind === "large") {
        return toolError(
            "too_large",
            `${rel} is ${(read.size / 1048576).toFixed(1)} MB; search_text reads files up to 10 MB. Use read_file with a range instead.`
        );
    }
    if (read.kind !== "text") return toolError("io_error", `Cannot read ${rel}.`);
    const { text } = read;
    const hits = scanText(rel, text, search.query, search.limit, search.span) ?? {
        count: 0,
        matches: [],
    };
    const result = present(hits.matches, hits.count, search, "js", () => splitLines(text));
    const span = search.span;
    if (span) {
        const total = countLines(text);
        if (span.start > total) {
            result.note = `lineRange.start ${span.start} is past the end: ${rel} has ${total} lines.`;
        }
    }
    return toolOk(result);
}

function present(
    raw: RawMatch[],
    totalMatches: number,
    search: Search,
    engine: SearchTextResult["engine"],
    linesOf: (rel: string) => readonly string[] | null
): SearchTextResult {
    const formatted: SearchTextMatch[] = raw.map((m) => ({
        path: m.path,
        line: m.line,
        text: formatMatchText(m.text, search.query),
    }));
    const matches: SearchTextMatch[] =
        search.context > 0 ? attachContext(formatted, search.context, linesOf) : formatted;
    const truncated = totalMatches > matches.length;
    const result: SearchTextResult = { matches, totalMatches, truncated, engine };
    if (truncated) {
        result.note = `Showing ${matches.length} of ${totalMatches} matching lines. Narrow path, file, lineRange or the query, or raise limit (max ${MAX_LIMIT}).`;
    } else if (totalMatches === 0) {
        result.note = "No matches.";
    }
    return result;
}
