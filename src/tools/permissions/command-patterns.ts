/**
 * Claude Code's Bash rule patterns, matched against a command's words:
 * `npm test` exact, `npm test:*` prefix on a word boundary, `*` anywhere as
 * any text (`git diff *` also matches `git diff` alone, as a single trailing
 * ` *` is optional).
 */
import { basename } from "node:path";
import { type Word, findHiddenCharacter } from "./command-words";

const STAR = Symbol("*");
/** A value only known at run time (an expansion). */
const DYNAMIC = Symbol("dynamic");
/** A space inside one word (a quoted space), distinct from the space between words. */
const WORD_SPACE = "\u0001";

type PatternElement = string | typeof STAR;
type SubjectElement = string | typeof DYNAMIC;

export interface CommandPattern {
    /** The rule text inside `Bash(...)`, as written. */
    source: string;
    /** Alternatives: a pattern matches when any one does. */
    alternatives: PatternElement[][];
    /** A whole compound command saved by an older allowlist (`npm ci && npm test`). */
    wholeCommand: string | null;
}

/** Unquoted shell operators mark a pattern as a whole saved command rather than one command's words. */
const SHELL_OPERATORS = /[;&|<>()`$\n]/;

function tokenize(text: string): PatternElement[] | string {
    const elements: PatternElement[] = [];
    let pendingSpace = false;
    const push = (element: PatternElement): void => {
        if (pendingSpace && elements.length > 0) elements.push(" ");
        pendingSpace = false;
        elements.push(element);
    };
    for (let i = 0; i < text.length; i++) {
        const ch = text[i]!;
        if (/\s/.test(ch)) {
            pendingSpace = true;
        } else if (ch === "'" || ch === '"') {
            const end = text.indexOf(ch, i + 1);
            if (end < 0) return `the pattern has an unclosed ${ch}`;
            const quoted = text.slice(i + 1, end);
            const value = ch === '"' ? quoted.replace(/\\(["\\$`])/g, "$1") : quoted;
            // An empty quoted word still separates words.
            if (value === "") push("");
            for (const part of value) push(part === " " ? WORD_SPACE : part);
            i = end;
        } else if (ch === "\\" && i + 1 < text.length) {
            push(text[++i]!);
        } else {
            push(ch === "*" ? STAR : ch);
        }
    }
    return elements.filter((element) => element !== "");
}

/** Parses the text inside `Bash(...)`; a string is the reason it is invalid. */
export function parseCommandPattern(source: string): CommandPattern | string {
    const text = source.trim();
    if (text === "") return "the command pattern is empty";
    if (findHiddenCharacter(source, true) !== null)
        return "the command pattern contains a control character";
    const prefix = text.endsWith(":*");
    const body = prefix ? text.slice(0, -2).trimEnd() : text;
    if (body.includes(":*"))
        return "`:*` may only end a pattern (use `*` for a wildcard elsewhere)";
    if (prefix && body === "")
        return "the pattern `:*` names no command (use `*` for every command)";
    const elements = tokenize(body);
    if (typeof elements === "string") return elements;
    const wholeCommand = !prefix && SHELL_OPERATORS.test(text) ? text : null;
    if (prefix)
        return { source: text, alternatives: [elements, [...elements, " ", STAR]], wholeCommand };
    const stars = elements.filter((element) => element === STAR).length;
    const last = elements.length;
    // A single trailing ` *` is optional: `ls *` matches `ls` and `ls -la`, never `lsof` (`ls*` does).
    if (stars === 1 && elements[last - 1] === STAR && elements[last - 2] === " ") {
        return { source: text, alternatives: [elements, elements.slice(0, -2)], wholeCommand };
    }
    return { source: text, alternatives: [elements], wholeCommand };
}

/** null when `pattern` (the text inside Bash(...)) is valid, else a one-line error. */
export function validateCommandPattern(pattern: string): string | null {
    const parsed = parseCommandPattern(pattern);
    return typeof parsed === "string" ? parsed : null;
}

