/**
 * Python structure by indentation. One lexing pass marks the lines that
 * continue a statement (open brackets, a trailing backslash, triple-quoted
 * strings) so that only real statements decide where blocks end.
 */
import { MAX_DECL_CHARS } from "./symbol-rules";
import type { SignatureBudget, SymbolInfo } from "./symbols";

export interface PythonLines {
    /** Per line: 1 when it continues the statement above (or is inside a string). */
    continued: Uint8Array;
    /** Per line: indentation width, or -1 for a blank or comment-only line. */
    indent: Int32Array;
}

/** Lexes the file once: brackets, strings and comments, never a regex. */
export function analyzePythonLines(lines: readonly string[]): PythonLines {
    const n = lines.length;
    const continued = new Uint8Array(n);
    const indent = new Int32Array(n);
    let brackets = 0;
    let triple = "";
    let backslash = false;
    for (let li = 0; li < n; li++) {
        const line = lines[li]!;
        continued[li] = brackets > 0 || triple !== "" || backslash ? 1 : 0;
        backslash = false;
        let i = 0;
        while (i < line.length && (line.charCodeAt(i) === 32 || line.charCodeAt(i) === 9)) i++;
        const first = line.charCodeAt(i);
        indent[li] = i === line.length || (first === 35 && triple === "") ? -1 : i;
        while (i < line.length) {
            if (triple !== "") {
                const end = line.indexOf(triple, i);
                if (end < 0) {
                    i = line.length;
                    break;
                }
                triple = "";
                i = end + 3;
                continue;
            }
            const c = line.charCodeAt(i);
            if (c === 35) break;
            if (c === 34 || c === 39) {
                const quote = line[i]!;
                if (line.startsWith(quote.repeat(3), i)) {
                    triple = quote.repeat(3);
                    i += 3;
                    continue;
                }
                let j = i + 1;
                for (; j < line.length; j++) {
                    const d = line.charCodeAt(j);
                    if (d === 92) j++;
                    else if (d === c) break;
                }
                i = j + 1;
                continue;
            }
            if (c === 40 || c === 91 || c === 123) brackets++;
            else if ((c === 41 || c === 93 || c === 125) && brackets > 0) brackets--;
            else if (c === 92 && i === line.length - 1) backslash = true;
            i++;
        }
    }
    return { continued, indent };
}

const DEF = /^(\s*)(async\s+)?def\s+([A-Za-z_]\w*)/;
const CLASS = /^(\s*)class\s+([A-Za-z_]\w*)/;
const CONSTANT = /^([A-Z][A-Z0-9_]*)\s*(?::[^=]{0,100})?=(?!=)/;

interface OpenBlock {
    indent: number;
    symbol: SymbolInfo | null;
}

