/**
 * TypeScript/JavaScript declarations that a regular expression cannot read
 * reliably: class members (names that are keywords or quoted, generics with
 * nested `<…>`, `{…}` or `(…)`, arrow-function properties) and where a
 * variable's initializer starts behind a type annotation such as
 * `(a: T) => U` or `{ a: B }`. Each scan is bounded by the line it reads.
 */

const MODIFIER = new Set(
    "public private protected static async readonly override abstract declare accessor".split(" ")
);

function isIdentStart(c: number): boolean {
    return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36 || c > 127;
}

function isIdent(c: number): boolean {
    return isIdentStart(c) || (c >= 48 && c <= 57);
}

function skipSpace(text: string, i: number): number {
    while (i < text.length && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
    return i;
}

function wordAt(text: string, i: number): string {
    let j = i;
    while (j < text.length && isIdent(text.charCodeAt(j))) j++;
    return text.slice(i, j);
}

/**
 * Index just past the bracket that closes the one at `i` (`<`, `(`, `[` or
 * `{`, any of them nested, strings skipped, `=>` not a closing `>`); -1 when
 * the line ends first.
 */
export function skipBalanced(text: string, i: number): number {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
        const c = text.charCodeAt(j);
        if (c === 34 || c === 39 || c === 96) {
            let k = j + 1;
            while (k < text.length && text.charCodeAt(k) !== c)
                k += text.charCodeAt(k) === 92 ? 2 : 1;
            j = k;
            continue;
        }
        if (c === 60 || c === 40 || c === 91 || c === 123) depth++;
        else if (c === 62 && text.charCodeAt(j - 1) === 61) continue;
        else if (c === 62 || c === 41 || c === 93 || c === 125) {
            if (--depth === 0) return j + 1;
        }
    }
    return -1;
}

/**
 * The text after the top-level `=` that starts an initializer (`x: T = value`),
 * or null when there is none on this line. `=>`, `==`, `<=`, `>=`, `!=` inside
 * a type annotation are not it.
 */
export function initializerOf(text: string): string | null {
    for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === 60 || c === 40 || c === 91 || c === 123) {
            const end = skipBalanced(text, i);
            if (end < 0) return null;
            i = end - 1;
            continue;
        }
        if (c !== 61) continue;
        const next = text.charCodeAt(i + 1);
        const prev = text.charCodeAt(i - 1);
        if (next === 62 || next === 61 || prev === 33 || prev === 60 || prev === 62) {
            i++;
            continue;
        }
        return text.slice(i + 1);
    }
    return null;
}

/**
 * Whether an initializer is a function: `function…`, `(…) =>`, `<T,>(…) =>`,
 * `async x =>`. null when the line ends before that is known (`= (` with the
 * parameters, or a parenthesized value, on the next lines).
 */
export function functionValue(value: string): boolean | null {
    let v = value.trim();
    if (/^(?:async\s+)?function\b/.test(v)) return true;
    v = v.replace(/^async\b\s*/, "");
    if (/^[A-Za-z_$][\w$]*\s*=>/.test(v)) return true;
    if (v.startsWith("<")) {
        const end = skipBalanced(v, 0);
        if (end < 0) return null;
        v = v.slice(end).trim();
    }
    if (!v.startsWith("(")) return v === "" ? null : false;
    const end = skipBalanced(v, 0);
    if (end < 0) return null;
    const rest = v.slice(end).trim();
    if (rest === "") return null;
    if (rest.startsWith("=>")) return true;
    return rest.startsWith(":") ? rest.includes("=>") || null : false;
}

/** A function, or possibly one (the line ends too early to know). */
export function isFunctionValue(value: string): boolean {
    return functionValue(value) !== false;
}

export interface TsMember {
    name: string;
    /** A method, or a property initialized with a function. */
    kind: "method";
}

/** The member name at `i`: identifier, `#private`, `"quoted"`, `'quoted'` or `[computed]`. */
function memberName(text: string, i: number): { name: string; end: number } | null {
    const c = text.charCodeAt(i);
    if (c === 34 || c === 39) {
        const close = text.indexOf(text[i]!, i + 1);
        return close < 0 ? null : { name: text.slice(i + 1, close), end: close + 1 };
    }
    if (c === 91) {
        const end = skipBalanced(text, i);
        return end < 0 ? null : { name: text.slice(i, end), end };
    }
    const start = i;
    if (c === 35) i++;
    if (!isIdentStart(text.charCodeAt(i))) return null;
    const word = wordAt(text, i);
    return { name: text.slice(start, i + word.length), end: i + word.length };
}

/**
 * A class member that get_file_symbols lists: a method, constructor or
 * accessor (overloads and abstract ones too), or a property whose initializer
 * is a function. Inside a class body no statement can start a line, so a
 * keyword (`default(`, `catch(`) is a method name here.
 */
export function tsClassMember(text: string): TsMember | null {
    let i = skipSpace(text, 0);
    // Modifiers, unless the word is itself the member's name (`static(`, `get = …`).
    for (;;) {
        const word = wordAt(text, i);
        if (!word) break;
        const after = skipSpace(text, i + word.length);
        if (after === i + word.length) break;
        const next = text.charCodeAt(after);
        const nameFollows =
            isIdentStart(next) ||
            next === 35 ||
            next === 34 ||
            next === 39 ||
            next === 91 ||
            next === 42;
        if (!nameFollows || !(MODIFIER.has(word) || word === "get" || word === "set")) break;
        i = after;
    }
    if (text.charCodeAt(i) === 42) i = skipSpace(text, i + 1);
    const named = memberName(text, i);
    if (!named) return null;
    let j = skipSpace(text, named.end);
    if (text.charCodeAt(j) === 63 || text.charCodeAt(j) === 33) j = skipSpace(text, j + 1);
    const c = text.charCodeAt(j);
    if (c === 60) {
        const end = skipBalanced(text, j);
        // Type parameters that go on to the next line: a generic method.
        if (end < 0) return { name: named.name, kind: "method" };
        j = skipSpace(text, end);
        return text.charCodeAt(j) === 40 ? { name: named.name, kind: "method" } : null;
    }
    if (c === 40) return { name: named.name, kind: "method" };
    if (c === 61 || c === 58) {
        const value = c === 61 ? text.slice(j + 1) : initializerOf(text.slice(j + 1));
        return value !== null && isFunctionValue(value)
            ? { name: named.name, kind: "method" }
            : null;
    }
    return null;
}
