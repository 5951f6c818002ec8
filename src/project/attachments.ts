/**
 * Files attached with @: read (inside the project only), cut to a preview
 * (30 lines or 2 KB) and rendered as the "# Attached Files" context block the
 * engine sends ahead of the summary for one run.
 */
import { realpath } from "node:fs/promises";
import { extname, isAbsolute, relative, resolve } from "node:path";
import { readRegularFileSync } from "../util/read-regular-file";

export const PREVIEW_LINES = 30;
export const PREVIEW_BYTES = 2048;

export interface AttachedFile {
    /** Repo-relative POSIX path. */
    path: string;
    text: string;
    /** "function main (line 3)", one per symbol; may be empty. */
    outline: string[];
}

/** Symbols of a file as outline lines; supplied by the caller (the tools know the parsers). */
export type OutlineOf = (path: string, text: string) => string[];

const FENCE_LANGUAGES: Record<string, string> = {
    ".ts": "typescript",
    ".tsx": "tsx",
    ".js": "javascript",
    ".jsx": "jsx",
    ".mjs": "javascript",
    ".py": "python",
    ".rs": "rust",
    ".go": "go",
    ".java": "java",
    ".cs": "csharp",
    ".php": "php",
    ".html": "html",
    ".css": "css",
    ".json": "json",
    ".md": "markdown",
    ".sh": "bash",
    ".yml": "yaml",
    ".yaml": "yaml",
};

/** The first 30 lines or 2 KB of `text`, and how many lines were left out. */
export function previewOf(text: string): { preview: string; moreLines: number } {
    const lines = text.replace(/\r\n/g, "\n").replace(/\n$/, "").split("\n");
    const kept: string[] = [];
    let bytes = 0;
    for (const line of lines) {
        if (kept.length >= PREVIEW_LINES) break;
        const size = Buffer.byteLength(line, "utf8") + 1;
        if (bytes + size > PREVIEW_BYTES && kept.length > 0) break;
        kept.push(line);
        bytes += size;
    }
    return { preview: kept.join("\n"), moreLines: lines.length - kept.length };
}

const fileName = (path: string): string => path.slice(path.lastIndexOf("/") + 1);

/** The context block for the attached files (empty string for none). */
export function renderAttachedFiles(files: readonly AttachedFile[]): string {
    if (files.length === 0) return "";
    const parts = ["# Attached Files"];
    for (const file of files) {
        const { preview, moreLines } = previewOf(file.text);
        const fence = preview.includes("```") ? "````" : "```";
        const lang = FENCE_LANGUAGES[extname(file.path).toLowerCase()] ?? "";
        let section = `## ${file.path}\n\n${fence}${lang}\n${preview}\n`;
        if (moreLines > 0) section += `... [${moreLines} more lines]\n`;
        section += fence;
        if (file.outline.length > 0) {
            section += `\n\nOutline (${fileName(file.path)}):\n\n`;
            section += file.outline.map((item) => `- ${item}`).join("\n");
        }
        parts.push(section);
    }
    return parts.join("\n\n");
}

/** Permission rules over attachments: a file a `Read(...)` rule denies is never attached. */
export interface AttachmentRules {
    /** The deny rule covering an absolute path, if any (the engine host answers it as an op). */
    readDenial?: (absPath: string) => Promise<string | undefined>;
    /** Told of each file left out because of a rule. */
    onDenied?: (path: string, rule: string) => void;
}

/** Reads the files, skipping any that are missing, binary, denied, or lead outside the project. */
export async function loadAttachments(
    repoRoot: string,
    paths: readonly string[],
    outlineOf?: OutlineOf,
    rules: AttachmentRules = {}
): Promise<AttachedFile[]> {
    const root = await realpath(repoRoot);
    const files: AttachedFile[] = [];
    for (const path of new Set(paths)) {
        try {
            const real = await realpath(resolve(root, path));
            const rel = relative(root, real);
            if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) continue;
            const rule =
                (await rules.readDenial?.(resolve(root, path))) ?? (await rules.readDenial?.(real));
            if (rule !== undefined) {
                rules.onDenied?.(path, rule);
                continue;
            }
            // A FIFO or device is left out, never waited on.
            const buffer = readRegularFileSync(real).bytes;
            if (buffer.subarray(0, 8000).includes(0)) continue;
            const text = buffer.toString("utf8");
            files.push({ path, text, outline: outlineOf ? outlineOf(path, text) : [] });
        } catch {
            // Gone since it was attached: left out.
        }
    }
    return files;
}
