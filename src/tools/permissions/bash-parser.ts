/**
 * The bash grammar (tree-sitter-bash on web-tree-sitter), loaded once on the
 * first shell judgement so start-up never pays for it.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { Node as SyntaxNode, Parser } from "web-tree-sitter";
import { fileBesideBundle } from "../../util/beside-bundle";

export type { SyntaxNode };

/** Where a .wasm file is: next to the bundle in dist/ (or dist/chunks/), else in node_modules. */
function findWasm(fileName: string, packageSpecifier: string): string {
    const found = fileBesideBundle(fileName);
    if (found) return found;
    try {
        return createRequire(import.meta.url).resolve(packageSpecifier);
    } catch {
        throw new Error(
            `the shell parser is missing ${fileName} (looked beside ${fileURLToPath(import.meta.url)} and in node_modules)`
        );
    }
}

let loading: Promise<Parser> | undefined;
let loaded = false;

/** Whether the grammar has been loaded in this process (start-up must not load it). */
export function isBashParserLoaded(): boolean {
    return loaded;
}

async function loadParser(): Promise<Parser> {
    const { Parser: ParserClass, Language } = await import("web-tree-sitter");
    const runtime = readFileSync(findWasm("tree-sitter.wasm", "web-tree-sitter/tree-sitter.wasm"));
    await ParserClass.init({ wasmBinary: runtime });
    const grammar = readFileSync(
        findWasm("tree-sitter-bash.wasm", "tree-sitter-bash/tree-sitter-bash.wasm")
    );
    const language = await Language.load(grammar);
    const parser = new ParserClass();
    parser.setLanguage(language);
    loaded = true;
    return parser;
}

/** The parser, loaded on first use; a failed load is retried on the next call. */
export function getBashParser(): Promise<Parser> {
    loading ??= loadParser().catch((error: unknown) => {
        loading = undefined;
        throw error;
    });
    return loading;
}

/** Synchronous parse with an already-loaded parser (nested `bash -c` scripts). */
export function withParsedTree<T>(parser: Parser, script: string, use: (root: SyntaxNode) => T): T {
    const tree = parser.parse(script);
    if (!tree) throw new Error("the shell parser returned no tree");
    try {
        return use(tree.rootNode);
    } finally {
        tree.delete();
    }
}
