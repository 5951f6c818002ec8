// The layer rule of eslint.config.js. It resolves each relative import to the folder
// under src/ it lands in, so the rule holds at any depth (src/tools/mcp/ as much as src/tools/).
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Layers import one way: cli → ui | headless → commands → agent → tools | providers | storage | project → util. */
export const LAYERS = {
    util: [],
    tools: ["util"],
    providers: ["util"],
    storage: ["util"],
    project: ["util"],
    agent: ["tools", "providers", "storage", "project", "util"],
    commands: ["agent", "tools", "providers", "storage", "project", "util"],
    headless: ["commands", "agent", "tools", "providers", "storage", "project", "util"],
    ui: ["commands", "agent", "tools", "providers", "storage", "project", "util"],
    cli: [
        "ui",
        "headless",
        "commands",
        "agent",
        "tools",
        "providers",
        "storage",
        "project",
        "util",
    ],
};

/** Modules a layer may reach with `import type` only (paths under src/, no extension). */
export const TYPE_ONLY = {
    // The content-block shapes tool results are made of.
    tools: ["providers/types"],
};

const ORDER =
    "cli → ui | headless → commands → agent → tools | providers | storage | project → util";
const SRC = fileURLToPath(new URL("../src", import.meta.url));

/** `providers/types.ts`, `providers/types.js`, `providers/types` → `providers/types`. */
function modulePath(relative) {
    const posix = relative.split(path.sep).join("/");
    return posix.replace(/\.(?:[cm]?[jt]sx?)$/, "").replace(/\/index$/, "");
}

/** @type {import("eslint").Rule.RuleModule} */
const layersRule = {
    meta: {
        type: "problem",
        docs: { description: "Imports between src/ folders follow the layer order (STYLE.md)." },
        schema: [],
        messages: {
            upward: `{{from}}/ must not import {{to}}/ (layers import one way: ${ORDER}; see STYLE.md).`,
            typeOnly:
                "{{from}}/ may only type-import {{target}}: write `import type` (a value import would load {{to}}/ at run time).",
            unknown:
                "src/{{layer}}/ is not a layer: add it to LAYERS in scripts/eslint-layers.mjs with the layers it may import.",
        },
    },
    create(context) {
        const fromRelative = path.relative(SRC, context.filename);
        if (fromRelative.startsWith("..") || path.isAbsolute(fromRelative)) return {};
        const segments = fromRelative.split(path.sep);
        if (segments.length < 2) return {};
        const from = segments[0];
        const knownFrom = Object.hasOwn(LAYERS, from);

        const check = (node, specifier, typeOnly) => {
            if (typeof specifier !== "string") return;
            if (!specifier.startsWith(".") && !path.isAbsolute(specifier)) return;
            const target = path.relative(
                SRC,
                path.resolve(path.dirname(context.filename), specifier)
            );
            if (target.startsWith("..") || path.isAbsolute(target)) return;
            const to = target.split(path.sep)[0];
            if (to === from) return;
            if (!knownFrom || !Object.hasOwn(LAYERS, to)) {
                context.report({
                    node,
                    messageId: "unknown",
                    data: { layer: knownFrom ? to : from },
                });
                return;
            }
            if (LAYERS[from].includes(to)) return;
            const module = modulePath(target);
            if ((TYPE_ONLY[from] ?? []).includes(module)) {
                if (!typeOnly) {
                    context.report({
                        node,
                        messageId: "typeOnly",
                        data: { from, to, target: module },
                    });
                }
                return;
            }
            context.report({ node, messageId: "upward", data: { from, to } });
        };

        return {
            ImportDeclaration(node) {
                check(node.source, node.source.value, node.importKind === "type");
            },
            ExportNamedDeclaration(node) {
                if (node.source) check(node.source, node.source.value, node.exportKind === "type");
            },
            ExportAllDeclaration(node) {
                check(node.source, node.source.value, node.exportKind === "type");
            },
            ImportExpression(node) {
                if (node.source.type === "Literal") check(node.source, node.source.value, false);
            },
            // `typeof import("../x")` in a type position.
            TSImportType(node) {
                const literal = node.argument?.literal ?? node.argument;
                if (literal?.type === "Literal") check(node, literal.value, true);
            },
        };
    },
};

/** Flat-config blocks for src/: the layer order, and ink/react kept inside ui/. */
export function layerConfigs() {
    return [
        {
            files: ["src/**/*.ts", "src/**/*.tsx"],
            plugins: { north: { rules: { layers: layersRule } } },
            rules: { "north/layers": "error" },
        },
        {
            files: ["src/**/*.ts", "src/**/*.tsx"],
            ignores: ["src/ui/**"],
            rules: {
                "no-restricted-imports": [
                    "error",
                    {
                        patterns: [
                            {
                                group: ["ink", "react", "react/*", "ink-*"],
                                message: "Only ui/ may import ink or react.",
                            },
                        ],
                    },
                ],
            },
        },
    ];
}