function signatureOf(lines: readonly string[], info: PythonLines, li: number): string {
    const parts: string[] = [];
    for (let k = li; k < lines.length && k < li + 4; k++) {
        if (k > li && !info.continued[k]) break;
        parts.push(lines[k]!.slice(0, 200).trim());
    }
    let sig = parts
        .join(" ")
        .replace(/\s+/g, " ")
        .replace(/\(\s+/g, "(")
        .replace(/,?\s+\)/g, ")");
    sig = sig.replace(/:\s*(#.*)?$/, "");
    return sig.length > 160 ? `${sig.slice(0, 159)}…` : sig;
}

/** Classes, functions, methods and top-level constants; nested ones when asked. */
export function pythonSymbols(
    lines: readonly string[],
    info: PythonLines,
    nested: boolean,
    signatures: SignatureBudget
): SymbolInfo[] {
    const out: SymbolInfo[] = [];
    const stack: OpenBlock[] = [];
    let lastStatement = 0;
    const close = (toIndent: number) => {
        while (stack.length > 0 && stack[stack.length - 1]!.indent >= toIndent) {
            const block = stack.pop()!;
            if (block.symbol) block.symbol.endLine = Math.max(block.symbol.line, lastStatement);
        }
    };
    for (let li = 0; li < lines.length; li++) {
        const indent = info.indent[li]!;
        if (info.continued[li]) {
            if (indent >= 0) lastStatement = li + 1;
            continue;
        }
        if (indent < 0) continue;
        close(indent);
        lastStatement = li + 1;
        const text = lines[li]!.slice(0, MAX_DECL_CHARS);
        const def = DEF.exec(text);
        const cls = def ? null : CLASS.exec(text);
        const owner = innermostSymbol(stack);
        if (def || cls) {
            const name = def ? def[3]! : cls![2]!;
            const inClass = owner?.kind === "class";
            const inFunction = owner !== null && !inClass;
            let symbol: SymbolInfo | null = null;
            if (!inFunction || nested) {
                symbol = {
                    name,
                    kind: cls ? "class" : inClass ? "method" : "function",
                    line: li + 1,
                    endLine: li + 1,
                    signature: signatures.take(li + 1) ? signatureOf(lines, info, li) : "",
                    level: stack.filter((b) => b.symbol).length,
                };
                if (owner) symbol.container = owner.name;
                out.push(symbol);
            }
            stack.push({ indent, symbol });
            continue;
        }
        if (indent === 0) {
            const constant = CONSTANT.exec(text);
            if (constant) {
                out.push({
                    name: constant[1]!,
                    kind: "const",
                    line: li + 1,
                    endLine: li + 1,
                    signature: signatures.take(li + 1) ? signatureOf(lines, info, li) : "",
                    level: 0,
                });
            }
        }
        if (/:\s*(#.*)?$/.test(text)) stack.push({ indent, symbol: null });
    }
    close(0);
    fixConstantEnds(out, lines, info);
    return out;
}

function innermostSymbol(stack: readonly OpenBlock[]): SymbolInfo | null {
    for (let i = stack.length - 1; i >= 0; i--) {
        const symbol = stack[i]!.symbol;
        if (symbol) return symbol;
    }
    return null;
}

/** A multi-line constant (a dict literal, say) ends at its last continued line. */
function fixConstantEnds(symbols: SymbolInfo[], lines: readonly string[], info: PythonLines): void {
    for (const symbol of symbols) {
        if (symbol.kind !== "const") continue;
        let end = symbol.line;
        while (end < lines.length && info.continued[end]) end++;
        symbol.endLine = end;
    }
}

export interface LineSpan {
    startLine: number;
    endLine: number;
    count: number;
}

/** The import statements at the top level: their count and the span they cover. */
export function pythonImports(lines: readonly string[], info: PythonLines): LineSpan | null {
    let count = 0;
    let start = 0;
    let end = 0;
    for (let li = 0; li < lines.length; li++) {
        if (info.continued[li] || info.indent[li] !== 0) continue;
        if (!/^(?:import|from)\s/.test(lines[li]!)) continue;
        count++;
        if (start === 0) start = li + 1;
        end = li + 1;
        while (end < lines.length && info.continued[end]) end++;
    }
    return count === 0 ? null : { startLine: start, endLine: end, count };
}

/** The `if __name__ == "__main__":` block, if any. */
export function pythonMainGuard(
    lines: readonly string[],
    info: PythonLines
): { startLine: number; endLine: number } | null {
    for (let li = 0; li < lines.length; li++) {
        if (info.indent[li] !== 0 || info.continued[li]) continue;
        if (!/^if\s+__name__\s*==\s*["']__main__["']\s*:/.test(lines[li]!)) continue;
        return { startLine: li + 1, endLine: pythonBlockEnd(lines, info, li + 1) };
    }
    return null;
}

/** Last line of the indented block whose header is `line` (1-based). */
export function pythonBlockEnd(lines: readonly string[], info: PythonLines, line: number): number {
    const base = info.indent[line - 1]!;
    let end = line;
    for (let li = line; li < lines.length; li++) {
        const indent = info.indent[li]!;
        if (indent < 0) continue;
        if (!info.continued[li] && indent <= base) break;
        end = li + 1;
    }
    return end;
}

/**
 * The innermost block (a statement ending with ":") that holds `line`, header
 * included: the line itself when it is a header, else its nearest less
 * indented statement that is one.
 */
export function pythonEnclosingBlock(
    lines: readonly string[],
    info: PythonLines,
    line: number
): { startLine: number; endLine: number } | null {
    let li = line - 1;
    while (li > 0 && info.continued[li]) li--;
    const isHeader = (k: number) => /:\s*(#.*)?$/.test(statementTail(lines, info, k));
    if (info.indent[li]! >= 0 && isHeader(li)) {
        return { startLine: li + 1, endLine: pythonBlockEnd(lines, info, li + 1) };
    }
    let threshold = info.indent[li]!;
    if (threshold < 0) threshold = Number.MAX_SAFE_INTEGER;
    for (let k = li - 1; k >= 0; k--) {
        const indent = info.indent[k]!;
        if (indent < 0 || info.continued[k] || indent >= threshold) continue;
        if (isHeader(k)) return { startLine: k + 1, endLine: pythonBlockEnd(lines, info, k + 1) };
        threshold = indent;
        if (indent === 0) break;
    }
    return null;
}

/** The last physical line of the statement starting at `li`, cut for regex use. */
function statementTail(lines: readonly string[], info: PythonLines, li: number): string {
    let k = li;
    while (k + 1 < lines.length && info.continued[k + 1] && k < li + 20) k++;
    const text = lines[k]!;
    return text.length > MAX_DECL_CHARS ? text.slice(-MAX_DECL_CHARS) : text;
}
