/**
 * Ground truth for Rust from tree-sitter-rust (web-tree-sitter with the
 * prebuilt grammar of tree-sitter-wasms, installed at generation time only:
 * `npm install --no-save --prefix DIR web-tree-sitter@0.20.8 tree-sitter-wasms`,
 * then TREE_SITTER_DIR=DIR).
 *
 * What counts: at the top level and in `mod` bodies: functions, structs,
 * unions (kind type), enums, traits, impls (named "Trait for Type" or "Type"),
 * modules, type aliases, consts and statics, macro_rules; in impl and trait
 * bodies: methods (with or without a body), associated types and consts.
 * Functions inside function bodies are marked nested. Start is the item's
 * first token after its attributes and doc comments.
 */
import { createRequire } from "node:module";
import path from "node:path";

const TOP = {
    function_item: "function",
    struct_item: "struct",
    union_item: "type",
    enum_item: "enum",
    trait_item: "trait",
    impl_item: "impl",
    mod_item: "module",
    type_item: "type",
    const_item: "const",
    static_item: "const",
    macro_definition: "macro",
};
const MEMBER = {
    function_item: "method",
    function_signature_item: "method",
    type_item: "type",
    associated_type: "type",
    const_item: "const",
};

let parserPromise = null;

async function loadParser() {
    const dir = process.env.TREE_SITTER_DIR;
    if (!dir) throw new Error("set TREE_SITTER_DIR to a folder with web-tree-sitter installed");
    const require = createRequire(path.join(dir, "package.json"));
    const Parser = require("web-tree-sitter");
    await Parser.init();
    const wasm = path.join(dir, "node_modules/tree-sitter-wasms/out/tree-sitter-rust.wasm");
    const Rust = await Parser.Language.load(wasm);
    const parser = new Parser();
    parser.setLanguage(Rust);
    return parser;
}

const collapse = (text) => text.replace(/\s+/g, " ").trim();

function implName(node) {
    const trait = node.childForFieldName("trait");
    const type = node.childForFieldName("type");
    const typeText = type ? collapse(type.text) : "";
    return trait ? `${collapse(trait.text)} for ${typeText}` : typeText;
}

export async function rustTruth(text) {
    parserPromise ??= loadParser();
    const parser = await parserPromise;
    const tree = parser.parse(text);
    const out = [];
    const add = (name, kind, node, nested, container) => {
        const symbol = {
            name,
            kind,
            line: node.startPosition.row + 1,
            endLine: node.endPosition.row + (node.endPosition.column === 0 ? 0 : 1),
        };
        if (container) symbol.container = container;
        if (nested) symbol.nested = true;
        out.push(symbol);
    };
    const nameOf = (node) => node.childForFieldName("name")?.text ?? "";

    /** Function bodies: only nested functions are declarations the tool reports. */
    const inBody = (node) => {
        for (const child of node.namedChildren) {
            if (child.type === "function_item") {
                add(nameOf(child), "function", child, true);
                const body = child.childForFieldName("body");
                if (body) inBody(body);
            } else inBody(child);
        }
    };

    const members = (list, container, nested) => {
        for (const child of list.namedChildren) {
            const kind = MEMBER[child.type];
            if (!kind) continue;
            add(nameOf(child), kind, child, nested, container);
            const body = child.childForFieldName("body");
            if (body && child.type === "function_item") inBody(body);
        }
    };

    const top = (list) => {
        for (const child of list.namedChildren) {
            const kind = TOP[child.type];
            if (!kind) continue;
            const name = child.type === "impl_item" ? implName(child) : nameOf(child);
            add(name, kind, child, false);
            const body = child.childForFieldName("body");
            if (!body) continue;
            if (child.type === "function_item") inBody(body);
            else if (child.type === "impl_item" || child.type === "trait_item") {
                members(body, name, false);
            } else if (child.type === "mod_item") top(body);
        }
    };
    top(tree.rootNode);
    return out;
}
