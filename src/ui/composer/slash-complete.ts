/**
 * Slash command autocomplete: a `/` token at the cursor suggests registered
 * commands (name and description); the argument of `/model` suggests model
 * aliases with their display names, that of `/mode` the three modes. Pure.
 */
import { MODES } from "../../agent/events";
import { getTokenAtCursor } from "../../commands/index";
import type { EditorState } from "./editor";

export interface CommandHint {
    name: string;
    description: string;
}

export interface ModelHint {
    alias: string;
    display: string;
}

/** Where suggestions come from; read on every key, so commands added later show up. */
export interface SlashSource {
    commands(): readonly CommandHint[];
    models(): readonly ModelHint[];
}

export interface SuggestionItem {
    /** What accepting it inserts. */
    value: string;
    label: string;
    hint?: string;
}

export interface SlashCompletion {
    kind: "command" | "model" | "mode";
    /** The token replaced on accept: [start, end). */
    start: number;
    end: number;
    query: string;
    items: SuggestionItem[];
}

const MODE_HINTS: Record<string, string> = {
    ask: "read-only: the model may look but not change anything",
    agent: "every tool: edits and commands (each reviewed)",
    plan: "the model proposes a plan to accept before changing anything",
};

/** Prefix matches first, then matches anywhere; none when the query is already complete. */
function rank<T>(items: readonly T[], query: string, keys: (item: T) => string[]): T[] | null {
    const q = query.toLowerCase();
    if (items.some((item) => keys(item)[0]?.toLowerCase() === q) && q !== "") return null;
    const prefix: T[] = [];
    const inside: T[] = [];
    for (const item of items) {
        const fields = keys(item).map((k) => k.toLowerCase());
        if (fields[0]?.startsWith(q)) prefix.push(item);
        else if (fields.some((f) => f.includes(q))) inside.push(item);
    }
    return [...prefix, ...inside];
}

/** The suggestions for the token at the cursor, or null when there is nothing to suggest. */
export function slashCompletion(editor: EditorState, source: SlashSource): SlashCompletion | null {
    const { text, cursor } = editor;
    const token = getTokenAtCursor(text, cursor) ?? { token: "", start: cursor, end: cursor };
    const query = text.slice(token.start, cursor);
    if (token.token.startsWith("/")) {
        const name = query.slice(1);
        if (query === "" || name.includes("/")) return null;
        const found = rank(source.commands(), name, (c) => [c.name]);
        if (!found || found.length === 0) return null;
        return {
            kind: "command",
            start: token.start,
            end: token.end,
            query: name,
            items: found.map((c) => ({
                value: `/${c.name}`,
                label: `/${c.name}`,
                hint: c.description,
            })),
        };
    }
    const before = text.slice(0, token.start);
    const argumentOf = /(?:^|\s)\/(model|mode)[ \t]+$/.exec(before)?.[1];
    if (argumentOf === "model") {
        const found = rank(source.models(), query, (m) => [m.alias, m.display]);
        if (!found || found.length === 0) return null;
        return {
            kind: "model",
            start: token.start,
            end: token.end,
            query,
            items: found.map((m) => ({ value: m.alias, label: m.alias, hint: m.display })),
        };
    }
    if (argumentOf === "mode") {
        const found = rank(MODES, query, (m) => [m]);
        if (!found || found.length === 0) return null;
        return {
            kind: "mode",
            start: token.start,
            end: token.end,
            query,
            items: found.map((m) => ({ value: m, label: m, hint: MODE_HINTS[m] })),
        };
    }
    return null;
}

/** Replaces [start, end) with `value`, adding a space only when none follows. */
export function applyCompletion(
    editor: EditorState,
    start: number,
    end: number,
    value: string
): EditorState {
    const after = editor.text.slice(end);
    const space = after.startsWith(" ") || after.startsWith("\n") ? "" : " ";
    const inserted = value + space;
    return {
        text: editor.text.slice(0, start) + inserted + after,
        cursor: start + inserted.length + (after.startsWith(" ") ? 1 : 0),
    };
}
