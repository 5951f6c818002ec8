// The module-state rule of eslint.config.js: no mutable state at the top of a module in src/.
// State lives in the object that owns it or is passed down (ToolContext, the run's registry),
// so two sessions in one process never share it by accident. The only exceptions are write-once
// lazy caches of the launch boundary, each named below with the figure-backed reason it exists.
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/**
 * Module-level state that may stay: `file` (POSIX, from the repository root), `name` (the
 * binding) and `reason` (why it cannot be passed down). A write-once lazy cache belongs in the
 * launch boundary module; what is truly per process (what this process holds or must clean up
 * when it exits) says so.
 */
export const MODULE_STATE_ALLOWLIST = [
    {
        file: "src/util/linear-regexp.ts",
        name: "linearFlag",
        reason: "write-once lazy cache: whether this V8 has the linear regex engine, found at the first model pattern",
    },
    {
        file: "src/util/zod-runtime.ts",
        name: "loaded",
        reason: "write-once lazy cache: zod loads on the first schema built, never at start-up",
    },
    {
        file: "src/ui/render/markdown.ts",
        name: "lex",
        reason: "write-once lazy cache: the Markdown lexer loads after the chat's first frame",
    },
    {
        file: "src/ui/render/markdown.ts",
        name: "loading",
        reason: "write-once lazy cache: the load of `lex`, started once",
    },
    {
        file: "src/ui/render/highlight.ts",
        name: "highlighter",
        reason: "write-once lazy cache: the code grammars load after the chat's first frame (it owns its own memo of streaming blocks)",
    },
    {
        file: "src/ui/render/highlight.ts",
        name: "loading",
        reason: "write-once lazy cache: the load of `highlighter`, started once",
    },
    {
        file: "src/tools/permissions/bash-parser.ts",
        name: "loading",
        reason: "write-once lazy cache: the bash grammar (WASM) loads on the first shell judgement",
    },
    {
        file: "src/tools/permissions/bash-parser.ts",
        name: "loaded",
        reason: "start-up tests ask whether the grammar was loaded: set once with `loading`",
    },
    {
        file: "src/util/process-exit.ts",
        name: "cleanups",
        reason: 'per process, as `process.on("exit")` is: what its one exit listener must still do (kill command and MCP server groups, remove temp folders); owners forget their entries',
    },
    {
        file: "src/providers/proxy.ts",
        name: "tunnelAgents",
        reason: "per process: one keep-alive agent per proxy, shared by every request",
    },
    {
        file: "src/providers/proxy.ts",
        name: "forwardAgents",
        reason: "per process: one keep-alive agent per proxy, shared by every request",
    },
];

/** Methods that change a Map, Set, WeakMap, WeakSet or array in place. */
const MUTATORS = new Set([
    "set",
    "add",
    "delete",
    "clear",
    "push",
    "pop",
    "shift",
    "unshift",
    "splice",
    "sort",
    "reverse",
    "fill",
    "copyWithin",
]);

const CONTAINERS = new Set(["Map", "Set", "WeakMap", "WeakSet", "Array"]);

/** The expression under `as`, `satisfies` and `!`. */
function unwrap(node) {
    let current = node;
    while (
        current &&
        (current.type === "TSAsExpression" ||
            current.type === "TSSatisfiesExpression" ||
            current.type === "TSNonNullExpression" ||
            current.type === "TSTypeAssertion")
    ) {
        current = current.expression;
    }
    return current;
}

/** `new Map()`, `new Set(...)`, `[]`, `{}`: a value that could be changed in place. */
function isContainer(init) {
    const value = unwrap(init);
    if (!value) return false;
    if (value.type === "ArrayExpression" || value.type === "ObjectExpression") return true;
    return (
        value.type === "NewExpression" &&
        value.callee.type === "Identifier" &&
        CONTAINERS.has(value.callee.name)
    );
}

/** The identifier a member chain starts from (`a` of `a.b[c].d`), if any. */
function rootIdentifier(node) {
    let current = unwrap(node);
    while (current && current.type === "MemberExpression") current = unwrap(current.object);
    return current && current.type === "Identifier" ? current : undefined;
}

/** True when `node` runs inside a function (a change at the top level is the module's set-up). */
function insideFunction(node) {
    for (let current = node.parent; current; current = current.parent) {
        if (
            current.type === "FunctionDeclaration" ||
            current.type === "FunctionExpression" ||
            current.type === "ArrowFunctionExpression"
        ) {
            return true;
        }
    }
    return false;
}

