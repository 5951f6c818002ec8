/**
 * Text helpers for the tools' transcript titles and result suffixes
 * (`ToolDisplay`): plain strings, drawn by whichever front-end shows them.
 */
import { oneLine as cutToOneLine } from "../util/short-text";
import type { FileDiff, LooseArgs, ToolDisplay } from "./types";

export const asArgs = (input: unknown): LooseArgs =>
    typeof input === "object" && input !== null ? (input as LooseArgs) : {};

/** A non-empty string, or undefined. */
export const str = (value: unknown): string | undefined =>
    typeof value === "string" && value.length > 0 ? value : undefined;

/** The last path segment: "src/ui/a.tsx" → "a.tsx". */
export function baseName(path: string): string {
    const trimmed = path.replace(/[/\\]+$/, "");
    const at = Math.max(trimmed.lastIndexOf("/"), trimmed.lastIndexOf("\\"));
    return at === -1 ? trimmed : trimmed.slice(at + 1);
}

/** The base name of `args.path`, when there is one. */
export const argFile = (args: LooseArgs): string | undefined => {
    const path = str(args.path);
    return path ? baseName(path) : undefined;
};

/** "Verb a.ts" from `args.path`; undefined without a path. */
export const fileTitle =
    (verb: string) =>
    (args: LooseArgs): string | undefined => {
        const file = argFile(args);
        return file ? `${verb} ${file}` : undefined;
    };

export const oneLine = (text: string, max = 60): string => cutToOneLine(text, max);

export const plural = (n: number, one: string, many = `${one}s`): string =>
    `${n} ${n === 1 ? one : many}`;

export const asRecord = (details: unknown): Record<string, unknown> =>
    (details ?? {}) as Record<string, unknown>;

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

type AppliedFile = { path: string; linesAdded: number; linesRemoved: number };

/** The files an applied edit reports (`EditApplied`), if `details` is one. */
export function appliedFiles(details: unknown): AppliedFile[] | null {
    const files = (details as { files?: unknown } | null)?.files;
    if (!Array.isArray(files)) return null;
    const valid = files.filter(
        (f): f is AppliedFile =>
            typeof f === "object" &&
            f !== null &&
            typeof (f as { linesAdded?: unknown }).linesAdded === "number" &&
            typeof (f as { linesRemoved?: unknown }).linesRemoved === "number"
    );
    return valid.length === files.length ? valid : null;
}

/** " (+3/-1)" for an applied edit; "" otherwise. */
export function editStatsSuffix(details: unknown): string {
    const files = appliedFiles(details);
    return files && files.length > 0 ? ` ${formatStats(diffStats(files))}` : "";
}

/** For tools whose name says enough: the transcript shows the name. */
export const NAME_ONLY_DISPLAY: ToolDisplay = { title: () => undefined };
