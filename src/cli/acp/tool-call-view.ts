/**
 * How one of North's tool calls reads in the editor: its ACP kind, title,
 * locations (so the editor can follow along) and bounded content. The live
 * translation (updates.ts), the permission requests and the replay of a
 * saved conversation (replay.ts) all ask here, so a call reads the same in
 * each.
 */
import { isAbsolute, resolve } from "node:path";
import type { ToolCallContent, ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk";
import type { ToolDisplays } from "../../agent/tool-displays";
import { baseName } from "../../tools/display-text";
import type { FileDiff, LooseArgs } from "../../tools/types";

/**
 * Every built-in tool's kind (test/acp/updates.test.ts checks that each one
 * of createBuiltinTools is here); anything else (MCP tools, skills) is
 * "other".
 */
export const TOOL_KINDS: Readonly<Record<string, ToolKind>> = {
    read_file: "read",
    read_around: "read",
    get_line_count: "read",
    get_file_symbols: "read",
    get_file_outline: "read",
    read_readme: "read",
    find_code_block: "read",
    list_root: "read",
    detect_languages: "read",
    hotfiles: "read",
    expand_output: "read",
    search_text: "search",
    find_files: "search",
    find_blocks: "search",
    lsp: "search",
    edit_replace_exact: "edit",
    edit_insert_at_line: "edit",
    edit_after_anchor: "edit",
    edit_before_anchor: "edit",
    edit_replace_block: "edit",
    edit_by_anchor: "edit",
    edit_create_file: "edit",
    edit_apply_batch: "edit",
    lsp_rename: "edit",
    north_file: "edit",
    shell_run: "execute",
    // A background process's output; typing into it runs what is typed; stopping it is neither.
    process_read: "read",
    process_send: "execute",
    process_stop: "other",
    web_fetch: "fetch",
    todo_write: "think",
    remember: "other",
    task: "other",
    propose_plan: "switch_mode",
};

/** The tool name NORTH_FILE blocks are reviewed under (agent/north-file-turn.ts). */
export const NORTH_FILE_TOOL = "north_file";

export function toolKindOf(name: string): ToolKind {
    return Object.hasOwn(TOOL_KINDS, name) ? (TOOL_KINDS[name] as ToolKind) : "other";
}

function asArgs(input: unknown): LooseArgs {
    return typeof input === "object" && input !== null && !Array.isArray(input)
        ? (input as LooseArgs)
        : {};
}

/**
 * The chat's title with the file's path as the model gave it ("Reading
 * src/a.ts" where the chat's transcript says "Reading a.ts"): an editor
 * lists calls without the transcript's context, and two files of one name
 * must read apart.
 */
function withFullPath(title: string, path: unknown): string {
    if (typeof path !== "string" || path === "") return title;
    const base = baseName(path);
    if (base === path) return title;
    const at = title.indexOf(` ${base}`);
    if (at < 0) return title;
    // The name as a word of its own, not the start of a longer one.
    const after = title.charAt(at + 1 + base.length);
    if (after !== "" && !/[\s:,()]/.test(after)) return title;
    return `${title.slice(0, at + 1)}${path}${title.slice(at + 1 + base.length)}`;
}

/** "Reading src/a.ts"; the tool's name when its arguments say too little. */
export function toolTitle(displays: ToolDisplays, name: string, input: unknown): string {
    const args = asArgs(input);
    const title = displays(name)?.title(args);
    if (title !== undefined && title !== "") return withFullPath(title, args.path);
    if (name === NORTH_FILE_TOOL && typeof args.path === "string") return `Writing ${args.path}`;
    return name;
}

/** The title once the result is known, when it names more than the arguments did ("… - 12 entries"). */
export function titleAfterResult(
    displays: ToolDisplays,
    name: string,
    title: string,
    ok: boolean,
    details: unknown
): string {
    const display = displays(name);
    if (!display || details === undefined) return title;
    const named = display.titleAfterResult?.(title, details) ?? title;
    return ok ? `${named}${display.resultSuffix?.(details) ?? ""}` : named;
}

function positiveLine(value: unknown): number | undefined {
    return typeof value === "number" && Number.isInteger(value) && value >= 1 ? value : undefined;
}

/** The 1-based line a call's arguments point at, if any. */
function lineOf(args: LooseArgs): number | undefined {
    const range = asArgs(args.range);
    return positiveLine(args.line) ?? positiveLine(args.start_line) ?? positiveLine(range.start);
}

function absolute(repoRoot: string, path: string): string {
    return isAbsolute(path) ? path : resolve(repoRoot, path);
}

/** Where a call reads or writes: each file its arguments name (a batch's too), with the line when given. */
export function locationsOf(repoRoot: string, input: unknown): ToolCallLocation[] {
    const args = asArgs(input);
    const located = [args, ...(Array.isArray(args.edits) ? args.edits.map(asArgs) : [])];
    const seen = new Set<string>();
    const locations: ToolCallLocation[] = [];
    for (const entry of located) {
        if (typeof entry.path !== "string" || entry.path === "") continue;
        const path = absolute(repoRoot, entry.path);
        const line = lineOf(entry);
        const key = `${path}:${line ?? ""}`;
        if (seen.has(key)) continue;
        seen.add(key);
        locations.push(line === undefined ? { path } : { path, line });
    }
    return locations;
}

/** Text shown under a call is cut here (a command's output keeps its tail). */
export const MAX_CONTENT_CHARS = 16 * 1024;

/** `text` cut to `max` characters from the start, saying how much was left out. */
export function headOf(text: string, max = MAX_CONTENT_CHARS): string {
    if (text.length <= max) return text;
    return `${text.slice(0, max)}\n… (${text.length - max} more characters not shown)`;
}

/** `text` cut to its last `max` characters, saying how much was dropped before. */
export function tailOf(text: string, max = MAX_CONTENT_CHARS, droppedBefore = 0): string {
    const dropped = droppedBefore + Math.max(0, text.length - max);
    const kept = text.length <= max ? text : text.slice(text.length - max);
    return dropped > 0 ? `… (${dropped} earlier characters not shown)\n${kept}` : kept;
}

/** A fence longer than any backtick run in `text`, so Markdown shows it as it is. */
export function fenced(text: string, language = ""): string {
    const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
    const fence = "`".repeat(longest + 1);
    return `${fence}${language}\n${text.replace(/\n$/, "")}\n${fence}`;
}

export function textContent(text: string): ToolCallContent {
    return { type: "content", content: { type: "text", text } };
}

/** A command as the editor shows it: the command line, then its output so far. */
export function commandContent(command: string, output: string): ToolCallContent {
    const body = output === "" ? `$ ${command}` : `$ ${command}\n${output}`;
    return textContent(fenced(body, "console"));
}

/**
 * A write's files as native diffs (whole old and new text) where North kept
 * them, else as the unified diff in text.
 */
export function diffContents(repoRoot: string, diffs: readonly FileDiff[]): ToolCallContent[] {
    return diffs.map((file) => {
        if (file.newText !== undefined && file.newText !== null && file.oldText !== undefined) {
            return {
                type: "diff",
                path: file.absPath ?? absolute(repoRoot, file.path),
                oldText: file.oldText,
                newText: file.newText,
            };
        }
        return textContent(fenced(headOf(file.diff), "diff"));
    });
}

/** The first line a unified diff changes, in the new file's numbering (1-based). */
export function firstChangedLine(diff: string): number | undefined {
    let line: number | undefined;
    for (const text of diff.split("\n")) {
        const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text);
        if (hunk) {
            line = Number(hunk[1]);
            continue;
        }
        if (line === undefined) continue;
        if (text.startsWith("+") || text.startsWith("-")) return Math.max(1, line);
        if (text.startsWith(" ")) line++;
    }
    return undefined;
}

