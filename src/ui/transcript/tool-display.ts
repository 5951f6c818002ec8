/**
 * How tool calls read in the transcript (the spec's "Tool Display
 * Formatting"): a title from the arguments, then a suffix from the result's
 * `details` (entry counts, edit stats). Never parsed out of the model's text.
 */
import type { FileDiff } from "../../tools/types";

type Args = Record<string, unknown>;

const asArgs = (input: unknown): Args =>
    typeof input === "object" && input !== null ? (input as Args) : {};

const str = (value: unknown): string | undefined =>
    typeof value === "string" && value.length > 0 ? value : undefined;

/** The last path segment: "src/ui/a.tsx" → "a.tsx". */
export function baseName(path: string): string {
    const trimmed = path.replace(/[/\\]+$/, "");
    const at = Math.max(trimmed.lastIndexOf("/"), trimmed.lastIndexOf("\\"));
    return at === -1 ? trimmed : trimmed.slice(at + 1);
}

const oneLine = (text: string, max = 60): string => {
    const flat = text.replace(/\s+/g, " ").trim();
    return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

const SINGLE_FILE_EDITS = new Set([
    "edit_replace_exact",
    "edit_insert_at_line",
    "edit_after_anchor",
    "edit_before_anchor",
    "edit_replace_block",
    "edit_by_anchor",
]);

/** "Reading a.ts", "Listing project files"; unknown tools keep their name. */
export function toolTitle(name: string, input: unknown): string {
    const args = asArgs(input);
    const file = str(args.path) ? baseName(args.path as string) : undefined;
    switch (name) {
        case "list_root":
            return "Listing project files";
        case "find_files":
            return `Finding ${str(args.pattern) ?? "files"}`;
        case "read_file":
            return file ? `Reading ${file}` : name;
        case "get_line_count":
            return file ? `Checking size of ${file}` : name;
        case "get_file_symbols":
            return file ? `Extracting symbols from ${file}` : name;
        case "get_file_outline":
            return file ? `Outlining ${file}` : name;
        case "edit_create_file":
            return file ? `Creating ${file}` : name;
        case "edit_apply_batch": {
            const edits = Array.isArray(args.edits) ? (args.edits as unknown[]) : [];
            const files = new Set(edits.map((e) => str(asArgs(e).path)).filter(Boolean));
            if (files.size === 1) return `Editing ${baseName([...files][0] as string)}`;
            return `Editing ${files.size} files`;
        }
        case "search_text":
            return str(args.query) ? `Searching "${oneLine(args.query as string, 40)}"` : name;
        case "shell_run":
            return str(args.command) ? `Running ${oneLine(args.command as string)}` : name;
        default:
            if (SINGLE_FILE_EDITS.has(name) && file) return `Editing ${file}`;
            return name;
    }
}

/** Total lines added and removed. */
export function diffStats(files: ReadonlyArray<Pick<FileDiff, "linesAdded" | "linesRemoved">>): {
    added: number;
    removed: number;
} {
    let added = 0;
    let removed = 0;
    for (const file of files) {
        added += file.linesAdded;
        removed += file.linesRemoved;
    }
    return { added, removed };
}

export const formatStats = (stats: { added: number; removed: number }): string =>
    `(+${stats.added}/-${stats.removed})`;

/** The files an applied edit reports (`EditApplied`), if `details` is one. */
function appliedFiles(
    details: unknown
): Array<{ path: string; linesAdded: number; linesRemoved: number }> | null {
    const files = (details as { files?: unknown } | null)?.files;
    if (!Array.isArray(files)) return null;
    const valid = files.filter(
        (f): f is { path: string; linesAdded: number; linesRemoved: number } =>
            typeof f === "object" &&
            f !== null &&
            typeof (f as { linesAdded?: unknown }).linesAdded === "number" &&
            typeof (f as { linesRemoved?: unknown }).linesRemoved === "number"
    );
    return valid.length === files.length ? valid : null;
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/**
 * What the result adds to the title: " - 12 entries", " - 50+ files",
 * " (+3/-1)". Empty when the result says nothing worth showing.
 */
export function toolResultSuffix(name: string, details: unknown): string {
    const d = (details ?? {}) as Record<string, unknown>;
    switch (name) {
        case "list_root":
            if (typeof d.totalEntries === "number")
                return ` - ${plural(d.totalEntries, "entry", "entries")}`;
            return "";
        case "find_files":
            if (Array.isArray(d.files)) {
                const more = d.truncated === true ? "+" : "";
                return ` - ${d.files.length}${more} ${d.files.length === 1 && !more ? "file" : "files"}`;
            }
            return "";
        case "search_text":
            if (typeof d.totalMatches === "number")
                return ` - ${plural(d.totalMatches, "match", "matches")}`;
            return "";
        default: {
            const files = appliedFiles(details);
            if (files && files.length > 0) return ` ${formatStats(diffStats(files))}`;
            return "";
        }
    }
}

/** When an edit is applied the title names what changed ("Editing 3 files"). */
export function titleAfterApply(name: string, title: string, details: unknown): string {
    const files = appliedFiles(details);
    if (!files || name !== "edit_apply_batch") return title;
    if (files.length === 1 && files[0]) return `Editing ${baseName(files[0].path)}`;
    return `Editing ${files.length} files`;
}

/** Lines under a finished shell command: exit status and the end of its output. */
export function shellDetail(details: unknown, maxLines = 4): string[] {
    const d = details as {
        exitCode?: number | null;
        output?: string;
        timedOut?: boolean;
        cancelled?: boolean;
        durationMs?: number;
    } | null;
    if (!d || typeof d !== "object") return [];
    const status = d.timedOut
        ? "timed out"
        : d.cancelled
          ? "cancelled"
          : d.exitCode === null || d.exitCode === undefined
            ? "killed"
            : `exit ${d.exitCode}`;
    const seconds =
        typeof d.durationMs === "number" ? ` · ${(d.durationMs / 1000).toFixed(1)}s` : "";
    const output = (d.output ?? "").replace(/\s+$/, "");
    const tail = output === "" ? [] : output.split("\n").slice(-maxLines);
    return [`${status}${seconds}`, ...tail];
}
