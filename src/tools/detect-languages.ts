/**
 * detect_languages: the project's language mix by file extension and bytes,
 * over the files an ignore-aware walk sees (binary, lock and minified files
 * skipped). Data and prose formats are reported apart from code.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { NON_BLOCKING_READ } from "../util/read-regular-file";
import path from "node:path";
import { type InputOf, toolInput } from "./tool-input";
import { walkFiles } from "../util/ignore-walk";
import { type LanguageCategory, languageOf } from "./structure/language";
import { isReadableRel } from "./read-denial";
import { looksBinary } from "./text-file";
import { type ToolDefinition, toolError, toolOk } from "./types";
import { NAME_ONLY_DISPLAY } from "./display-text";

export const MAX_LANGUAGE_FILES = 20_000;
const TOP_LANGUAGES = 10;
const SNIFF_BYTES = 1024;
const SLICE_MS = 10;

const GENERATED =
    /(?:^|\/)(?:package-lock\.json|yarn\.lock|pnpm-lock\.yaml|Cargo\.lock|poetry\.lock|composer\.lock|Gemfile\.lock|go\.sum)$|\.min\.(?:js|css)$|\.map$/;

const input = toolInput((z) => z.object({}));

export type DetectLanguagesInput = InputOf<typeof input>;

export interface LanguageShare {
    language: string;
    files: number;
    bytes: number;
    /** Share of the bytes in its list, one decimal. */
    percent: number;
}

export interface LanguagesResult {
    /** Code and markup languages, largest first; the tail merged into "other". */
    languages: LanguageShare[];
    /** The largest code language, if any. */
    primary?: string;
    /** JSON, YAML, Markdown and similar, largest first. */
    dataAndDocs: LanguageShare[];
    filesCounted: number;
    /** Files of unknown type, skipped. */
    filesSkipped: number;
    truncated: boolean;
    note?: string;
}

interface Tally {
    files: number;
    bytes: number;
    category: LanguageCategory;
}

/** Size of a text file, or null for a binary or unreadable one. */
function textSize(abs: string, sniff: Buffer): number | null {
    let fd: number;
    try {
        // O_NONBLOCK: a FIFO in the tree must not block the walk.
        fd = openSync(abs, NON_BLOCKING_READ);
    } catch {
        return null;
    }
    try {
        const stats = fstatSync(fd);
        if (!stats.isFile()) return null;
        const size = stats.size;
        const n = readSync(fd, sniff, 0, Math.min(SNIFF_BYTES, size), 0);
        return looksBinary(sniff.subarray(0, n)) ? null : size;
    } catch {
        return null;
    } finally {
        closeSync(fd);
    }
}

function shares(entries: [string, Tally][], top: number): LanguageShare[] {
    const total = entries.reduce((sum, [, t]) => sum + t.bytes, 0);
    const percent = (bytes: number) => (total === 0 ? 0 : Math.round((bytes / total) * 1000) / 10);
    const sorted = entries.sort((a, b) => b[1].bytes - a[1].bytes || a[0].localeCompare(b[0]));
    const list = sorted.slice(0, top).map(([language, t]) => ({
        language,
        files: t.files,
        bytes: t.bytes,
        percent: percent(t.bytes),
    }));
    const rest = sorted.slice(top);
    if (rest.length > 0) {
        const files = rest.reduce((sum, [, t]) => sum + t.files, 0);
        const bytes = rest.reduce((sum, [, t]) => sum + t.bytes, 0);
        list.push({
            language: `other (${rest.length} languages)`,
            files,
            bytes,
            percent: percent(bytes),
        });
    }
    return list;
}

export function createDetectLanguagesTool(): ToolDefinition<DetectLanguagesInput, LanguagesResult> {
    return {
        name: "detect_languages",
        description:
            "The project's languages by extension and bytes (percent), .gitignore respected; " +
            "data and docs (JSON, YAML, Markdown) apart.",
        input,
        approvalPolicy: "none",
        readOnly: true,
        display: NAME_ONLY_DISPLAY,
        async execute(_args, ctx) {
            const tallies = new Map<string, Tally>();
            const sniff = Buffer.allocUnsafe(SNIFF_BYTES);
            let counted = 0;
            let skipped = 0;
            let seen = 0;
            let sliceStart = performance.now();
            for await (const rel of walkFiles(ctx.repoRoot, {
                signal: ctx.signal,
                maxFiles: MAX_LANGUAGE_FILES + 1,
            })) {
                if (++seen > MAX_LANGUAGE_FILES) break;
                if (performance.now() - sliceStart > SLICE_MS) {
                    await new Promise((resolve) => setImmediate(resolve));
                    sliceStart = performance.now();
                }
                const language = languageOf(rel);
                if (!language || GENERATED.test(rel) || !isReadableRel(ctx, rel)) {
                    skipped++;
                    continue;
                }
                const size = textSize(path.join(ctx.repoRoot, rel), sniff);
                if (size === null) {
                    skipped++;
                    continue;
                }
                counted++;
                const tally = tallies.get(language.name) ?? {
                    files: 0,
                    bytes: 0,
                    category: language.category,
                };
                tally.files++;
                tally.bytes += size;
                tallies.set(language.name, tally);
            }
            if (ctx.signal.aborted) return toolError("cancelled", "detect_languages cancelled.");
            const entries = [...tallies.entries()];
            const code = entries.filter(
                ([, t]) => t.category === "code" || t.category === "markup"
            );
            const other = entries.filter(
                ([, t]) => t.category === "data" || t.category === "prose"
            );
            const languages = shares(code, TOP_LANGUAGES);
            const result: LanguagesResult = {
                languages,
                dataAndDocs: shares(other, 5),
                filesCounted: counted,
                filesSkipped: skipped,
                truncated: seen > MAX_LANGUAGE_FILES,
            };
            const primary = code
                .filter(([, t]) => t.category === "code")
                .sort((a, b) => b[1].bytes - a[1].bytes)[0];
            if (primary) result.primary = primary[0];
            if (result.truncated) {
                result.note = `Counted the first ${MAX_LANGUAGE_FILES} files of the walk; the mix is an estimate.`;
            } else if (counted === 0) {
                result.note = "No source files of a known language found.";
            }
            return toolOk(result);
        },
    };
}
