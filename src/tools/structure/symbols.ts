/**
 * Symbol extraction for every language with a parser: declarations found by
 * the patterns of `symbol-rules` (brace languages) or by indentation
 * (Python), each with its line range. Shared by get_file_symbols,
 * get_file_outline, find_blocks and find_code_block.
 */
import { type CodeScan, scanCode, statementRange } from "./code-scan";
import type { ParserId } from "./language";
import { goGroupKeyword, goGroupSpecs } from "./go-groups";
import { analyzePythonLines, pythonSymbols } from "./python";
import {
    type DeclMatch,
    type LanguageRules,
    MAX_DECL_CHARS,
    type Matcher,
    type SymbolKind,
    rulesFor,
} from "./symbol-rules";

export type { SymbolKind } from "./symbol-rules";

export interface SymbolInfo {
    name: string;
    kind: SymbolKind;
    /** 1-based line of the declaration. */
    line: number;
    /** Last line of its body or statement. */
    endLine: number;
    /** The declaration, whitespace collapsed, without its body (≤ 160 characters). */
    signature: string;
    /** The enclosing symbol's name (a method's class). */
    container?: string;
    /** Nesting in the symbol tree: 0 at the top level. */
    level: number;
    exported?: boolean;
}

export interface ExtractOptions {
    /** Also declarations inside function bodies (find_code_block wants them). */
    nested?: boolean;
    /** Reuse a scan of the same lines. */
    scan?: CodeScan;
    /** How many symbols (from `fromLine` on) get a signature; the rest get "". Default: all. */
    signatures?: number;
    /** Symbols before this line get no signature (a later page is being listed). */
    fromLine?: number;
}

/** Hands out signatures to the first `left` symbols declared from line `from` on. */
export class SignatureBudget {
    constructor(
        private left: number,
        private readonly from: number
    ) {}
    take(line: number): boolean {
        if (line < this.from || this.left <= 0) return false;
        this.left--;
        return true;
    }
}

/** Symbols in line order; empty for a parser without symbol rules. */
export function extractSymbols(
    lines: readonly string[],
    parser: ParserId,
    options: ExtractOptions = {}
): SymbolInfo[] {
    const signatures = new SignatureBudget(options.signatures ?? Infinity, options.fromLine ?? 1);
    if (parser === "python") {
        return pythonSymbols(lines, analyzePythonLines(lines), options.nested ?? false, signatures);
    }
    const rules = rulesFor(parser);
    if (!rules) return [];
    const scan = options.scan ?? scanCode(lines, rules.dialect);
    return braceSymbols(lines, rules, scan, options.nested ?? false, signatures);
}

interface Container {
    endLine: number;
    depth: number;
    group: number;
    body: "members" | "top";
    name: string;
}

interface Open {
    endLine: number;
    name: string;
}

/** A cheap first-character test before any pattern runs. */
function worthMatching(line: string): boolean {
    let i = 0;
    while (i < line.length && (line.charCodeAt(i) === 32 || line.charCodeAt(i) === 9)) i++;
    if (i === line.length) return false;
    const c = line.charCodeAt(i);
    // "}" ")" "]" "*" "/" "," ";" "." start no declaration.
    if (c === 125 || c === 41 || c === 93 || c === 42 || c === 44 || c === 59 || c === 46) {
        return false;
    }
    return !(c === 47 && (line.charCodeAt(i + 1) === 47 || line.charCodeAt(i + 1) === 42));
}

function firstMatch(
    matchers: Matcher[],
    text: string,
    container: string | undefined
): DeclMatch | null {
    for (const matcher of matchers) {
        const found = matcher(text, container);
        if (found) return found;
    }
    return null;
}

