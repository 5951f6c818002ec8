/**
 * Declaration patterns per brace language. Each pattern is anchored at the
 * line start and sees at most `MAX_DECL_CHARS` characters, so no line (a
 * 1 MB minified one included) can make a regex expensive.
 */
import type { Dialect } from "./code-scan";
import type { ParserId } from "./language";
import { functionValue, initializerOf, tsClassMember } from "./ts-members";

export type SymbolKind =
    | "function"
    | "method"
    | "class"
    | "interface"
    | "type"
    | "enum"
    | "const"
    | "variable"
    | "namespace"
    | "module"
    | "struct"
    | "trait"
    | "impl"
    | "record"
    | "property"
    | "package"
    | "macro";

/** Characters of a line that declaration patterns look at. */
export const MAX_DECL_CHARS = 400;

export interface DeclMatch {
    name: string;
    kind: SymbolKind;
    exported?: boolean;
    /** What the body holds: members (methods) or declarations (like a namespace). */
    body?: "members" | "top";
    /** The owning type when the declaration says it (a Go method's receiver). */
    container?: string;
    /** Ends like an expression statement: its braces are a value or a type, never a body. */
    expression?: boolean;
    /** The name read from the whole head when it spans lines (`impl<…> Trait\n    for Type`). */
    headName?: (head: string) => string;
    /** The kind read from the whole statement, when its first line cannot tell. */
    resolveKind?: (statement: string) => SymbolKind;
    /** Dropped unless the resolved kind passes (nested scopes list functions only). */
    keepIf?: (kind: SymbolKind) => boolean;
}

/** `container` is the enclosing type's name, when there is one. */
export type Matcher = (text: string, container: string | undefined) => DeclMatch | null;

export interface LanguageRules {
    dialect: Dialect;
    /** File or namespace level. */
    top: Matcher[];
    /** Directly inside a class-like body. */
    member: Matcher[];
    /** Inside function bodies, when nested symbols are wanted. */
    nested: Matcher[];
}

interface RxOptions {
    exported?: number;
    body?: "members" | "top";
    /** Rejects (null) or renames a match. */
    refine?: (m: RegExpExecArray, text: string) => Partial<DeclMatch> | null;
}

function rx(
    re: RegExp,
    name: number,
    kind: SymbolKind | ((m: RegExpExecArray) => SymbolKind),
    options: RxOptions = {}
): Matcher {
    return (text) => {
        const m = re.exec(text);
        if (!m) return null;
        const base: DeclMatch = {
            name: m[name] ?? "",
            kind: typeof kind === "function" ? kind(m) : kind,
        };
        if (options.exported !== undefined) base.exported = m[options.exported] !== undefined;
        if (options.body) base.body = options.body;
        if (!options.refine) return base.name ? base : null;
        const refined = options.refine(m, text);
        if (refined === null) return null;
        const result = { ...base, ...refined };
        return result.name ? result : null;
    };
}

const CONTROL = new Set(
    (
        "if for while switch catch return function super this new typeof await else do try " +
        "foreach using lock fixed synchronized sizeof nameof default when throw yield case " +
        "goto checked unchecked delete void in of"
    ).split(" ")
);

// ---- TypeScript / JavaScript ---------------------------------------------

