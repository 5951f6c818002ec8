/**
 * A text file loaded whole for the navigation tools (outline, symbols, blocks,
 * read_around): path guard, regular-file check, a size cap, binary detection
 * (a NUL byte in the first 8 KB), BOM removal, and lines split on LF with a
 * trailing CR dropped, so CRLF files read exactly like LF files. With the
 * editor's files (`files`, ACP), the text is the editor's, after the same
 * checks (client-files.ts).
 */
import { promises as fs } from "node:fs";
import { looksBinary } from "./binary-sniff";
import { ClientFileError, readFileViaEditor } from "./client-files";
import type { ClientFiles } from "./client-workspace";
import { resolveSafePath } from "./path-guard";
import { refuseDeniedRead } from "./read-denial";
import { type ToolContext, type ToolResult, toolError, toolOk } from "./types";

export { BINARY_SNIFF_BYTES, looksBinary } from "./binary-sniff";

/** Largest file the navigation tools load (bytes). */
export const MAX_TEXT_FILE_BYTES = 32 * 1024 * 1024;

export interface TextFile {
    /** Repo-relative POSIX path. */
    relPath: string;
    /** Symlink-resolved absolute path. */
    realPath: string;
    bytes: number;
    /** Lines without terminators; a final line break does not start another line. */
    lines: string[];
    /** Some lines ended with CRLF (the CR is not part of `lines`). */
    crlf: boolean;
}

/** Splits text into lines: LF or CRLF breaks, no empty last line for a final break. */
export function splitLines(text: string): string[] {
    if (text === "") return [];
    const lines = text.split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    if (text.includes("\r")) {
        for (let i = 0; i < lines.length; i++) {
            const line = lines[i]!;
            if (line.endsWith("\r")) lines[i] = line.slice(0, -1);
        }
    }
    return lines;
}

export function formatBytes(bytes: number): string {
    if (bytes < 1024) return `${bytes} bytes`;
    if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
    return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export interface ReadTextOptions {
    /** Default `MAX_TEXT_FILE_BYTES`. */
    maxBytes?: number;
    /** Tool name for messages. */
    tool: string;
    /** The editor's files (ACP): the text comes from its buffer (client-files.ts). */
    files?: ClientFiles;
}

/** Resolves, checks and loads a text file; every expected failure is a tool error. */
export async function readTextFile(
    ctx: ToolContext,
    userPath: string,
    options: ReadTextOptions
): Promise<ToolResult<TextFile>> {
    const resolved = await resolveSafePath(ctx.repoRoot, userPath, {
        mustExist: true,
        addedRoots: ctx.addedRoots,
    });
    if (!resolved.ok) return resolved;
    const { relPath, realPath } = resolved.data;
    const refused = refuseDeniedRead(ctx, relPath, resolved.data.absPath, realPath);
    if (refused) return refused;
    const maxBytes = options.maxBytes ?? MAX_TEXT_FILE_BYTES;
    let size: number;
    try {
        const stat = await fs.stat(realPath);
        if (stat.isDirectory()) {
            return toolError(
                "not_a_file",
                `"${relPath}" is a directory; use list_root or find_files to see its files.`
            );
        }
        if (!stat.isFile()) return toolError("not_a_file", `"${relPath}" is not a regular file.`);
        size = stat.size;
    } catch (error) {
        return toolError("io_error", `Cannot read "${relPath}": ${String(error)}`);
    }
    if (size > maxBytes) {
        return toolError(
            "too_large",
            `"${relPath}" is ${formatBytes(size)}, over the ${formatBytes(maxBytes)} limit of ` +
                `${options.tool}. Use search_text with this file, or read_file with a line range.`
        );
    }
    if (ctx.signal.aborted) return toolError("cancelled", `${options.tool} cancelled.`);
    let data: Buffer;
    try {
        data = options.files
            ? await readFileViaEditor(options.files, realPath, ctx.signal)
            : await fs.readFile(realPath);
    } catch (error) {
        if (error instanceof ClientFileError)
            return toolError("io_error", `Cannot read "${relPath}": ${error.message}`);
        return toolError("io_error", `Cannot read "${relPath}": ${String(error)}`);
    }
    if (looksBinary(data)) {
        return toolError(
            "binary_file",
            `"${relPath}" is a binary file (${formatBytes(data.length)}); it has no text lines to read.`
        );
    }
    let text = data.toString("utf8");
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    return toolOk({
        relPath,
        realPath,
        bytes: data.length,
        lines: splitLines(text),
        crlf: text.includes("\r\n"),
    });
}

export interface TextMatch {
    /** 1-based line where the text starts. */
    line: number;
    /** Column of the text in that line. */
    col: number;
}

/**
 * The lines holding `text` (one entry per line, its first occurrence there);
 * `text` may span lines ("\n"-separated). Plain substring search, linear.
 */
export function findTextLines(lines: readonly string[], text: string): TextMatch[] {
    const matches: TextMatch[] = [];
    if (!text.includes("\n")) {
        for (let i = 0; i < lines.length; i++) {
            const col = lines[i]!.indexOf(text);
            if (col >= 0) matches.push({ line: i + 1, col });
        }
        return matches;
    }
    const joined = lines.join("\n");
    let line = 1;
    let lineStart = 0;
    for (let at = joined.indexOf(text); at !== -1; at = joined.indexOf(text, at + 1)) {
        for (
            let nl = joined.indexOf("\n", lineStart);
            nl !== -1 && nl < at;
            nl = joined.indexOf("\n", nl + 1)
        ) {
            line++;
            lineStart = nl + 1;
        }
        if (matches.length === 0 || matches[matches.length - 1]!.line !== line) {
            matches.push({ line, col: at - lineStart });
        }
    }
    return matches;
}
