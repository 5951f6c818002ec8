import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";
import { layerConfigs } from "./scripts/eslint-layers.mjs";
import { moduleStateConfigs } from "./scripts/eslint-module-state.mjs";

export default tseslint.config(
    // vendor/: other packages' files, kept as their authors wrote them (vendor/README.md).
    { ignores: ["dist/", "node_modules/", "coverage/", "bench/.work/", "vendor/"] },
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
    {
        // Type-aware rules: a switch over a union (EngineEvent…) that misses a member, and
        // promises nobody awaits or that land where a void callback is expected.
        files: ["src/**/*.ts", "src/**/*.tsx", "test/**/*.ts", "test/**/*.tsx"],
        languageOptions: {
            parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
        },
        rules: {
            "@typescript-eslint/switch-exhaustiveness-check": [
                "error",
                { considerDefaultExhaustiveForUnions: true },
            ],
            "@typescript-eslint/no-floating-promises": "error",
            "@typescript-eslint/no-misused-promises": "error",
        },
    },
    {
        // Zod loads on first use, through one instance (src/util/zod-runtime.ts).
        files: ["src/**/*.ts", "src/**/*.tsx"],
        rules: {
            "@typescript-eslint/no-restricted-imports": [
                "error",
                {
                    paths: [
                        {
                            name: "zod",
                            allowTypeImports: true,
                            message:
                                "Build schemas with zod() from src/util/zod-runtime.ts: a static import loads zod on every run.",
                        },
                    ],
                },
            ],
        },
    },
    ...layerConfigs(),
    ...moduleStateConfigs()
);
