/**
 * What a message's first word makes of it, before anything is sent: a
 * `/name` word (no other `/` or `.` in it) is a command, known or not, so a
 * mistyped command never reaches the model as a paid prompt; a path
 * (`/etc/hosts`, `//x`) is text; `!rest` is a shell command the user typed.
 * Commands later in a message are parse.ts's (`explain /model x`).
 */
import { closestMatches, levenshtein } from "../util/levenshtein";

/**
 * Every name a `/name` can run, from each source: built-ins and their
 * aliases, Markdown commands, skills, MCP prompts, and plugins'
 * `/plugin:cmd` names (the `:` is part of the name).
 */
export interface CommandNames {
    has(name: string): boolean;
    /** For suggestions. */
    names(): readonly string[];
}

export type InputKind =
    /** Sent as it is (commands later in it are still run). */
    | { kind: "text" }
    /** Starts with a command some source knows. */
    | { kind: "command"; name: string }
    /** Said to the user, never sent: an unknown `/name`, a bare `/` or `!`. */
    | { kind: "refused"; message: string }
    /** `!command`: run by the user's shell op, not sent as a prompt. */
    | { kind: "shell"; command: string };

export const BARE_SLASH_HINT = "/ starts a command: type its name (/help lists them).";
export const BARE_SHELL_HINT = "! runs a shell command: type it after the ! (e.g. !git status).";

/** Names near a mistyped one, best first; none when nothing is close. */
function nearNames(name: string, names: readonly string[]): string[] {
    const close = Math.max(2, Math.ceil(name.length / 3));
    const lower = name.toLowerCase();
    return closestMatches(name, [...names], 3).filter((candidate) => {
        const other = candidate.toLowerCase();
        return (
            other.startsWith(lower) || lower.startsWith(other) || levenshtein(lower, other) <= close
        );
    });
}

export function unknownCommandMessage(name: string, names: readonly string[]): string {
    const near = nearNames(name, names);
    const hint =
        near.length > 0
            ? `did you mean ${near.map((n) => `/${n}`).join(", ")}?`
            : "/help lists the commands.";
    return `unknown command /${name} — ${hint} Nothing was sent.`;
}

export function classifyInput(input: string, known: CommandNames): InputKind {
    const text = input.trimStart();
    if (text.startsWith("!")) {
        const command = text.slice(1).trim();
        return command === ""
            ? { kind: "refused", message: BARE_SHELL_HINT }
            : { kind: "shell", command };
    }
    if (!text.startsWith("/")) return { kind: "text" };
    const word = /^\S*/.exec(text)![0];
    if (word === "/") {
        // "/" with nothing after it is a command not yet typed; "/ and then words" is text.
        return text.trim() === "/"
            ? { kind: "refused", message: BARE_SLASH_HINT }
            : { kind: "text" };
    }
    const name = word.slice(1);
    // A path (`/etc/hosts`, `/usr/lib/x.so: error`, `//x`): text.
    if (name.includes("/") || name.includes(".")) return { kind: "text" };
    if (known.has(name)) return { kind: "command", name };
    return { kind: "refused", message: unknownCommandMessage(name, known.names()) };
}

/** Names from several sources, as one. */
export function commandNamesOf(
    ...sources: Array<{ has(name: string): boolean; names(): readonly string[] }>
): CommandNames {
    return {
        has: (name) => sources.some((source) => source.has(name)),
        names: () => [...new Set(sources.flatMap((source) => [...source.names()]))],
    };
}

/** A fixed list of names (skills, MCP prompts) as a source. */
export function namesSource(list: () => readonly string[]): CommandNames {
    return { has: (name) => list().includes(name), names: list };
}