function braceSymbols(
    lines: readonly string[],
    rules: LanguageRules,
    scan: CodeScan,
    nested: boolean,
    signatures: SignatureBudget
): SymbolInfo[] {
    const out: SymbolInfo[] = [];
    const containers: Container[] = [];
    const open: Open[] = [];
    for (let li = 0; li < lines.length; li++) {
        if (scan.skip[li]) continue;
        const raw = lines[li]!;
        if (!worthMatching(raw)) continue;
        const line = li + 1;
        while (containers.length > 0 && containers[containers.length - 1]!.endLine < line) {
            containers.pop();
        }
        while (open.length > 0 && open[open.length - 1]!.endLine < line) open.pop();
        const depth = scan.braceDepth[li]!;
        const group = scan.groupDepth[li]!;
        const top = containers[containers.length - 1];
        let matchers: Matcher[];
        if (depth === 0 && group === 0) matchers = rules.top;
        else if (top && depth === top.depth && group === top.group) {
            matchers = top.body === "members" ? rules.member : rules.top;
        } else if (nested) matchers = rules.nested;
        else continue;
        if (rules.dialect === "go" && depth === 0 && group === 0) {
            const keyword = goGroupKeyword(raw);
            if (keyword) {
                const specs = goGroupSpecs(lines, scan, li, keyword);
                for (const spec of specs.symbols) {
                    if (!signatures.take(spec.line)) spec.signature = "";
                    out.push(spec);
                }
                li = specs.lastLine;
                continue;
            }
        }
        if (matchers.length === 0) continue;
        let text = raw.length > MAX_DECL_CHARS ? raw.slice(0, MAX_DECL_CHARS) : raw;
        // `export /*@__NO_SIDE_EFFECTS__*/ function f`: a comment between words hides nothing.
        if (text.includes("/*")) text = text.replace(/\/\*.*?\*\//g, " ");
        const found = firstMatch(matchers, text, top?.body === "members" ? top.name : undefined);
        if (!found) continue;
        const range = statementRange(scan, lines, line, {
            expression: found.expression ?? false,
            typeBraces: rules.dialect === "js",
        });
        if (found.headName && range.body >= 0 && scan.line[range.body]! > line) {
            found.name = found.headName(headText(lines, li, scan, range.body)) || found.name;
        }
        if (found.resolveKind) {
            const last = Math.min(range.endLine, line + MAX_STATEMENT_LINES) - 1;
            const code = lines.slice(li, last + 1).filter((text) => !/^\s*\/\//.test(text));
            found.kind = found.resolveKind(code.join("\n"));
            if (found.keepIf && !found.keepIf(found.kind)) continue;
        }
        const symbol: SymbolInfo = {
            name: found.name,
            kind: found.kind,
            line,
            endLine: range.endLine,
            signature: signatures.take(line) ? signatureOf(lines, li, scan, range.body) : "",
            level: open.length,
        };
        const container = found.container ?? open[open.length - 1]?.name;
        if (container !== undefined) symbol.container = container;
        if (found.exported) symbol.exported = true;
        out.push(symbol);
        if (found.body && range.body >= 0) {
            containers.push({
                endLine: range.endLine,
                depth: scan.depth[range.body]! + 1,
                group: scan.group[range.body]!,
                body: found.body,
                name: found.name,
            });
        }
        if (range.endLine > line) open.push({ endLine: range.endLine, name: found.name });
    }
    return out;
}

/** How much of a statement is read to tell what its value is. */
const MAX_STATEMENT_LINES = 30;

/** The declaration's lines up to its body's `{` (at most 20), joined. */
function headText(lines: readonly string[], li: number, scan: CodeScan, body: number): string {
    const bodyLi = Math.min(scan.line[body]! - 1, li + 20);
    const parts: string[] = [];
    for (let k = li; k <= bodyLi; k++) {
        const text = lines[k]!.slice(0, MAX_DECL_CHARS);
        parts.push(k === scan.line[body]! - 1 ? text.slice(0, scan.col[body]!) : text);
    }
    return parts.join(" ");
}

const MAX_SIGNATURE = 160;

/** The declaration text up to its body's `{` (at most 4 lines), whitespace collapsed. */
export function signatureOf(
    lines: readonly string[],
    li: number,
    scan: CodeScan,
    body: number
): string {
    const bodyLi = body >= 0 ? scan.line[body]! - 1 : li;
    const last = Math.min(bodyLi, li + 3);
    const parts: string[] = [];
    for (let k = li; k <= last; k++) {
        let text = lines[k]!;
        if (k === bodyLi && body >= 0) text = text.slice(0, scan.col[body]!);
        parts.push(text.slice(0, 300).trim());
    }
    let sig = parts
        .join(" ")
        .replace(/\s+/g, " ")
        .replace(/([([])\s+/g, "$1")
        .replace(/,?\s+([)\]])/g, "$1")
        .trim();
    if (bodyLi > last) sig += " …";
    return sig.length > MAX_SIGNATURE ? `${sig.slice(0, MAX_SIGNATURE - 1)}…` : sig;
}

/** "class Server", "method Server.start", "function main". */
export function symbolLabel(symbol: SymbolInfo): string {
    const qualified =
        symbol.container && (symbol.kind === "method" || symbol.kind === "property")
            ? `${symbol.container}.${symbol.name}`
            : symbol.name;
    return `${symbol.kind} ${qualified}`;
}
