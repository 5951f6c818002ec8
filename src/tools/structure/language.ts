/**
 * File languages by extension (and a few well-known names): what the
 * structure parsers should use for a file, and what `detect_languages` counts.
 */

/** Which structure parser handles a file. */
export type ParserId =
    | "typescript"
    | "javascript"
    | "python"
    | "rust"
    | "go"
    | "java"
    | "csharp"
    | "php"
    | "html"
    | "css"
    | "scss"
    | "less"
    | "none";

/** code and markup count as the project's languages; data and prose are listed apart. */
export type LanguageCategory = "code" | "markup" | "data" | "prose";

export interface LanguageInfo {
    /** Display name, e.g. "TypeScript". */
    name: string;
    parser: ParserId;
    category: LanguageCategory;
}

type Entry = [name: string, parser: ParserId, category: LanguageCategory, exts: string];

const TABLE: Entry[] = [
    ["TypeScript", "typescript", "code", "ts tsx mts cts"],
    ["JavaScript", "javascript", "code", "js jsx mjs cjs"],
    ["Python", "python", "code", "py pyi pyw"],
    ["Rust", "rust", "code", "rs"],
    ["Go", "go", "code", "go"],
    ["Java", "java", "code", "java"],
    ["C#", "csharp", "code", "cs"],
    ["PHP", "php", "code", "php phtml"],
    ["HTML", "html", "markup", "html htm xhtml vue svelte astro"],
    ["CSS", "css", "markup", "css"],
    ["SCSS", "scss", "markup", "scss sass"],
    ["Less", "less", "markup", "less"],
    ["C", "none", "code", "c h"],
    ["C++", "none", "code", "cc cpp cxx hpp hh hxx ino"],
    ["Objective-C", "none", "code", "m mm"],
    ["Kotlin", "none", "code", "kt kts"],
    ["Scala", "none", "code", "scala sc"],
    ["Swift", "none", "code", "swift"],
    ["Dart", "none", "code", "dart"],
    ["Ruby", "none", "code", "rb rake gemspec"],
    ["Perl", "none", "code", "pl pm"],
    ["Lua", "none", "code", "lua"],
    ["R", "none", "code", "r"],
    ["Julia", "none", "code", "jl"],
    ["Elixir", "none", "code", "ex exs"],
    ["Erlang", "none", "code", "erl hrl"],
    ["Haskell", "none", "code", "hs"],
    ["OCaml", "none", "code", "ml mli"],
    ["F#", "none", "code", "fs fsx"],
    ["Clojure", "none", "code", "clj cljs cljc edn"],
    ["Zig", "none", "code", "zig"],
    ["Nim", "none", "code", "nim"],
    ["Visual Basic", "none", "code", "vb"],
    ["Groovy", "none", "code", "groovy gradle"],
    ["Shell", "none", "code", "sh bash zsh fish"],
    ["PowerShell", "none", "code", "ps1 psm1"],
    ["Batchfile", "none", "code", "bat cmd"],
    ["SQL", "none", "code", "sql"],
    ["Solidity", "none", "code", "sol"],
    ["GraphQL", "none", "code", "graphql gql"],
    ["Protocol Buffers", "none", "code", "proto"],
    ["Assembly", "none", "code", "asm s"],
    ["CMake", "none", "code", "cmake"],
    ["Makefile", "none", "code", "mk"],
    ["Dockerfile", "none", "code", "dockerfile"],
    ["Terraform", "none", "code", "tf tfvars hcl"],
    ["Nix", "none", "code", "nix"],
    ["Vim Script", "none", "code", "vim"],
    ["Emacs Lisp", "none", "code", "el"],
    ["Handlebars", "none", "markup", "hbs handlebars mustache"],
    ["Jinja", "none", "markup", "j2 jinja jinja2"],
    ["XML", "none", "data", "xml xsd xsl xslt svg plist csproj props"],
    ["JSON", "none", "data", "json jsonc json5"],
    ["YAML", "none", "data", "yml yaml"],
    ["TOML", "none", "data", "toml"],
    ["INI", "none", "data", "ini cfg conf properties"],
    ["CSV", "none", "data", "csv tsv"],
    ["Markdown", "none", "prose", "md markdown mdx"],
    ["reStructuredText", "none", "prose", "rst"],
    ["Text", "none", "prose", "txt"],
    ["TeX", "none", "prose", "tex"],
];

const BY_EXT = new Map<string, LanguageInfo>();
for (const [name, parser, category, exts] of TABLE) {
    const info: LanguageInfo = { name, parser, category };
    for (const ext of exts.split(" ")) BY_EXT.set(ext, info);
}

const BY_NAME = new Map<string, LanguageInfo>([
    ["makefile", BY_EXT.get("mk")!],
    ["gnumakefile", BY_EXT.get("mk")!],
    ["dockerfile", BY_EXT.get("dockerfile")!],
    ["rakefile", BY_EXT.get("rb")!],
    ["gemfile", BY_EXT.get("rb")!],
    ["cmakelists.txt", BY_EXT.get("cmake")!],
]);

function baseName(filePath: string): string {
    const slash = Math.max(filePath.lastIndexOf("/"), filePath.lastIndexOf("\\"));
    return filePath.slice(slash + 1).toLowerCase();
}

/** The language of a path, or null when neither its name nor its extension is known. */
export function languageOf(filePath: string): LanguageInfo | null {
    const base = baseName(filePath);
    const named = BY_NAME.get(base);
    if (named) return named;
    if (base.startsWith("dockerfile.")) return BY_NAME.get("dockerfile")!;
    const dot = base.lastIndexOf(".");
    if (dot <= 0) return null;
    return BY_EXT.get(base.slice(dot + 1)) ?? null;
}

/** Parsers that extract symbols (functions, classes, ...). */
export const SYMBOL_PARSERS: readonly ParserId[] = [
    "typescript",
    "javascript",
    "python",
    "rust",
    "go",
    "java",
    "csharp",
    "php",
];

export function isCssParser(parser: ParserId): boolean {
    return parser === "css" || parser === "scss" || parser === "less";
}
