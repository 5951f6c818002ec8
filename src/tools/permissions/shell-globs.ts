/**
 * Words as bash expands them: brace (`{a,b}`, `{1..3}`), tilde (`~`, `~user`,
 * `~+`) and pathname expansion (`*`, `?`, `[…]`, `[!…]`, `[[:alpha:]]`), read
 * from a word's glob text (`shell-glob-text.ts`) as path components.
 *
 * The judge never allows what a pattern could reach: it matches the pattern
 * against the paths and programs rules protect ("could these meet?"), and
 * uses the disk only to find more matches to refuse.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import picomatch from "picomatch";
import { bracketEnd, expandBraces } from "./shell-glob-text";

/** Directory entries read while expanding a pattern against the disk. */
const MAX_DISK_ENTRIES = 2000;

const POSIX_CLASSES: Record<string, string> = {
    alpha: "a-zA-Z",
    digit: "0-9",
    alnum: "a-zA-Z0-9",
    upper: "A-Z",
    lower: "a-z",
    space: "\\s",
    blank: " \\t",
    punct: "!-\\/:-@\\[-`{-~",
    xdigit: "0-9A-Fa-f",
    word: "\\w",
    cntrl: "\\x00-\\x1f\\x7f",
    print: "\\x20-\\x7e",
    graph: "\\x21-\\x7e",
    ascii: "\\x00-\\x7f",
};

const regexEscape = (text: string): string => text.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");

