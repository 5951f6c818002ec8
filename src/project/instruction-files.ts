import { lstatSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { readRegularFileSync, unreadableText } from "../util/read-regular-file";

/** The spec's cap for `.cursor/rules`, and the same cap for each AGENTS.md / CLAUDE.md. */
export const CONTEXT_CAP_BYTES = 30 * 1024;
const TRUNCATED = "\n[truncated]";
const CONTEXT_FILE_NAMES = ["AGENTS.md", "CLAUDE.md"];

export interface ContextFile {
    /** Path shown to the model: repo-relative for rules, absolute for context files outside the repo. */
    label: string;
    kind: "cursor_rule" | "context_file";
    body: string;
    truncated: boolean;
}

export interface ProjectContext {
    /** The text injected ahead of every request, or null when there is nothing. */
    text: string | null;
    files: ContextFile[];
    warnings: string[];
}

/**
 * Reads at most `cap` bytes: a 1 MB AGENTS.md is never loaded whole. With
 * `repoRoot`, the file is repository content and must resolve inside it.
 */
function readCapped(
    path: string,
    cap: number,
    label: string,
    repoRoot?: string
): { text: string; truncated: boolean } {
    const { bytes, truncated } = readRegularFileSync(path, { cap, label, insideRoot: repoRoot });
    // Cut at a line break when one is near, so a rule is not split mid-line.
    let text = bytes.toString("utf8");
    if (truncated) {
        const lastBreak = text.lastIndexOf("\n");
        if (lastBreak > cap * 0.8) text = text.slice(0, lastBreak);
    }
    return { text, truncated };
}

/** Splits optional `---` frontmatter from the body; broken frontmatter keeps the whole text. */
export function splitFrontmatter(text: string): { body: string; broken: boolean } {
    const normalized = text.replace(/^\uFEFF/, "");
    if (!/^---\r?\n/.test(normalized)) return { body: normalized.trim(), broken: false };
    const end = normalized.search(/\r?\n---[ \t]*(\r?\n|$)/);
    if (end < 0) return { body: normalized.trim(), broken: true };
    const rest = normalized.slice(end).replace(/^\r?\n---[ \t]*(\r?\n|$)/, "");
    return { body: rest.trim(), broken: false };
}

function listMdcFiles(dir: string, warnings: string[]): string[] {
    const out: string[] = [];
    const walk = (current: string): void => {
        let entries;
        try {
            entries = readdirSync(current, { withFileTypes: true });
        } catch (error) {
            warnings.push(`could not read ${current}: ${(error as Error).message}`);
            return;
        }
        for (const entry of entries) {
            const full = join(current, entry.name);
            if (entry.isDirectory()) walk(full);
            else if (entry.isFile() && entry.name.endsWith(".mdc")) out.push(full);
        }
    };
    walk(dir);
    return out;
}

function loadCursorRules(repoRoot: string, warnings: string[]): ContextFile[] {
    const rulesDir = join(repoRoot, ".cursor", "rules");
    try {
        if (!statSync(rulesDir).isDirectory()) return [];
    } catch {
        return [];
    }
    const files = listMdcFiles(rulesDir, warnings)
        .map((path) => ({ path, rel: relative(repoRoot, path).split(sep).join("/") }))
        .sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
    const rules: ContextFile[] = [];
    let budget = CONTEXT_CAP_BYTES;
    for (const file of files) {
        if (budget <= 0) {
            rules.push({
                label: file.rel,
                kind: "cursor_rule",
                body: "[truncated]",
                truncated: true,
            });
            continue;
        }
        try {
            const { text, truncated } = readCapped(file.path, budget, file.rel, repoRoot);
            const { body, broken } = splitFrontmatter(text);
            if (broken)
                warnings.push(
                    `${file.rel}: frontmatter is not closed by "---"; using the whole file`
                );
            budget -= Buffer.byteLength(body);
            rules.push({
                label: file.rel,
                kind: "cursor_rule",
                body: truncated ? body + TRUNCATED : body,
                truncated,
            });
        } catch (error) {
            warnings.push(
                unreadableText(error, (message) => `could not read ${file.rel}: ${message}`)
            );
        }
    }
    return rules;
}

/** AGENTS.md and CLAUDE.md from the filesystem root down to the repo root, outermost first. */
function loadContextFiles(repoRoot: string, warnings: string[]): ContextFile[] {
    const dirs: string[] = [];
    for (let dir = repoRoot; ; dir = dirname(dir)) {
        dirs.unshift(dir);
        if (dirname(dir) === dir) break;
    }
    const files: ContextFile[] = [];
    for (const dir of dirs) {
        for (const name of CONTEXT_FILE_NAMES) {
            const path = join(dir, name);
            try {
                if (lstatSync(path).isDirectory()) continue;
            } catch {
                continue;
            }
            const inRepo = dir === repoRoot;
            const label = inRepo ? name : path;
            try {
                // Above the repo root, the user's own files may be symlinks (dotfiles).
                const { text, truncated } = readCapped(
                    path,
                    CONTEXT_CAP_BYTES,
                    label,
                    inRepo ? repoRoot : undefined
                );
                if (truncated)
                    warnings.push(
                        `${label} is larger than ${CONTEXT_CAP_BYTES / 1024} KB; only its start is used`
                    );
                files.push({
                    label,
                    kind: "context_file",
                    body: truncated ? text.trim() + TRUNCATED : text.trim(),
                    truncated,
                });
            } catch (error) {
                const code = (error as NodeJS.ErrnoException).code;
                if (code === "ENOENT" || code === "ENOTDIR") continue;
                warnings.push(
                    unreadableText(error, (message) => `could not read ${path}: ${message}`)
                );
            }
        }
    }
    return files;
}

/**
 * The project's standing instructions: Cursor rules (`.cursor/rules/**\/*.mdc`,
 * sorted, 30 KB in all) and AGENTS.md / CLAUDE.md from the repo and its parent
 * directories (30 KB each), rendered as one block for the system prompt.
 */
export function loadProjectContext(repoRoot: string): ProjectContext {
    const warnings: string[] = [];
    const rules = loadCursorRules(repoRoot, warnings);
    const contextFiles = loadContextFiles(repoRoot, warnings);
    const sections: string[] = [];
    if (rules.length > 0) {
        sections.push(
            [
                "# Cursor Project Rules (.cursor/rules)",
                ...rules.map((r) => `## ${r.label}\n\n${r.body}`),
            ].join("\n\n")
        );
    }
    if (contextFiles.length > 0) {
        sections.push(
            [
                "# Project Context Files (AGENTS.md, CLAUDE.md)",
                ...contextFiles.map((f) => `## ${f.label}\n\n${f.body}`),
            ].join("\n\n")
        );
    }
    return {
        text: sections.length > 0 ? sections.join("\n\n") : null,
        files: [...rules, ...contextFiles],
        warnings,
    };
}