/** Where a write's files change, for the editor to follow. */
export function diffLocations(repoRoot: string, diffs: readonly FileDiff[]): ToolCallLocation[] {
    return diffs.map((file) => {
        const path = file.absPath ?? absolute(repoRoot, file.path);
        const line = firstChangedLine(file.diff);
        return line === undefined ? { path } : { path, line };
    });
}

/** The files an applied edit changed (its result's details), if the details say so. */
export function appliedFiles(
    details: unknown
): Array<{ path: string; linesAdded: number; linesRemoved: number }> | undefined {
    const files = (details as { applied?: unknown; files?: unknown } | null)?.files;
    if (!Array.isArray(files)) return undefined;
    const valid = files.filter(
        (f): f is { path: string; linesAdded: number; linesRemoved: number } =>
            typeof f === "object" &&
            f !== null &&
            typeof (f as { path?: unknown }).path === "string" &&
            typeof (f as { linesAdded?: unknown }).linesAdded === "number" &&
            typeof (f as { linesRemoved?: unknown }).linesRemoved === "number"
    );
    return valid.length > 0 ? valid : undefined;
}

/** Where an applied edit landed, for the editor to follow. */
export function appliedLocations(repoRoot: string, details: unknown): ToolCallLocation[] {
    return (appliedFiles(details) ?? []).map((f) => ({ path: absolute(repoRoot, f.path) }));
}

/** The text under a finished call: the display's lines when it has them, else what the model read. */
export function resultText(
    displays: ToolDisplays,
    name: string,
    input: unknown,
    ok: boolean,
    content: string,
    details: unknown
): string {
    const lines =
        ok && details !== undefined ? displays(name)?.resultDetail?.(details, true) : undefined;
    const command = asArgs(input).command;
    if (toolKindOf(name) === "execute" && typeof command === "string") {
        const output = lines ? lines.join("\n") : content;
        return fenced(`$ ${command}\n${tailOf(output)}`, "console");
    }
    if (lines && lines.length > 0) return fenced(headOf(lines.join("\n")));
    const applied = ok ? appliedFiles(details) : undefined;
    if (applied) {
        return applied.map((f) => `${f.path} +${f.linesAdded} −${f.linesRemoved}`).join("\n");
    }
    return fenced(headOf(content));
}