const TS_FUNCTION =
    /^\s*(export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?function\b\s*\*?\s*([A-Za-z_$][\w$]*)/;
const TS_CLASS =
    /^\s*(export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*)/;
const TS_INTERFACE = /^\s*(export\s+)?(?:default\s+)?(?:declare\s+)?interface\s+([A-Za-z_$][\w$]*)/;
const TS_TYPE = /^\s*(export\s+)?(?:declare\s+)?type\s+([A-Za-z_$][\w$]*)\s*[<=]/;
const TS_ENUM = /^\s*(export\s+)?(?:declare\s+)?(?:const\s+)?enum\s+([A-Za-z_$][\w$]*)/;
const TS_NAMESPACE =
    /^\s*(export\s+)?(?:declare\s+)?(?:namespace|module)\s+([A-Za-z_$][\w$.]*|"[^"]*"|'[^']*')\s*\{/;
const TS_VAR = /^\s*(export\s+)?(?:declare\s+)?(const|let|var)\s+([A-Za-z_$][\w$]*)\s*(.*)$/;
const TS_DEFAULT =
    /^\s*export\s+default\s+(?:async\s+)?(?:abstract\s+)?(function|class)\b\s*\*?\s*[({<]/;
/** `Foo.prototype.bar = function`, `exports.run = async () =>`. */
const JS_ASSIGNED =
    /^\s*([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+)\s*=\s*(?:async\s+)?(?:function\b|\([^)]{0,200}\)\s*=>|[A-Za-z_$][\w$]*\s*=>)/;

/**
 * `const x = …`: a function when the value is one (arrow or function
 * expression, also behind a type annotation). `const A extends …` is a
 * `const` type parameter, no variable.
 */
function tsVariable(m: RegExpExecArray): Partial<DeclMatch> | null {
    const rest = (m[4] ?? "").trim();
    if (rest !== "" && !/^(?:[:=;,]|!:)/.test(rest)) return null;
    const plain = m[2] === "const" ? "const" : "variable";
    const kindOf = (text: string): SymbolKind | null => {
        const value = initializerOf(text);
        if (value === null) return plain;
        const fn = functionValue(value);
        return fn === null ? null : fn ? "function" : plain;
    };
    const kind = kindOf(rest);
    if (kind !== null) return { kind, expression: true };
    // The line ends before the value shows what it is: read the whole statement.
    return {
        kind: "function",
        expression: true,
        resolveKind: (statement) =>
            kindOf(statement.slice(statement.indexOf(m[3]!) + m[3]!.length)) ?? plain,
    };
}

/** A class member, as `tsClassMember` reads it. */
const tsMember: Matcher = (text) => tsClassMember(text);

const tsFunction = rx(TS_FUNCTION, 2, "function", { exported: 1 });
const tsClass = rx(TS_CLASS, 2, "class", { exported: 1, body: "members" });
const tsVar = rx(TS_VAR, 3, "const", { exported: 1, refine: tsVariable });
const tsArrowVar: Matcher = (text, container) => {
    const m = tsVar(text, container);
    if (!m || m.kind !== "function") return null;
    return m.resolveKind ? { ...m, keepIf: (kind) => kind === "function" } : m;
};

const TS_RULES: LanguageRules = {
    dialect: "js",
    top: [
        tsFunction,
        tsClass,
        rx(TS_INTERFACE, 2, "interface", { exported: 1 }),
        rx(TS_TYPE, 2, "type", { exported: 1, refine: () => ({ expression: true }) }),
        rx(TS_ENUM, 2, "enum", { exported: 1 }),
        rx(TS_NAMESPACE, 2, "namespace", { exported: 1, body: "top" }),
        tsVar,
        rx(TS_DEFAULT, 1, (m) => (m[1] === "class" ? "class" : "function"), {
            refine: (m) => ({
                name: "default",
                exported: true,
                ...(m[1] === "class" ? { body: "members" } : {}),
            }),
        }),
        rx(JS_ASSIGNED, 1, "function"),
    ],
    member: [tsMember],
    nested: [tsFunction, tsClass, tsArrowVar],
};

// ---- Rust -----------------------------------------------------------------

const RS_VIS = "(pub(?:\\s*\\([^)]{0,80}\\))?\\s+)?";
const RS_FN = new RegExp(
    `^\\s*${RS_VIS}(?:default\\s+)?(?:const\\s+)?(?:async\\s+)?(?:unsafe\\s+)?(?:extern\\s+(?:"[^"]*"\\s+)?)?fn\\s+([A-Za-z_]\\w*)`
);
const RS_STRUCT = new RegExp(`^\\s*${RS_VIS}(struct|union)\\s+([A-Za-z_]\\w*)`);
const RS_ENUM = new RegExp(`^\\s*${RS_VIS}enum\\s+([A-Za-z_]\\w*)`);
const RS_TRAIT = new RegExp(`^\\s*${RS_VIS}(?:unsafe\\s+)?(?:auto\\s+)?trait\\s+([A-Za-z_]\\w*)`);
const RS_MOD = new RegExp(`^\\s*${RS_VIS}mod\\s+([A-Za-z_]\\w*)`);
const RS_TYPE = new RegExp(`^\\s*${RS_VIS}type\\s+([A-Za-z_]\\w*)`);
const RS_CONST = new RegExp(`^\\s*${RS_VIS}(?:const|static)\\s+(?:mut\\s+)?([A-Za-z_]\\w*)\\s*:`);
const RS_IMPL = /^\s*(?:unsafe\s+)?impl\b(.*)$/;
const RS_MACRO = /^\s*(?:#\[macro_export\]\s*)?macro_rules!\s*([A-Za-z_]\w*)/;

/** "impl<T: X> Display for Point<T> where …" → "Display for Point<T>". */
function implName(rest: string): string {
    let s = rest.trim();
    if (s.startsWith("<")) {
        let depth = 0;
        let i = 0;
        for (; i < s.length; i++) {
            if (s[i] === "<") depth++;
            // `->` in a bound (`F: FnMut() -> T`) closes nothing.
            else if (s[i] === ">" && s[i - 1] !== "-" && --depth === 0) break;
        }
        s = s.slice(i + 1).trim();
    }
    const cut = s.search(/\{|\bwhere\b/);
    return (cut < 0 ? s : s.slice(0, cut)).replace(/\s+/g, " ").trim();
}

const IMPL_HEAD = /^\s*(?:unsafe\s+)?impl\b/;
const expression = (): Partial<DeclMatch> => ({ expression: true });

const rsFn = rx(RS_FN, 2, "function");
const RUST_RULES: LanguageRules = {
    dialect: "rust",
    top: [
        rsFn,
        rx(RS_STRUCT, 3, (m) => (m[2] === "union" ? "type" : "struct")),
        rx(RS_ENUM, 2, "enum"),
        rx(RS_TRAIT, 2, "trait", { body: "members" }),
        rx(RS_IMPL, 1, "impl", {
            body: "members",
            refine: (m) => ({
                name: implName(m[1] ?? ""),
                headName: (head) => implName(head.replace(IMPL_HEAD, "")),
            }),
        }),
        rx(RS_MOD, 2, "module", { body: "top" }),
        rx(RS_TYPE, 2, "type", { refine: expression }),
        rx(RS_CONST, 2, "const", { refine: expression }),
        rx(RS_MACRO, 1, "macro"),
    ],
    member: [
        rx(RS_FN, 2, "method"),
        rx(RS_TYPE, 2, "type", { refine: expression }),
        rx(RS_CONST, 2, "const", { refine: expression }),
    ],
    nested: [rsFn],
};

// ---- Go -------------------------------------------------------------------

const GO_FUNC = /^func\s*(\([^)]{0,200}\))?\s*([A-Za-z_]\w*)/;
const GO_TYPE = /^type\s+([A-Za-z_]\w*)(?:\[[^\]]{0,200}\])?\s+(?:=\s*)?(struct|interface)?/;
const GO_VAR = /^(const|var)\s+([A-Za-z_]\w*)/;

/** "(s *Server[T])" → "Server". */
function receiverType(receiver: string): string {
    const inner = receiver.slice(1, -1).trim();
    const type = inner.slice(inner.search(/\s|$/)).trim() || inner;
    return type.replace(/^\*/, "").replace(/\[.*$/, "");
}

const GO_RULES: LanguageRules = {
    dialect: "go",
    top: [
        rx(GO_FUNC, 2, (m) => (m[1] ? "method" : "function"), {
            refine: (m) => (m[1] ? { container: receiverType(m[1]) } : {}),
        }),
        rx(GO_TYPE, 1, (m) => (m[2] === "struct" ? "struct" : m[2] ? "interface" : "type")),
        rx(GO_VAR, 2, (m) => (m[1] === "const" ? "const" : "variable"), { refine: expression }),
    ],
    member: [],
    nested: [],
};

// ---- Java / C# (methods by shape) -----------------------------------------

const MODIFIERS = new Set(
    (
        "public protected private internal static final abstract synchronized native default " +
        "strictfp virtual override sealed async extern unsafe new partial readonly volatile " +
        "transient required file"
    ).split(" ")
);
/** Words that precede a call, never a declared name. */
const NOT_A_TYPE = new Set(
    "return new throw else await yield case goto delete typeof in of is as out ref".split(" ")
);
const LEADING_ANNOTATIONS = /^\s*(?:@[\w.]+(?:\([^)]{0,200}\))?\s*|\[[^\]]{0,200}\]\s*)+/;
const TYPE_LIKE = /^[\w$<>[\],.?@]+$/;
const NAME_LIKE = /^[A-Za-z_$][\w$.]*$/;

/** A method or constructor declaration in a class body, recognized by its shape. */
function callable(text: string, container: string | undefined): DeclMatch | null {
    const body = text.replace(LEADING_ANNOTATIONS, "");
    const paren = body.indexOf("(");
    if (paren <= 0) return null;
    const head = body.slice(0, paren).trim();
    if (head === "" || /[=;:"'{}()]/.test(head)) return null;
    const words = head
        .replace(/\s*,\s*/g, ",")
        .replace(/<\s+/g, "<")
        .replace(/\s+>/g, ">")
        .split(/\s+/);
    const name = words[words.length - 1]!.replace(/<.*>$/, "");
    if (!NAME_LIKE.test(name) || CONTROL.has(name)) return null;
    const before = words.slice(0, -1).filter((w) => !MODIFIERS.has(w));
    const short = name.slice(name.lastIndexOf(".") + 1);
    if (before.length === 0) {
        return short === container ? { name, kind: "method" } : null;
    }
    if (before.length > 2 || !before.every((w) => TYPE_LIKE.test(w) && !NOT_A_TYPE.has(w))) {
        return null;
    }
    return { name, kind: "method" };
}

const JAVA_TYPE =
    /^\s*(?:@[\w.]+(?:\([^)]{0,200}\))?\s+)*(?:(?:public|protected|private|static|final|abstract|sealed|non-sealed|strictfp)\s+)*(class|interface|enum|record|@interface)\s+([A-Za-z_$][\w$]*)/;
const javaType = rx(
    JAVA_TYPE,
    2,
    (m) =>
        m[1] === "enum"
            ? "enum"
            : m[1] === "record"
              ? "record"
              : m[1] === "class"
                ? "class"
                : "interface",
    { body: "members" }
);
const JAVA_RULES: LanguageRules = {
    dialect: "java",
    top: [rx(/^\s*package\s+([\w.]+)\s*;/, 1, "package"), javaType],
    member: [javaType, callable],
    nested: [],
};

const CS_NAMESPACE = /^\s*namespace\s+([\w.]+)/;
const CS_TYPE =
    /^\s*(?:\[[^\]]{0,200}\]\s*)*(?:(?:public|protected|private|internal|static|sealed|abstract|partial|readonly|ref|unsafe|new|file)\s+)*(class|struct|interface|enum|record(?:\s+struct|\s+class)?)\s+([A-Za-z_]\w*)/;
const CS_PROPERTY =
    /^\s*(?:\[[^\]]{0,200}\]\s*)*(?:(?:public|protected|private|internal|static|virtual|override|abstract|sealed|new|readonly|required|unsafe)\s+)*[\w<>[\],.?]+\??\s+([A-Za-z_]\w*)\s*(?:\{\s*(?:(?:public|private|protected|internal)\s+)?(?:get|set|init)\b|=>)/;
const csType = rx(
    CS_TYPE,
    2,
    (m) =>
        m[1] === "class"
            ? "class"
            : m[1] === "struct"
              ? "struct"
              : m[1] === "interface"
                ? "interface"
                : m[1] === "enum"
                  ? "enum"
                  : "record",
    { body: "members" }
);
const CSHARP_RULES: LanguageRules = {
    dialect: "csharp",
    top: [rx(CS_NAMESPACE, 1, "namespace", { body: "top" }), csType],
    member: [csType, callable, rx(CS_PROPERTY, 1, "property")],
    nested: [],
};

// ---- PHP ------------------------------------------------------------------

const PHP_NAMESPACE = /^\s*namespace\s+([\w\\]+)/;
const PHP_TYPE =
    /^\s*(?:(?:abstract|final|readonly)\s+)*(class|interface|trait|enum)\s+([A-Za-z_]\w*)/;
const PHP_FUNCTION =
    /^\s*(?:(?:public|protected|private|static|abstract|final)\s+)*function\s+&?\s*([A-Za-z_]\w*)/;
const phpType = rx(
    PHP_TYPE,
    2,
    (m) =>
        m[1] === "trait"
            ? "trait"
            : m[1] === "enum"
              ? "enum"
              : m[1] === "class"
                ? "class"
                : "interface",
    { body: "members" }
);
const PHP_RULES: LanguageRules = {
    dialect: "php",
    top: [
        rx(PHP_NAMESPACE, 1, "namespace", { body: "top" }),
        phpType,
        rx(PHP_FUNCTION, 1, "function"),
    ],
    member: [rx(PHP_FUNCTION, 1, "method")],
    nested: [rx(PHP_FUNCTION, 1, "function")],
};

/** Rules for a brace language; null for Python (indentation) and non-code parsers. */
export function rulesFor(parser: ParserId): LanguageRules | null {
    switch (parser) {
        case "typescript":
        case "javascript":
            return TS_RULES;
        case "rust":
            return RUST_RULES;
        case "go":
            return GO_RULES;
        case "java":
            return JAVA_RULES;
        case "csharp":
            return CSHARP_RULES;
        case "php":
            return PHP_RULES;
        default:
            return null;
    }
}