/** A bracket expression as a regex class; an unknown class matches any character. */
function bracketClass(body: string): string {
    let negate = false;
    let i = 0;
    if (body[0] === "!" || body[0] === "^") {
        negate = true;
        i = 1;
    }
    let out = "";
    for (; i < body.length; i++) {
        const ch = body[i]!;
        if (ch === "\\" && i + 1 < body.length) {
            out += regexEscape(body[++i]!);
        } else if (ch === "[" && /^\[[:=.]/.test(body.slice(i))) {
            const kind = body[i + 1]!;
            const close = body.indexOf(`${kind}]`, i + 2);
            const name = body.slice(i + 2, close);
            if (kind === ":") {
                const cls = POSIX_CLASSES[name];
                if (cls === undefined) return negate ? "[^\\s\\S]" : "[\\s\\S]";
                out += cls;
            } else out += regexEscape(name);
            i = close + 1;
        } else if (ch === "-" && out !== "" && i + 1 < body.length) {
            out += "-";
        } else out += regexEscape(ch);
    }
    return `[${negate ? "^" : ""}${out}]`;
}

/** One path component of a pattern. */
export type Component =
    | { kind: "literal"; text: string }
    | { kind: "glob"; source: string; regex: RegExp; regexNoCase: RegExp }
    /** Any number of whole components: `**`, or a directory only known when it runs (`~user`). */
    | { kind: "any" };

function unescape(text: string): string {
    return text.replace(/\\(.)/gs, "$1");
}

/** One component of a glob text (no unescaped `/` in it). */
export function componentOf(glob: string): Component {
    if (glob === "**") return { kind: "any" };
    let source = "";
    let pattern = false;
    for (let i = 0; i < glob.length; i++) {
        const ch = glob[i]!;
        if (ch === "\\") {
            if (i + 1 < glob.length) source += regexEscape(glob[++i]!);
        } else if (ch === "*") {
            source += "[^/]*";
            pattern = true;
        } else if (ch === "?") {
            source += "[^/]";
            pattern = true;
        } else if (ch === "[" && bracketEnd(glob, i) > 0) {
            const end = bracketEnd(glob, i);
            source += bracketClass(glob.slice(i + 1, end));
            pattern = true;
            i = end;
        } else source += regexEscape(ch);
    }
    if (!pattern) return { kind: "literal", text: unescape(glob) };
    return {
        kind: "glob",
        source: glob,
        regex: new RegExp(`^${source}$`, "u"),
        regexNoCase: new RegExp(`^${source}$`, "iu"),
    };
}

/** Splits a glob text on unescaped `/`. */
function splitPath(glob: string): string[] {
    const parts: string[] = [];
    let start = 0;
    for (let i = 0; i < glob.length; i++) {
        if (glob[i] === "\\") i++;
        else if (glob[i] === "/") {
            parts.push(glob.slice(start, i));
            start = i + 1;
        }
    }
    parts.push(glob.slice(start));
    return parts;
}

/**
 * The paths a word may name, as component lists (one per brace alternative);
 * null when there are too many alternatives. A relative word starts from
 * `base` (the working directory's components, `[]` to keep it relative, or
 * `[any]` when unknown); `~` is `home`, `~+` the working directory, and
 * `~user` or `~-` a directory only known when it runs (`unknownDirectory`:
 * anywhere by default). `..` is lexical.
 */
export function pathPatterns(
    glob: string,
    base: readonly Component[],
    home: string,
    unknownDirectory: Component = { kind: "any" }
): Component[][] | null {
    const alternatives = expandBraces(glob);
    if (alternatives === null) return null;
    return alternatives.map((alternative) => {
        let text = alternative;
        let prefix: readonly Component[] = base;
        const tilde = /^~([^/]*)(\/|$)/.exec(text);
        if (tilde) {
            const user = tilde[1]!;
            if (user === "") prefix = literalComponents(home);
            else if (user !== "+") prefix = [unknownDirectory];
            text = text.slice(tilde[0].length);
        } else if (text.startsWith("/")) prefix = [];
        const out: Component[] = [...prefix];
        for (const part of splitPath(text)) {
            if (part === "" || part === ".") continue;
            if (part === "..") {
                // Lexically, as for a literal path: a pattern's match is a folder like any
                // other (where a symlink leads, the matches on disk tell).
                if (out[out.length - 1]?.kind !== "any") out.pop();
                continue;
            }
            out.push(componentOf(part));
        }
        return out;
    });
}

/** The last component of each brace alternative of a word (a program's name), null when unknown. */
export function lastComponents(glob: string): Component[] | null {
    const alternatives = expandBraces(glob);
    if (alternatives === null) return null;
    return alternatives.map((alternative) => {
        const parts = splitPath(alternative).filter((part) => part !== "");
        const last = parts[parts.length - 1];
        // `~user` alone, `..`: a directory, which bash cannot run; keep it unknown.
        return last === undefined || last === ".." || last.startsWith("~")
            ? { kind: "any" }
            : componentOf(last);
    });
}

export function literalComponents(path: string): Component[] {
    return path
        .split("/")
        .filter((part) => part !== "" && part !== ".")
        .map((text) => ({ kind: "literal", text }));
}

/**
 * How sure a "could these meet" answer is. Guess: only if a directory only
 * known when it runs is exactly a folder a rule names (`"$D/notes.txt"` in a
 * folder `.env/`).
 */
export const Overlap = { No: 0, Guess: 1, Maybe: 2, Yes: 3 } as const;
export type Overlap = (typeof Overlap)[keyof typeof Overlap];

/** One component of a rule's glob (picomatch syntax), compiled on first use. */
export interface RuleComponent {
    source: string;
    literal: boolean;
    test: (name: string) => boolean;
}

const RULE_META = /[*?[\]{}()!+@\\]/;

export function ruleComponentsOf(glob: string, caseInsensitive: boolean): RuleComponent[] {
    return glob
        .split("/")
        .filter((part) => part !== "")
        .map((source) => {
            if (!RULE_META.test(source)) {
                const literal = caseInsensitive ? source.toLowerCase() : source;
                return {
                    source,
                    literal: true,
                    test: (name: string) =>
                        (caseInsensitive ? name.toLowerCase() : name) === literal,
                };
            }
            const matcher = picomatch(source, { dot: true, nocase: caseInsensitive });
            return { source, literal: false, test: (name: string) => matcher(name) };
        });
}

/** The literal text before the first and after the last unescaped pattern character. */
function fixedEnds(source: string, meta: RegExp): { prefix: string; suffix: string } {
    const chars: { ch: string; literal: boolean }[] = [];
    for (let i = 0; i < source.length; i++) {
        if (source[i] === "\\" && i + 1 < source.length)
            chars.push({ ch: source[++i]!, literal: true });
        else chars.push({ ch: source[i]!, literal: !meta.test(source[i]!) });
    }
    const first = chars.findIndex((c) => !c.literal);
    let last = chars.length - 1;
    while (last >= 0 && chars[last]!.literal) last--;
    const text = (list: typeof chars) => list.map((c) => c.ch).join("");
    return { prefix: text(chars.slice(0, first)), suffix: text(chars.slice(last + 1)) };
}

const compatible = (a: string, b: string, atEnd: boolean): boolean =>
    atEnd ? a.endsWith(b) || b.endsWith(a) : a.startsWith(b) || b.startsWith(a);

/** A name starting with `.` is matched only by a pattern that starts with a literal `.` (unless dotglob is on). */
function hiddenFrom(word: Component & { kind: "glob" }, name: string, dotglob: boolean): boolean {
    return !dotglob && name.startsWith(".") && !/^\\?\./.test(word.source);
}

function componentOverlap(
    word: Component,
    rule: RuleComponent,
    caseInsensitive: boolean,
    dotglob: boolean
): Overlap {
    if (word.kind === "any") return Overlap.Yes;
    if (word.kind === "literal") return rule.test(word.text) ? Overlap.Yes : Overlap.No;
    if (rule.literal) {
        const regex = caseInsensitive ? word.regexNoCase : word.regex;
        if (hiddenFrom(word, rule.source, dotglob)) return Overlap.No;
        return regex.test(rule.source) ? Overlap.Yes : Overlap.No;
    }
    // Two patterns: they cannot meet when their fixed starts or ends differ.
    const fold = (text: string) => (caseInsensitive ? text.toLowerCase() : text);
    const a = fixedEnds(fold(word.source), /[*?[\]]/);
    const b = fixedEnds(fold(rule.source), /[*?[\]{}()!+@]/);
    if (!compatible(a.prefix, b.prefix, false) || !compatible(a.suffix, b.suffix, true))
        return Overlap.No;
    if (hiddenFrom(word, b.prefix, dotglob)) return Overlap.No;
    return Overlap.Maybe;
}

export interface RulePath {
    components: RuleComponent[];
    /** The rule names a folder: it covers everything below what it matches. */
    coversBelow: boolean;
    caseInsensitive: boolean;
}

/** Whether some path both a word's pattern and a rule's glob match exists: Yes, Maybe (two patterns meet), or No. */
export function pathOverlap(word: readonly Component[], rule: RulePath, dotglob: boolean): Overlap {
    const n = word.length;
    const m = rule.components.length;
    const memo = new Map<number, Overlap>();
    /** `afterAny`: the last rule component was taken by an unknown directory. */
    const at = (i: number, j: number, afterAny: boolean): Overlap => {
        const key = (i * (m + 1) + j) * 2 + (afterAny ? 1 : 0);
        const known = memo.get(key);
        if (known !== undefined) return known;
        memo.set(key, Overlap.No);
        let result: Overlap = Overlap.No;
        const ruleComponent = rule.components[j];
        const wordComponent = word[i];
        if (j === m) {
            if (i === n || word.slice(i).every((c) => c.kind === "any")) result = Overlap.Yes;
            else if (rule.coversBelow) result = afterAny ? Overlap.Guess : Overlap.Yes;
        } else if (ruleComponent!.source === "**") {
            result = Math.max(
                at(i, j + 1, afterAny),
                i < n ? at(i + 1, j, false) : Overlap.No
            ) as Overlap;
        } else if (i === n) {
            result = Overlap.No;
        } else if (wordComponent!.kind === "any") {
            // An unknown directory may be anything, but that it names this very folder is a guess.
            const through = Math.max(at(i, j + 1, true), at(i + 1, j + 1, true));
            result = Math.max(at(i + 1, j, false), Math.min(Overlap.Maybe, through)) as Overlap;
        } else {
            const here = componentOverlap(
                wordComponent!,
                ruleComponent!,
                rule.caseInsensitive,
                dotglob
            );
            result =
                here === Overlap.No
                    ? Overlap.No
                    : (Math.min(here, at(i + 1, j + 1, false)) as Overlap);
        }
        memo.set(key, result);
        return result;
    };
    return at(0, 0, false);
}

/**
 * Existing paths a pattern matches now, read from the disk (at most
 * MAX_DISK_ENTRIES directory entries): more places to refuse, never a reason
 * to allow, since the command itself may create others first.
 */
export function matchesOnDisk(pattern: readonly Component[], dotglob: boolean): string[] {
    let budget = MAX_DISK_ENTRIES;
    let paths = ["/"];
    for (const component of pattern) {
        if (component.kind === "any") return [];
        const next: string[] = [];
        for (const dir of paths) {
            if (component.kind === "literal") {
                next.push(join(dir, component.text));
                continue;
            }
            let names: string[];
            try {
                names = readdirSync(dir);
            } catch {
                continue;
            }
            budget -= names.length;
            if (budget < 0) return [];
            const matching = names.filter(
                (name) => component.regex.test(name) && !hiddenFrom(component, name, dotglob)
            );
            next.push(...matching.map((name) => join(dir, name)));
        }
        paths = next;
        if (paths.length === 0) return [];
    }
    return paths;
}