function isSpace(element: PatternElement | SubjectElement | undefined): boolean {
    return element === " " || element === WORD_SPACE;
}

function subjectOf(words: readonly Word[], mode: "allow" | "deny"): SubjectElement[] {
    const subject: SubjectElement[] = [];
    words.forEach((word, index) => {
        if (index > 0) subject.push(" ");
        if (word.dynamic) subject.push(DYNAMIC);
        else
            for (const ch of word.value)
                subject.push(ch === " " && mode === "allow" ? WORD_SPACE : ch);
    });
    return subject;
}

/**
 * Whether a pattern and a subject can match. For deny (`possibly`), a dynamic
 * subject element stands for any text; for allow it only matches a `*`.
 */
function elementsMatch(
    pattern: readonly PatternElement[],
    subject: readonly SubjectElement[],
    possibly: boolean
): boolean {
    const n = pattern.length;
    const m = subject.length;
    const seen = new Uint8Array((n + 1) * (m + 1));
    const stack: [number, number][] = [[0, 0]];
    while (stack.length > 0) {
        const [i, j] = stack.pop()!;
        const key = i * (m + 1) + j;
        if (seen[key]) continue;
        seen[key] = 1;
        if (i === n && j === m) return true;
        const p = pattern[i];
        const s = subject[j];
        if (p === STAR) {
            stack.push([i + 1, j]);
            if (j < m) stack.push([i, j + 1]);
            continue;
        }
        if (s === DYNAMIC && possibly) {
            stack.push([i, j + 1]);
            if (i < n) stack.push([i + 1, j]);
            continue;
        }
        if (
            i < n &&
            j < m &&
            s !== DYNAMIC &&
            (p === s || (possibly && isSpace(p) && isSpace(s)))
        ) {
            stack.push([i + 1, j + 1]);
        }
    }
    return false;
}

/** The words of a command (after wrappers) match an allow pattern: every literal position is literal. */
export function allowMatches(pattern: CommandPattern, words: readonly Word[]): boolean {
    const subject = subjectOf(words, "allow");
    return pattern.alternatives.some((alternative) => elementsMatch(alternative, subject, false));
}

/**
 * The program an alternative names (its elements before the first space
 * between words) and the rest; `program` is null when it holds a `*`.
 */
function splitProgram(alternative: readonly PatternElement[]): {
    program: string | null;
    rest: PatternElement[];
} {
    const space = alternative.indexOf(" ");
    const head = space < 0 ? alternative : alternative.slice(0, space);
    const rest = space < 0 ? [] : alternative.slice(space);
    if (head.some((element) => element === STAR)) return { program: null, rest };
    return {
        program: head.map((element) => (element === WORD_SPACE ? " " : element)).join(""),
        rest,
    };
}

/** The programs a pattern's alternatives name; null for one that is itself a pattern (`*rm*`). */
export function programsOf(pattern: CommandPattern): (string | null)[] {
    return pattern.alternatives.map((alternative) => splitProgram(alternative).program);
}

/** An alternative and, when it names a program by path (`/bin/rm`), the same by base name. */
function byBaseName(alternative: PatternElement[]): PatternElement[][] {
    const { program, rest } = splitProgram(alternative);
    if (program === null || !program.includes("/") || basename(program) === "")
        return [alternative];
    return [alternative, [...basename(program), ...rest]];
}

/**
 * The words may match a deny or ask pattern once expansions are known. A
 * program is matched by its base name too, on either side (`/bin/rm` and
 * `rm`, `/usr/bin/../bin/rm`).
 */
export function possiblyMatches(pattern: CommandPattern, words: readonly Word[]): boolean {
    const variants = [words];
    const name = words[0];
    if (name && !name.dynamic && name.value.includes("/")) {
        variants.push([{ value: basename(name.value), dynamic: false }, ...words.slice(1)]);
    }
    const alternatives = pattern.alternatives.flatMap(byBaseName);
    return variants.some((variant) => {
        const subject = subjectOf(variant, "deny");
        return alternatives.some((alternative) => elementsMatch(alternative, subject, true));
    });
}
