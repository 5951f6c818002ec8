/**
 * Ground truth for TypeScript/JavaScript from the TypeScript compiler API.
 * What counts (what get_file_symbols promises), see README.md next to the corpus:
 * top level and namespace bodies: functions, classes, interfaces, type aliases,
 * enums, namespaces, variables (a function when initialized with an arrow or
 * function expression); class bodies: methods, constructors, accessors and
 * properties initialized with a function. Declarations inside function bodies
 * are marked `nested` (only find_code_block's innermost check uses them).
 */
import ts from "typescript";

function lineOf(sf, pos) {
    return sf.getLineAndCharacterOfPosition(pos).line + 1;
}

/** Start after decorators (the declaration's own first token). */
function startOf(sf, node) {
    const mods = ts.canHaveModifiers(node) ? (node.modifiers ?? []) : [];
    const own = mods.find((m) => m.kind !== ts.SyntaxKind.Decorator);
    if (own) return own.getStart(sf);
    const decorators = mods.filter((m) => m.kind === ts.SyntaxKind.Decorator);
    if (decorators.length > 0) {
        return ts.skipTrivia(sf.text, decorators[decorators.length - 1].end);
    }
    return node.getStart(sf);
}

function isFunctionValue(init) {
    let e = init;
    while (
        e &&
        (ts.isParenthesizedExpression(e) ||
            ts.isAsExpression(e) ||
            ts.isSatisfiesExpression(e) ||
            ts.isTypeAssertionExpression(e))
    ) {
        e = e.expression;
    }
    return !!e && (ts.isArrowFunction(e) || ts.isFunctionExpression(e));
}

function memberName(sf, name) {
    if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name)) return name.text;
    if (ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
    return name.getText(sf);
}

export function typescriptTruth(text, fileName) {
    const kind = /\.(tsx|jsx)$/.test(fileName) ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
    const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
    const out = [];
    const add = (name, k, node, nested, container, start) => {
        const symbol = {
            name,
            kind: k,
            line: lineOf(sf, start ?? startOf(sf, node)),
            endLine: lineOf(sf, node.getEnd() - 1),
        };
        if (container) symbol.container = container;
        if (nested) symbol.nested = true;
        out.push(symbol);
    };

    const visitClass = (node, nested) => {
        const name = node.name ? node.name.text : "default";
        add(name, "class", node, nested);
        for (const member of node.members) {
            if (
                ts.isMethodDeclaration(member) ||
                ts.isGetAccessorDeclaration(member) ||
                ts.isSetAccessorDeclaration(member)
            ) {
                add(memberName(sf, member.name), "method", member, nested, name);
            } else if (ts.isConstructorDeclaration(member)) {
                add("constructor", "method", member, nested, name);
            } else if (ts.isPropertyDeclaration(member) && isFunctionValue(member.initializer)) {
                add(memberName(sf, member.name), "method", member, nested, name);
            }
            ts.forEachChild(member, (child) => visit(child, "nested"));
        }
    };

    const visitVariables = (statement, scope) => {
        const list = statement.declarationList;
        const isConst = (list.flags & ts.NodeFlags.Const) !== 0;
        const single = list.declarations.length === 1;
        for (const decl of list.declarations) {
            if (ts.isIdentifier(decl.name)) {
                const fn = isFunctionValue(decl.initializer);
                if (scope !== "nested" || fn) {
                    const k = fn ? "function" : isConst ? "const" : "variable";
                    const node = single ? statement : decl;
                    add(decl.name.text, k, node, scope === "nested", undefined);
                }
            }
            if (decl.initializer) visit(decl.initializer, "nested");
        }
    };

    /** scope: "top" (file, namespace) or "nested" (anything inside code). */
    const visit = (node, scope) => {
        const nested = scope === "nested";
        if (ts.isFunctionDeclaration(node)) {
            add(node.name ? node.name.text : "default", "function", node, nested);
            if (node.body) visit(node.body, "nested");
            return;
        }
        if (ts.isClassDeclaration(node)) {
            visitClass(node, nested);
            return;
        }
        if (ts.isVariableStatement(node)) {
            visitVariables(node, scope);
            return;
        }
        if (!nested) {
            if (ts.isInterfaceDeclaration(node)) return add(node.name.text, "interface", node);
            if (ts.isTypeAliasDeclaration(node)) return add(node.name.text, "type", node);
            if (ts.isEnumDeclaration(node)) return add(node.name.text, "enum", node);
            if (ts.isModuleDeclaration(node)) {
                let name = node.name.getText(sf);
                let body = node.body;
                while (body && ts.isModuleDeclaration(body)) {
                    name += `.${body.name.getText(sf)}`;
                    body = body.body;
                }
                add(name, "namespace", node);
                if (body) for (const statement of body.statements) visit(statement, "top");
                return;
            }
            if (ts.isSourceFile(node)) {
                for (const statement of node.statements) visit(statement, "top");
                return;
            }
        }
        ts.forEachChild(node, (child) => visit(child, "nested"));
    };
    visit(sf, "top");
    return out;
}
