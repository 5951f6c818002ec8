#!/usr/bin/env node
/**
 * Prints the longest functions in src/ (every function-like: declarations,
 * methods, arrows, function expressions, accessors, constructors), by lines
 * from the first line of the function to its last. A nested function counts
 * inside its parent too, as the reader of the parent sees it.
 *
 * Usage: node scripts/longest-functions.mjs [count=10] [folder or files... = src]
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const count = Number(process.argv[2] ?? 10);
const roots = process.argv.length > 3 ? process.argv.slice(3) : ["src"];

function sourceFiles(path) {
    if (!statSync(path).isDirectory()) return [path];
    return readdirSync(path, { withFileTypes: true }).flatMap((entry) => {
        const child = join(path, entry.name);
        if (entry.isDirectory()) return sourceFiles(child);
        return /\.(ts|tsx|mts)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [child] : [];
    });
}

function nameOf(node) {
    if (node.name !== undefined) return node.name.getText();
    const parent = node.parent;
    if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))
        return parent.name.getText();
    if (ts.isPropertyDeclaration(parent)) return parent.name.getText();
    if (ts.isConstructorDeclaration(node)) return "constructor";
    return "(anonymous)";
}

const found = [];
for (const file of roots.flatMap(sourceFiles)) {
    const text = readFileSync(file, "utf8");
    const kind = file.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
    const visit = (node) => {
        if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
            const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
            const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
            found.push({
                lines: end - start + 1,
                where: `${relative(".", file)}:${start + 1}`,
                name: nameOf(node),
            });
        }
        ts.forEachChild(node, visit);
    };
    visit(source);
}
found.sort((a, b) => b.lines - a.lines);
for (const f of found.slice(0, count))
    console.log(`${String(f.lines).padStart(5)}  ${f.where}  ${f.name}`);
