import type { CommandDefinition, ParsedArgs } from "./types";

export interface CommandInvocation {
    name: string;
    args: ParsedArgs;
    /** [start, end) of the command and its arguments in the input. */
    span: [number, number];
    /** Set when the arguments could not be read (e.g. an unbalanced quote); the command is not run. */
    error?: string;
}

export interface ParsedInput {
    invocations: CommandInvocation[];
    /** The input with every command span cut out: what goes to the model. */
    remainingText: string;
}

interface Token {
    text: string;
    start: number;
    end: number;
    quoted: boolean;
    unbalanced?: boolean;
}

const NAME = /^\/([A-Za-z][\w:-]*)/;

function isSpace(ch: string | undefined): boolean {
    return ch === " " || ch === "\t" || ch === "\n" || ch === "\r";
}

/** The next whitespace-separated token from `at`; quotes keep whitespace. */
function nextToken(input: string, at: number): Token | null {
    let i = at;
    while (i < input.length && isSpace(input[i])) i++;
    if (i >= input.length) return null;
    const quote = input[i];
    if (quote === '"' || quote === "'") {
        const close = input.indexOf(quote, i + 1);
        if (close < 0)
            return {
                text: input.slice(i + 1),
                start: i,
                end: input.length,
                quoted: true,
                unbalanced: true,
            };
        return { text: input.slice(i + 1, close), start: i, end: close + 1, quoted: true };
    }
    let end = i;
    while (end < input.length && !isSpace(input[end])) end++;
    return { text: input.slice(i, end), start: i, end, quoted: false };
}

/** A registered `/name` at `at`, which must start the input or follow whitespace. */
function commandAt(input: string, at: number, has: (name: string) => boolean): string | null {
    if (at > 0 && !isSpace(input[at - 1])) return null;
    const match = NAME.exec(input.slice(at));
    if (!match) return null;
    const after = input[at + match[0].length];
    if (after !== undefined && !isSpace(after)) return null; // "/model/x", "http://x/y" stay text
    return has(match[1]!) ? match[1]! : null;
}

/**
 * Finds the registered slash commands in an input: `/name` only at the start
 * or after whitespace, arguments read up to the command's arity or the next
 * command token (quoted strings keep whitespace), `--flag value` and `-f`.
 */
export function parseCommandInvocations(
    input: string,
    lookup: (name: string) => CommandDefinition | undefined
): ParsedInput {
    const has = (name: string): boolean => lookup(name) !== undefined;
    const invocations: CommandInvocation[] = [];
    let i = 0;
    while (i < input.length) {
        const slash = input.indexOf("/", i);
        if (slash < 0) break;
        const name = commandAt(input, slash, has);
        if (!name) {
            i = slash + 1;
            continue;
        }
        const definition = lookup(name)!;
        const args: ParsedArgs = { positional: [], flags: {} };
        let end = slash + 1 + name.length;
        let error: string | undefined;
        const flagByShort = new Map(
            Object.entries(definition.flags ?? {}).flatMap(([flag, spec]) =>
                spec.short ? [[spec.short, flag]] : []
            )
        );
        for (;;) {
            const token = nextToken(input, end);
            if (!token) break;
            if (!token.quoted && commandAt(input, token.start, has)) break;
            if (token.unbalanced) {
                error = `unbalanced quote in the arguments of /${name}`;
                end = token.end;
                break;
            }
            const flag =
                !token.quoted && token.text.startsWith("--")
                    ? token.text.slice(2)
                    : !token.quoted && /^-[A-Za-z]$/.test(token.text)
                      ? flagByShort.get(token.text.slice(1))
                      : undefined;
            const spec = flag !== undefined ? definition.flags?.[flag] : undefined;
            if (flag !== undefined && spec) {
                end = token.end;
                if (spec.takesValue) {
                    const value = nextToken(input, end);
                    if (!value || (!value.quoted && commandAt(input, value.start, has))) {
                        error = `--${flag} needs a value`;
                        break;
                    }
                    args.flags[flag] = value.text;
                    end = value.end;
                } else args.flags[flag] = true;
                continue;
            }
            if (args.positional.length >= definition.maxPositional) break;
            args.positional.push(token.text);
            end = token.end;
        }
        invocations.push({ name, args, span: [slash, end], ...(error ? { error } : {}) });
        i = end;
    }
    let remaining = input;
    for (const invocation of [...invocations].reverse()) {
        remaining =
            remaining.slice(0, invocation.span[0]) + " " + remaining.slice(invocation.span[1]);
    }
    return {
        invocations,
        remainingText: invocations.length ? remaining.replace(/[ \t]+/g, " ").trim() : input,
    };
}

/** The whitespace-delimited token around the cursor (for autocomplete), or null. */
export function getTokenAtCursor(
    value: string,
    cursor: number
): { token: string; start: number; end: number } | null {
    let start = Math.min(cursor, value.length);
    while (start > 0 && !isSpace(value[start - 1])) start--;
    let end = Math.min(cursor, value.length);
    while (end < value.length && !isSpace(value[end])) end++;
    if (start === end) return null;
    return { token: value.slice(start, end), start, end };
}
