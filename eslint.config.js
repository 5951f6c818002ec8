import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

/** Layers import one way: cli → ui | headless → commands → agent → tools | providers | storage | project → util. */
const LAYERS = {
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
const ALL = Object.keys(LAYERS);

function layerRules(layer) {
    const allowed = new Set(LAYERS[layer]);
    const forbidden = ALL.filter(
        (other) =>
            other !== layer && !allowed.has(other) && !(layer === "tools" && other === "providers")
    );
    const patterns = forbidden.map((other) => ({
        group: [`../${other}/*`, `../../${other}/*`, `**/src/${other}/*`],
        message: `${layer}/ must not import ${other}/ (layers import one way; see STYLE).`,
    }));
    if (layer !== "ui") {
        patterns.push({
            group: ["ink", "react", "ink-*"],
            message: "Only ui/ may import ink or react.",
        });
    }
    if (layer === "tools") {
        // tools may type-import the provider content shapes, nothing else from providers/.
        patterns.push({
            group: ["../providers/*", "!../providers/types"],
            message: "tools/ may only type-import ../providers/types.",
        });
    }
    return {
        files: [`src/${layer}/**/*.ts`, `src/${layer}/**/*.tsx`],
        rules: { "no-restricted-imports": ["error", { patterns }] },
    };
}

export default tseslint.config(
    { ignores: ["dist/", "node_modules/", "coverage/", "bench/.work/"] },
    js.configs.recommended,
    ...tseslint.configs.recommended,
    {
        languageOptions: { globals: { ...globals.node }, ecmaVersion: 2023, sourceType: "module" },
        rules: {
            "@typescript-eslint/consistent-type-imports": "error",
            "@typescript-eslint/no-unused-vars": [
                "error",
                { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" },
            ],
            "@typescript-eslint/no-explicit-any": "error",
            // `import { z }` keeps all of zod (every locale) in the bundle; the namespace import tree-shakes.
            "no-restricted-syntax": [
                "error",
                {
                    selector:
                        "ImportDeclaration[source.value='zod'][importKind!='type'] > ImportSpecifier[imported.name='z'], ImportDeclaration[source.value='zod'][importKind!='type'] > ImportDefaultSpecifier",
                    message:
                        'Use `import * as z from "zod"` so the bundle keeps only the parts of zod in use.',
                },
            ],
        },
    },
    ...ALL.map(layerRules)
);
