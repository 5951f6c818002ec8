/**
 * Writes test/tools/fixtures/symbol-corpus/truth.json: the declarations of
 * every corpus file as the language's own parser sees them (TypeScript
 * compiler API, Python ast, go/ast, tree-sitter-rust). Run at fixture
 * generation time only, never by tests:
 *
 *   apt-get install -y golang-go
 *   npm install --no-save --prefix /tmp/ts-rust web-tree-sitter@0.20.8 tree-sitter-wasms
 *   TREE_SITTER_DIR=/tmp/ts-rust node scripts/symbol-corpus/generate.mjs [CORPUS_DIR]
 *
 * CORPUS_DIR (default: the committed corpus) holds sources.json and the files
 * it names; another folder gives a held-out check of the same rules.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { rustTruth } from "./truth-rust.mjs";
import { typescriptTruth } from "./truth-ts.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const corpus = path.resolve(
    process.argv[2] ?? path.join(root, "test/tools/fixtures/symbol-corpus")
);
const sources = JSON.parse(readFileSync(path.join(corpus, "sources.json"), "utf8"));

const files = {};
for (const source of sources.files) {
    const file = path.join(corpus, source.fixture);
    const text = readFileSync(file, "utf8");
    let symbols;
    switch (source.language) {
        case "typescript":
            symbols = typescriptTruth(text, source.path);
            break;
        case "python":
            symbols = JSON.parse(execFileSync("python3", [path.join(here, "truth.py"), file]));
            break;
        case "go":
            symbols = JSON.parse(
                execFileSync("go", ["run", path.join(here, "truth.go"), file], {
                    env: { ...process.env, GOFLAGS: "-mod=mod", GO111MODULE: "off" },
                })
            );
            break;
        case "rust":
            symbols = await rustTruth(text);
            break;
        default:
            throw new Error(`unknown language ${source.language}`);
    }
    symbols.sort((a, b) => a.line - b.line || b.endLine - a.endLine);
    files[source.fixture] = { language: source.language, path: source.path, symbols };
    console.log(`${source.fixture}: ${symbols.length} declarations`);
}

const pythonVersion = execFileSync("python3", ["--version"]).toString().trim();
const goVersion = execFileSync("go", ["version"]).toString().trim();
const truth = {
    generatedBy: {
        typescript: `typescript ${ts.version}`,
        python: pythonVersion,
        go: goVersion,
        rust: "web-tree-sitter 0.20.8 + tree-sitter-wasms (tree-sitter-rust)",
    },
    files,
};
const out = path.join(corpus, "truth.json");
writeFileSync(out, JSON.stringify(truth) + "\n");
execFileSync("npx", ["prettier", "--write", out], { cwd: root, stdio: "inherit" });
