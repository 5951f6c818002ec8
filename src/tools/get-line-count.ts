/**
 * get_line_count: lines, bytes and the longest line of a file, by streaming a
 * byte scan for "\n" (1 MB at a time, never the whole file), with a hint
 * about how to read a file of that size.
 */
import { promises as fs } from "node:fs";
import { type InputOf, toolInput } from "./tool-input";
import { resolveSafePath } from "./path-guard";
import { refuseDeniedRead } from "./read-denial";
import { formatBytes, looksBinary } from "./text-file";
import { type ToolDefinition, toolError, toolOk } from "./types";
import { fileTitle } from "./display-text";

const CHUNK_BYTES = 1024 * 1024;
/** A line longer than this marks the file as minified or generated. */
export const LONG_LINE_BYTES = 10_000;

const input = toolInput((z) =>
    z.object({
        path: z.string(),
    })
);

export type GetLineCountInput = InputOf<typeof input>;

export type SizeCategory = "empty" | "small" | "medium" | "large";

export interface LineCountResult {
    path: string;
    lines: number;
    bytes: number;
    /** Bytes of the longest line (terminator excluded). */
    longestLine: number;
    sizeCategory: SizeCategory;
    /** How to read a file of this size. */
    hint: string;
}

function categorize(lines: number): SizeCategory {
    if (lines === 0) return "empty";
    if (lines <= 200) return "small";
    if (lines <= 2000) return "medium";
    return "large";
}

const HINTS: Record<SizeCategory, string> = {
    empty: "empty: nothing to read",
    small: "small: read_file can return it whole",
    medium: "medium: get_file_outline first, then read_file with a range or read_around",
    large:
        "large: get_file_outline (or get_file_symbols), then search_text with file and lineRange, " +
        "then read_around or read_file ranges; never read it whole",
};

function hintFor(category: SizeCategory, longestLine: number): string {
    if (longestLine <= LONG_LINE_BYTES) return HINTS[category];
    return (
        `has a ${formatBytes(longestLine)} line (minified or generated): ` +
        "use search_text or read_around, which show a window of long lines, not read_file"
    );
}

export function createGetLineCountTool(): ToolDefinition<GetLineCountInput, LineCountResult> {
    return {
        name: "get_line_count",
        description:
            "A file's line and byte counts without reading it (fast at any size), with a hint on how to read it.",
        input,
        approvalPolicy: "none",
        readOnly: true,
        display: { title: fileTitle("Checking size of") },
        async execute(args, ctx) {
            const resolved = await resolveSafePath(ctx.repoRoot, args.path, {
                mustExist: true,
                addedRoots: ctx.addedRoots,
            });
            if (!resolved.ok) return resolved;
            const { relPath, realPath } = resolved.data;
            const refused = refuseDeniedRead(ctx, relPath, resolved.data.absPath, realPath);
            if (refused) return refused;
            let handle: fs.FileHandle;
            try {
                const stat = await fs.stat(realPath);
                if (!stat.isFile()) {
                    return toolError(
                        "not_a_file",
                        `"${relPath}" is ${stat.isDirectory() ? "a directory; use list_root or find_files" : "not a regular file"}.`
                    );
                }
                handle = await fs.open(realPath, "r");
            } catch (error) {
                return toolError("io_error", `Cannot read "${relPath}": ${String(error)}`);
            }
            try {
                const buf = Buffer.allocUnsafe(CHUNK_BYTES);
                let bytes = 0;
                let newlines = 0;
                let lineBytes = 0;
                let longest = 0;
                let lastByte = -1;
                for (;;) {
                    if (ctx.signal.aborted)
                        return toolError("cancelled", "get_line_count cancelled.");
                    const { bytesRead } = await handle.read(buf, 0, CHUNK_BYTES, bytes);
                    if (bytesRead === 0) break;
                    const chunk = buf.subarray(0, bytesRead);
                    if (bytes === 0 && looksBinary(chunk)) {
                        const size = (await handle.stat()).size;
                        return toolError(
                            "binary_file",
                            `"${relPath}" is a binary file (${formatBytes(size)}); it has no lines.`
                        );
                    }
                    let start = 0;
                    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
                        let length = lineBytes + nl - start;
                        if (nl > 0 ? chunk[nl - 1] === 13 : lastByte === 13) length--;
                        if (length > longest) longest = length;
                        newlines++;
                        lineBytes = 0;
                        start = nl + 1;
                    }
                    lineBytes += bytesRead - start;
                    lastByte = chunk[bytesRead - 1]!;
                    bytes += bytesRead;
                }
                if (lineBytes > longest) longest = lineBytes;
                const lines = newlines + (lineBytes > 0 ? 1 : 0);
                const sizeCategory = categorize(lines);
                return toolOk({
                    path: relPath,
                    lines,
                    bytes,
                    longestLine: longest,
                    sizeCategory,
                    hint: hintFor(sizeCategory, longest),
                });
            } catch (error) {
                return toolError("io_error", `Cannot read "${relPath}": ${String(error)}`);
            } finally {
                await handle.close();
            }
        },
    };
}
