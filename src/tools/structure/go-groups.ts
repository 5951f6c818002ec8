/**
 * Go's grouped declarations, `const ( … )`, `var ( … )` and `type ( … )`:
 * every spec inside is a symbol of its own, from its name to its last line (a
 * multi-line raw string or composite literal included).
 */
import { type CodeScan, SkipKind } from "./code-scan";
import type { SymbolInfo } from "./symbols";

const GROUP_OPEN = /^(const|var|type)\s*\(\s*(?:\/\/.*)?$/;
const SPEC_NAMES = /^\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)/;
const TYPE_SPEC = /^\s*[A-Za-z_]\w*(?:\[[^\]]{0,200}\])?\s+(?:=\s*)?(struct|interface)?/;
/** A line ending in one of these goes on (Go inserts no semicolon after them). */
const OPEN_END = /(?:[-+*/%&|^<>=,.(!:[{]|&&|\|\|)$/;

/** The keyword of a `const (`/`var (`/`type (` line, or null. */
export function goGroupKeyword(text: string): "const" | "var" | "type" | null {
    const m = GROUP_OPEN.exec(text);
    return m ? (m[1] as "const" | "var" | "type") : null;
}

function isComment(text: string): boolean {
    const t = text.trimStart();
    return t === "" || t.startsWith("//") || t.startsWith("/*");
}

/** The line's code without a trailing `// comment` (strings are not looked into: specs rarely end in one). */
function codeEnd(text: string): string {
    const cut = text.indexOf("//");
    return (cut < 0 ? text : text.slice(0, cut)).trimEnd();
}

/**
 * The specs of the group opened on line index `li`: symbols in line order,
 * and the index of the group's last line (its `)`).
 */
export function goGroupSpecs(
    lines: readonly string[],
    scan: CodeScan,
    li: number,
    keyword: "const" | "var" | "type"
): { symbols: SymbolInfo[]; lastLine: number } {
    let last = li + 1;
    while (last < lines.length - 1 && scan.groupDepth[last + 1]! > 0) last++;
    const starts: number[] = [];
    let previous = "";
    for (let k = li + 1; k < last; k++) {
        const text = lines[k]!;
        if (scan.skip[k] || isComment(text)) continue;
        const inSpecLevel = scan.groupDepth[k] === 1 && scan.braceDepth[k] === 0;
        if (inSpecLevel && SPEC_NAMES.test(text) && !OPEN_END.test(previous)) starts.push(k);
        previous = codeEnd(text);
    }
    const symbols: SymbolInfo[] = [];
    for (let s = 0; s < starts.length; s++) {
        const k = starts[s]!;
        let end = (starts[s + 1] ?? last) - 1;
        while (end > k && scan.skip[end] !== SkipKind.String && isComment(lines[end]!)) end--;
        const text = lines[k]!;
        let kind: SymbolInfo["kind"] = keyword === "const" ? "const" : "variable";
        if (keyword === "type") {
            const type = TYPE_SPEC.exec(text)?.[1];
            kind = type === "struct" ? "struct" : type === "interface" ? "interface" : "type";
        }
        const names =
            keyword === "type"
                ? [SPEC_NAMES.exec(text)![1]!.split(",")[0]!]
                : SPEC_NAMES.exec(text)![1]!.split(",");
        for (const raw of names) {
            const name = raw.trim();
            if (name === "_") continue;
            symbols.push({
                name,
                kind,
                line: k + 1,
                endLine: end + 1,
                signature: `${keyword} ${text.trim().slice(0, 150)}`,
                level: 0,
            });
        }
    }
    return { symbols, lastLine: last };
}