/** How `reference` changes the container it names in place, or undefined when it only reads it. */
function mutationOf(reference) {
    const id = reference.identifier;
    // Climb the member chain the identifier starts: `cache.a.b`.
    let top = id;
    while (top.parent && top.parent.type === "MemberExpression" && top.parent.object === top) {
        top = top.parent;
    }
    const parent = top.parent;
    if (!parent) return undefined;
    if (top !== id) {
        if (
            (parent.type === "AssignmentExpression" && parent.left === top) ||
            (parent.type === "UpdateExpression" && parent.argument === top) ||
            (parent.type === "UnaryExpression" && parent.operator === "delete")
        ) {
            return "writes a property of it";
        }
        if (parent.type === "CallExpression" && parent.callee === top) {
            const property = top.property;
            const name =
                !top.computed && property.type === "Identifier"
                    ? property.name
                    : property.type === "Literal"
                      ? String(property.value)
                      : undefined;
            if (name !== undefined && MUTATORS.has(name)) return `calls .${name}()`;
        }
        return undefined;
    }
    // `Object.assign(cache, …)`
    if (
        parent.type === "CallExpression" &&
        parent.arguments[0] === id &&
        parent.callee.type === "MemberExpression" &&
        rootIdentifier(parent.callee)?.name === "Object" &&
        parent.callee.property.type === "Identifier" &&
        parent.callee.property.name === "assign"
    ) {
        return "assigns properties to it";
    }
    return undefined;
}

/** @type {import("eslint").Rule.RuleModule} */
export const moduleStateRule = {
    meta: {
        type: "problem",
        docs: {
            description:
                "No mutable module-level state in src/: pass it down or make it a field of its owner.",
        },
        schema: [
            {
                type: "object",
                properties: {
                    allow: {
                        type: "array",
                        items: {
                            type: "object",
                            properties: {
                                file: { type: "string" },
                                name: { type: "string" },
                                reason: { type: "string", minLength: 1 },
                            },
                            required: ["file", "name", "reason"],
                            additionalProperties: false,
                        },
                    },
                },
                additionalProperties: false,
            },
        ],
        messages: {
            variable:
                "Module-level `{{kind}} {{name}}` is state every caller in the process shares: pass it down or make it a field of the object that owns it (a write-once launch cache goes in MODULE_STATE_ALLOWLIST, scripts/eslint-module-state.mjs, with its reason).",
            mutated:
                "Module-level `{{name}}` is changed inside a function ({{how}}): state every caller in the process shares. Pass it down or make it a field of the object that owns it; a constant table is built once at the top level and never changed.",
        },
    },
    create(context) {
        const allow = context.options[0]?.allow ?? MODULE_STATE_ALLOWLIST;
        const file = path.relative(ROOT, context.filename).split(path.sep).join("/");
        const allowed = new Set(allow.filter((entry) => entry.file === file).map((e) => e.name));

        const declarationsOf = (statement) => {
            if (statement.type === "VariableDeclaration") return statement;
            if (
                (statement.type === "ExportNamedDeclaration" ||
                    statement.type === "ExportDefaultDeclaration") &&
                statement.declaration?.type === "VariableDeclaration"
            ) {
                return statement.declaration;
            }
            return undefined;
        };

        return {
            Program(program) {
                const scope = context.sourceCode.getScope(program);
                // In an ES module the bindings live in the module scope under the global one.
                const moduleScope =
                    scope.childScopes.find((child) => child.type === "module") ?? scope;
                for (const statement of program.body) {
                    const declaration = declarationsOf(statement);
                    if (!declaration || declaration.declare) continue;
                    for (const declarator of declaration.declarations) {
                        const names = context.sourceCode
                            .getDeclaredVariables(declarator)
                            .filter((variable) => !allowed.has(variable.name));
                        if (declaration.kind !== "const") {
                            for (const variable of names) {
                                context.report({
                                    node: variable.identifiers[0] ?? declarator,
                                    messageId: "variable",
                                    data: { kind: declaration.kind, name: variable.name },
                                });
                            }
                            continue;
                        }
                        if (declarator.id.type !== "Identifier" || !isContainer(declarator.init)) {
                            continue;
                        }
                        const variable = moduleScope.set.get(declarator.id.name);
                        if (!variable || allowed.has(variable.name)) continue;
                        for (const reference of variable.references) {
                            if (!insideFunction(reference.identifier)) continue;
                            const how = mutationOf(reference);
                            if (how === undefined) continue;
                            context.report({
                                node: reference.identifier,
                                messageId: "mutated",
                                data: { name: variable.name, how },
                            });
                        }
                    }
                }
            },
        };
    },
};

/** Flat-config block for src/. */
export function moduleStateConfigs() {
    return [
        {
            files: ["src/**/*.ts", "src/**/*.tsx"],
            plugins: { "north-state": { rules: { "no-module-state": moduleStateRule } } },
            rules: { "north-state/no-module-state": "error" },
        },
    ];
}
