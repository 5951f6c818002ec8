/**
 * find_files: project files whose path matches a glob, case-insensitively, in
 * sorted order. Ignored files (see util/ignore-walk) are never listed, but what
 * git lists is: tracked files a .gitignore matches, and symbolic links (by name).
 */
import picomatch from "picomatch";
import { type InputOf, toolInput } from "./tool-input";
import { collectFiles } from "../util/ignore-walk";
import { isReadableRel } from "./read-denial";
import { type ToolDefinition, type ToolResult, toolError, toolOk } from "./types";
import { asRecord, str } from "./display-text";
import { digestNote, isRecord } from "./digest-text";
import { DIGEST_FILES, FIND_FILES_DEFAULT_LIMIT, FIND_FILES_MAX_LIMIT } from "./limits";

const DEFAULT_LIMIT = FIND_FILES_DEFAULT_LIMIT;
const MAX_LIMIT = FIND_FILES_MAX_LIMIT;
/** A walk stops after this many files; the result then says so. */
export const MAX_SCANNED_FILES = 200_000;

const input = toolInput((z) =>
    z.object({
        pattern: z.string().min(1).describe('Glob, e.g. "**/README*".'),
        limit: z
            .number()
            .int()
            .min(1)
            .max(MAX_LIMIT)
            .default(DEFAULT_LIMIT)
            .describe(`Default ${DEFAULT_LIMIT}.`),
    })
);

export type FindFilesInput = InputOf<typeof input>;

export interface FindFilesResult {
    /** Repo-relative POSIX paths, sorted. */
    files: string[];
    totalMatches: number;
    truncated: boolean;
    note?: string;
}

/**
 * Normalizes a model-written glob: "dir/" means "dir/**"; a leading "./" or "/"
 * anchors it at the root (so "/README.md" does not match docs/README.md).
 */
export function normalizeGlob(pattern: string): { glob: string; byName: boolean } {
    let glob = pattern.trim().replace(/\\/g, "/");
    const anchored = glob.startsWith("/") || glob.startsWith("./");
    while (glob.startsWith("./")) glob = glob.slice(2);
    glob = glob.replace(/^\/+/, "");
    if (glob === "" || glob === ".") return { glob: "**", byName: false };
    if (glob.endsWith("/")) glob += "**";
    return { glob, byName: !anchored && !glob.includes("/") };
}

const DESCRIPTION = `Find files by glob, case-insensitive: without "/" it matches names at any depth ("*.test.ts"), with "/" paths from the root ("src/**/*.ts"). Respects .gitignore.`;

export function createFindFilesTool(): ToolDefinition<FindFilesInput, FindFilesResult> {
    return {
        name: "find_files",
        description: DESCRIPTION,
        input,
        approvalPolicy: "none",
        readOnly: true,
        display: {
            title: (args) => `Finding ${str(args.pattern) ?? "files"}`,
            resultSuffix: (details) => {
                const d = asRecord(details);
                if (!Array.isArray(d.files)) return "";
                const more = d.truncated === true ? "+" : "";
                return ` - ${d.files.length}${more} ${d.files.length === 1 && !more ? "file" : "files"}`;
            },
        },
        digest(data, _input, keep) {
            if (!isRecord(data) || !Array.isArray(data.files) || data.files.length <= DIGEST_FILES)
                return data;
            const id = keep(data);
            return {
                ...data,
                files: data.files.slice(0, DIGEST_FILES),
                shownFiles: DIGEST_FILES,
                ...digestNote(
                    id,
                    `Showing ${DIGEST_FILES} of ${data.files.length} files ... ${data.files.length - DIGEST_FILES} more.`
                ),
            };
        },
        hookAliases: ["Glob"],
        async execute(args, ctx): Promise<ToolResult<FindFilesResult>> {
            const { glob, byName } = normalizeGlob(args.pattern);
            let regex: RegExp;
            try {
                regex = picomatch.makeRe(glob, { nocase: true, dot: true });
            } catch (error) {
                return toolError(
                    "invalid_args",
                    `Invalid glob "${args.pattern}": ${String(error)}`
                );
            }
            // picomatch's own matcher, minus its per-call overhead: a path equal to the
            // glob matches too ("[id].tsx" finds the file of that name).
            const isMatch = (target: string) => target === glob || regex.test(target);
            const all = await collectFiles(ctx.repoRoot, {
                signal: ctx.signal,
                maxFiles: MAX_SCANNED_FILES,
                tracked: true,
                symlinks: true,
            });
            const files: string[] = [];
            let totalMatches = 0;
            for (const rel of all) {
                if (!isReadableRel(ctx, rel)) continue;
                if (!isMatch(byName ? rel.slice(rel.lastIndexOf("/") + 1) : rel)) continue;
                totalMatches++;
                if (files.length < args.limit) files.push(rel);
            }
            if (ctx.signal.aborted) return toolError("cancelled", "find_files cancelled.");
            const capped = all.length >= MAX_SCANNED_FILES;
            const truncated = totalMatches > files.length || capped;
            const result: FindFilesResult = { files, totalMatches, truncated };
            const notes: string[] = [];
            if (totalMatches > files.length) {
                notes.push(
                    `Showing ${files.length} of ${totalMatches} matches. Use a more specific pattern, or raise limit (max ${MAX_LIMIT}).`
                );
            }
            if (capped) {
                notes.push(
                    `Stopped after scanning ${MAX_SCANNED_FILES} files; there may be more matches. Use a pattern with a directory prefix.`
                );
            }
            if (totalMatches === 0) {
                notes.push(
                    `No files match "${args.pattern}". A pattern without "/" matches file names ("*.ts"); use "dir/**" for everything under a directory.`
                );
            }
            if (notes.length > 0) result.note = notes.join(" ");
            return toolOk(result);
        },
    };
}
