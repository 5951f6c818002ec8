/**
 * Checks on a command's source text that back up the syntax tree: the places
 * where the grammar and bash disagree are found and asked about.
 */
import type { SyntaxNode } from "./bash-parser";

/** One short line of a command, for messages. */
export function snippet(text: string): string {
    const line = text.replace(/\s+/g, " ").trim();
    return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}

/** A line continuation with no space on one side joins two words, which the grammar splits. */
const CONTINUATION_IN_WORD = /(?:^|[^\\])(?:\\\\)*\\\r?\n/g;

export function continuationInsideWord(command: string): boolean {
    for (const match of command.matchAll(CONTINUATION_IN_WORD)) {
        const end = match.index + match[0].length;
        const before = command[match.index + match[0].search(/\\/) - 1];
        const after = command[end];
        const joinsBefore = before !== undefined && !/\s/.test(before);
        const joinsAfter = after !== undefined && !/\s/.test(after);
        if (joinsBefore || joinsAfter) return true;
    }
    return false;
}

/** Nodes whose text is accounted for: substitutions the walk judged, and literal text. */
const ACCOUNTED_NODES = new Set([
    "command_substitution",
    "process_substitution",
    "raw_string",
    "ansi_c_string",
    "comment",
    "heredoc_body",
    "expansion",
]);

/**
 * A safety net under the grammar: the offset of a `` ` ``, `$(`, `<(` or `>(`
 * the tree does not account for (the grammar read it as plain text), or null.
 */
export function substitutionOutsideTree(root: SyntaxNode, script: string): number | null {
    const accounted: [number, number][] = [];
    const arithmetic = new Set<number>();
    const collect = (node: SyntaxNode): void => {
        if (ACCOUNTED_NODES.has(node.type)) {
            accounted.push([node.startIndex, node.endIndex]);
            return;
        }
        if (node.type === "arithmetic_expansion") arithmetic.add(node.startIndex);
        for (const child of node.namedChildren) if (child) collect(child);
    };
    collect(root);
    accounted.sort((a, b) => a[0] - b[0]);
    let next = 0;
    for (let i = 0; i < script.length; i++) {
        while (next < accounted.length && accounted[next]![1] <= i) next++;
        const range = accounted[next];
        if (range && range[0] <= i) {
            i = range[1] - 1;
            continue;
        }
        const ch = script[i]!;
        if (ch === "\\") {
            i++;
            continue;
        }
        const pair = script.slice(i, i + 2);
        if (ch === "`" || ((pair === "$(" || pair === "<(" || pair === ">(") && !arithmetic.has(i)))
            return i;
    }
    return null;
}

/** The first error in the tree, as a reason. */
export function describeError(node: SyntaxNode): string {
    for (const child of node.children) {
        if (!child || !child.hasError) continue;
        if (child.isMissing) return `the command is incomplete (a \`${child.type}\` is missing)`;
        if (child.type === "ERROR")
            return `the shell parser could not read \`${snippet(child.text)}\``;
        return describeError(child);
    }
    return node.isMissing
        ? `the command is incomplete (a \`${node.type}\` is missing)`
        : "the shell parser could not read the command";
}
