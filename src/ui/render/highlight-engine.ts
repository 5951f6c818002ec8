/**
 * The highlighter's heavy half, loaded after the first frame (its own chunk):
 * highlight.js with the grammars of the common languages, its output read
 * into tokens coloured by meaning, and the word diff of a changed line.
 * highlight.ts is the light half every renderer calls.
 */
import { diffWordsWithSpace } from "diff";
import { createGrammars } from "./highlight-grammars";
import type { CodeLine, CodeToken, HighlightEngine, SyntaxColor, WordSpans } from "./highlight";

/** Fence names and extensions the grammars' own aliases miss. */
const EXTRA_ALIASES: Record<string, string[]> = {
    // Fences say "shell" or "console" for commands without a prompt: bash reads those best.
    bash: ["shell", "sh", "zsh", "ksh", "bashrc", "console", "shellsession"],
    json: ["jsonc", "json5", "jsonl"],
    xml: ["htm", "vue"],
    typescript: ["typescriptreact"],
    javascript: ["javascriptreact"],
    makefile: ["mk", "gnumakefile"],
    cpp: ["hpp", "hh", "cxx", "c++", "h++"],
    dockerfile: ["containerfile"],
};

/** highlight.js scopes (the first word of a class) → the theme's syntax colours. */
const SCOPE_COLORS: Record<string, SyntaxColor> = {
    keyword: "syntaxKeyword",
    "selector-tag": "syntaxKeyword",
    doctag: "syntaxKeyword",
    tag: "syntaxKeyword",
    operator: "syntaxKeyword",
    string: "syntaxString",
    regexp: "syntaxString",
    char: "syntaxString",
    symbol: "syntaxString",
    link: "syntaxString",
    bullet: "syntaxNumber",
    number: "syntaxNumber",
    literal: "syntaxNumber",
    comment: "syntaxComment",
    quote: "syntaxComment",
    title: "syntaxFunction",
    section: "syntaxFunction",
    name: "syntaxFunction",
    "selector-id": "syntaxFunction",
    "selector-class": "syntaxFunction",
    type: "syntaxType",
    built_in: "syntaxType",
    class: "syntaxType",
    attr: "syntaxProperty",
    attribute: "syntaxProperty",
    property: "syntaxProperty",
    variable: "syntaxProperty",
    "template-variable": "syntaxProperty",
    "selector-attr": "syntaxProperty",
    "selector-pseudo": "syntaxProperty",
    meta: "syntaxMeta",
    addition: "diffAdd",
    deletion: "diffRemove",
};

/** A node of highlight.js's token tree: text, or a scope ("title.function") over children. */
type TreeNode = string | { scope?: string; children: TreeNode[] };

/** The token tree → one token list per source line (the markup, read without escaping). */
function readTree(root: TreeNode): CodeLine[] {
    const lines: CodeToken[][] = [[]];
    const walk = (node: TreeNode, color: SyntaxColor | undefined): void => {
        if (typeof node === "string") {
            node.split("\n").forEach((piece, i) => {
                if (i > 0) lines.push([]);
                if (piece === "") return;
                const line = lines.at(-1)!;
                const last = line.at(-1);
                // The tree keeps text in many small nodes: one token per run of a colour.
                if (last && last.color === color)
                    line[line.length - 1] = { ...last, text: last.text + piece };
                else line.push(color ? { text: piece, color } : { text: piece });
            });
            return;
        }
        const scope = node.scope?.split(".")[0];
        const own = scope === undefined ? undefined : SCOPE_COLORS[scope];
        for (const child of node.children) walk(child, own ?? color);
    };
    walk(root, undefined);
    return lines;
}

/**
 * The emitter's token tree (highlight.js is pinned: its tree and `_top` are
 * read directly; test/ui/highlight.test.ts fails if either changes).
 */
function treeOf(result: unknown): TreeNode | null {
    const root = (result as { _emitter?: { rootNode?: unknown } })._emitter?.rootNode;
    return root &&
        typeof root === "object" &&
        Array.isArray((root as { children?: unknown }).children)
        ? (root as TreeNode)
        : null;
}

/** The mode highlight.js ended in: the grammar's root has no parent. */
interface EndMode {
    parent?: unknown;
}

export function createHighlightEngine(): HighlightEngine {
    const hljs = createGrammars(EXTRA_ALIASES);
    return {
        knows: (language) => hljs.getLanguage(language.toLowerCase()) !== undefined,
        highlight(code, language) {
            const result = hljs.highlight(code, {
                language: language.toLowerCase(),
                ignoreIllegals: true,
            });
            const end = (result as { _top?: EndMode })._top;
            const tree = treeOf(result);
            return {
                lines: tree ? readTree(tree) : code.split("\n").map((text) => [{ text }]),
                closed: end !== undefined && end.parent === undefined,
            };
        },
        wordSpans(before, after): WordSpans {
            const spans: WordSpans = { removed: [], added: [] };
            let from = 0;
            let to = 0;
            for (const part of diffWordsWithSpace(before, after)) {
                const length = part.value.length;
                if (part.removed) {
                    spans.removed.push([from, from + length]);
                    from += length;
                } else if (part.added) {
                    spans.added.push([to, to + length]);
                    to += length;
                } else {
                    from += length;
                    to += length;
                }
            }
            return spans;
        },
    };
}
