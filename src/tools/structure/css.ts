/**
 * CSS, SCSS and Less rules from the brace scan: every `{` opens a rule whose
 * selector (or at-rule prelude) is the text since the previous `{`, `}` or `;`.
 * Keyframe steps (`from`, `50%`) are folded into their @keyframes.
 */
import { type CodeScan, EventKind, scanCode } from "./code-scan";

export type CssRuleKind = "rule" | "media" | "keyframes" | "at_rule";

export interface CssRule {
    /** Selector list or at-rule prelude, whitespace collapsed (≤ 120 characters). */
    selector: string;
    kind: CssRuleKind;
    startLine: number;
    endLine: number;
    /** Enclosing reported rules (0 at the top level). */
    depth: number;
}

const MAX_SELECTOR = 120;
/** Lines of selector text looked at before a `{`. */
const MAX_SELECTOR_LINES = 20;

function scanCss(lines: readonly string[], scss: boolean): CodeScan {
    return scanCode(lines, scss ? "scss" : "css");
}

function ruleKind(selector: string): CssRuleKind {
    if (!selector.startsWith("@")) return "rule";
    if (/^@media\b/i.test(selector)) return "media";
    if (/^@(?:-[a-z]+-)?keyframes\b/i.test(selector)) return "keyframes";
    return "at_rule";
}

/** Text between event `from` (exclusive; -1 for the file start) and event `to`. */
function textBetween(
    lines: readonly string[],
    scan: CodeScan,
    from: number,
    to: number
): {
    text: string;
    startLine: number;
} {
    const endLi = scan.line[to]! - 1;
    let startLi = from < 0 ? 0 : scan.line[from]! - 1;
    let startCol = from < 0 ? 0 : scan.col[from]! + 1;
    if (endLi - startLi > MAX_SELECTOR_LINES) {
        startLi = endLi - MAX_SELECTOR_LINES;
        startCol = 0;
    }
    const parts: string[] = [];
    for (let li = startLi; li <= endLi; li++) {
        const line = lines[li]!;
        const a = li === startLi ? startCol : 0;
        const b = li === endLi ? scan.col[to]! : line.length;
        parts.push(line.slice(a, Math.min(b, a + 2000)));
    }
    // The rule starts at its first line with selector text (comments skipped).
    let startLine = startLi + 1;
    let inComment = false;
    for (let k = 0; k < parts.length; k++) {
        const stripped = stripComments(parts[k]!, inComment);
        inComment = stripped.open;
        if (stripped.text.trim() !== "") {
            startLine = startLi + k + 1;
            break;
        }
    }
    return { text: parts.join("\n"), startLine };
}

/** Removes `/* … *\/` and `//` comments from one line; `open` carries an unclosed block. */
function stripComments(line: string, inComment: boolean): { text: string; open: boolean } {
    let out = "";
    let i = 0;
    let open = inComment;
    while (i < line.length) {
        if (open) {
            const end = line.indexOf("*/", i);
            if (end < 0) return { text: out, open: true };
            open = false;
            i = end + 2;
            continue;
        }
        const start = line.indexOf("/*", i);
        if (start < 0) {
            out += line.slice(i);
            break;
        }
        out += line.slice(i, start);
        open = true;
        i = start + 2;
    }
    return { text: out.replace(/(^|\s)\/\/.*$/, "$1"), open };
}

function cleanSelector(text: string): string {
    let inComment = false;
    const parts: string[] = [];
    for (const line of text.split("\n")) {
        const stripped = stripComments(line, inComment);
        inComment = stripped.open;
        parts.push(stripped.text);
    }
    const selector = parts.join(" ").replace(/\s+/g, " ").trim();
    return selector.length > MAX_SELECTOR ? `${selector.slice(0, MAX_SELECTOR - 1)}…` : selector;
}

/** All rules in source order, nested ones after their parent. */
export function cssRules(lines: readonly string[], scss: boolean, scan?: CodeScan): CssRule[] {
    const s = scan ?? scanCss(lines, scss);
    const rules: CssRule[] = [];
    const stack: number[] = [];
    let skipUntil = -1;
    for (let e = 0; e < s.eventCount; e++) {
        // Braces inside parentheses (an unquoted `url(…{…})`) open no rule.
        if (s.kind[e] !== EventKind.Open || s.group[e]! > 0) continue;
        if (e < skipUntil) continue;
        while (stack.length > 0) {
            const close = stack[stack.length - 1]!;
            if (close >= 0 && close < e) stack.pop();
            else break;
        }
        const { text, startLine } = textBetween(lines, s, e - 1, e);
        const selector = cleanSelector(text);
        if (selector === "") continue;
        const kind = ruleKind(selector);
        const close = s.match[e]!;
        rules.push({
            selector,
            kind,
            startLine,
            endLine: close < 0 ? s.lineCount : s.line[close]!,
            depth: stack.length,
        });
        if (kind === "keyframes") skipUntil = close < 0 ? s.eventCount : close;
        else stack.push(close);
    }
    return rules;
}
