// Bundles src/ into dist/ with code splitting, so the entry stays tiny and
// the engine, SDKs and UI load only when a command needs them.
import { build } from "esbuild";
import { readFileSync, rmSync } from "node:fs";
import { identicalCopiesEsbuild } from "./identical-copies.mjs";
import { inkPatchEsbuild, inkTextCachePatchEsbuild } from "./ink-patch.mjs";
import { vendoredFilesEsbuild } from "./vendored-files.mjs";
import { builtinToolSchemas, runtimeZodMembers, userSettingsJsonSchema } from "./tool-schemas.mjs";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

rmSync(new URL("../dist", import.meta.url), { recursive: true, force: true });

// The built-in tools' JSON Schemas, derived once here instead of on every run
// (src/tools/builtin-schemas.ts); a failure fails the build.
const toolSchemas = await builtinToolSchemas().catch((error) => {
    console.error(`The built-in tool schemas cannot be derived: ${error?.stack ?? error}`);
    process.exit(1);
});

// The user settings file's JSON Schema, generated from src/storage/settings/schema.ts
// for the check without zod (src/storage/settings/plain-load.ts).
const userSettingsSchema = await userSettingsJsonSchema().catch((error) => {
    console.error(`The user settings schema cannot be derived: ${error?.stack ?? error}`);
    process.exit(1);
});

/** Zod's bundle beside the entry files (src/util/zod-runtime.ts). */
const ZOD_BUNDLE = "zod.cjs";

const built = build({
    // `api`: the Node API (`import { createSession } from "north-agent"`, package.json "exports").
    // `image-resize-worker`: the worker thread that scales large images (src/util/image-resize.ts).
    entryPoints: {
        cli: "src/cli/main.ts",
        api: "src/api.ts",
        "image-resize-worker": "src/util/image-resize-worker.ts",
    },
    outdir: "dist",
    bundle: true,
    // Every `import()` is a split point, and code shared by a different set of split points
    // becomes a chunk of its own: add split points sparingly (src/cli/engine-entry.ts,
    // src/cli/subcommands.ts); test/build/print-path-modules.test.ts counts a print run's files.
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // Dependencies are bundled too: one file per chunk loads far faster than hundreds of modules.
    mainFields: ["module", "main"],
    sourcemap: "linked",
    // Smaller code compiles faster at start-up; stack traces stay readable through the source maps.
    minifyWhitespace: true,
    minifySyntax: true,

    chunkNames: "chunks/[name]-[hash]",
    // Ink loads React DevTools only when DEV=true; it is not installed, so it stays out.
    // The pseudo-terminal library is native code, an optional dependency loaded from
    // node_modules when a tty command starts (src/tools/processes/pty-io.ts).
    external: ["react-devtools-core", "@lydell/node-pty"],
    // A few CommonJS dependencies of the UI (signal-exit, the React reconciler) call
    // require() for Node built-ins, which ESM output lacks.
    banner: {
        js: 'import { createRequire as __northCreateRequire } from "node:module"; const require = __northCreateRequire(import.meta.url);',
    },
    define: {
        __NORTH_VERSION__: JSON.stringify(pkg.version),
        // JSON text, not objects: esbuild initialises an object-valued define in every
        // module of the bundle, and inlines a string where it is used.
        __NORTH_TOOL_SCHEMAS__: JSON.stringify(JSON.stringify(toolSchemas)),
        __NORTH_ZOD_CJS__: JSON.stringify(ZOD_BUNDLE),
        __NORTH_USER_SETTINGS_SCHEMA__: JSON.stringify(JSON.stringify(userSettingsSchema)),
        // React and its reconciler ship development builds behind this check.
        "process.env.NODE_ENV": '"production"',
    },
    plugins: [
        // Ink's incremental-render fix; fails the build when it no longer applies.
        inkPatchEsbuild(),
        // Ink's text-size cache, bounded (it grew with every line a long chat drew).
        inkTextCachePatchEsbuild(),
        // North's copies of the UI's text packages' files (vendor/README.md).
        vendoredFilesEsbuild(),
        identicalCopiesEsbuild(["ansi-styles"]),
    ],
    logLevel: "warning",
});
// esbuild has printed the errors; a stack trace of the rejection would add nothing.
await built.catch(() => process.exit(1));

// Zod for src/util/zod-runtime.ts, which requires it on first use: only the members
// North uses (its ZOD_MEMBERS list), tree-shaken into one CommonJS file.
{
    const members = await runtimeZodMembers().catch((error) => {
        console.error(`The zod members cannot be read: ${error?.stack ?? error}`);
        process.exit(1);
    });
    await build({
        stdin: {
            contents: `export { ${members.join(", ")} } from "zod";`,
            resolveDir: new URL("..", import.meta.url).pathname,
            loader: "js",
        },
        outfile: `dist/${ZOD_BUNDLE}`,
        bundle: true,
        format: "cjs",
        platform: "node",
        target: "node20",
        mainFields: ["module", "main"],
        minifyWhitespace: true,
        minifySyntax: true,
        logLevel: "warning",
    }).catch(() => process.exit(1));
}

// The shell-command parser (src/tools/permissions/bash-parser.ts) loads its two
// WebAssembly files beside the bundle; esbuild bundles JavaScript only.
{
    const { createRequire } = await import("node:module");
    const { copyFileSync } = await import("node:fs");
    const resolveFromRoot = createRequire(import.meta.url).resolve;
    for (const [specifier, name] of [
        ["web-tree-sitter/tree-sitter.wasm", "tree-sitter.wasm"],
        ["tree-sitter-bash/tree-sitter-bash.wasm", "tree-sitter-bash.wasm"],
    ]) {
        copyFileSync(resolveFromRoot(specifier), new URL(`../dist/${name}`, import.meta.url));
    }
}

// The Node API's types: esbuild emits no declarations, and src/cli/api-types.ts imports
// nothing, so it is declared on its own; createSession's type is the one src/api.ts implements.
{
    const { writeFileSync } = await import("node:fs");
    const ts = (await import("typescript")).default;
    const source = readFileSync(new URL("../src/cli/api-types.ts", import.meta.url), "utf8");
    const { outputText, diagnostics } = ts.transpileDeclaration(source, {
        fileName: "api-types.ts",
        reportDiagnostics: true,
    });
    if (diagnostics?.length) {
        console.error("src/cli/api-types.ts cannot be declared on its own:");
        for (const d of diagnostics)
            console.error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
        process.exit(1);
    }
    writeFileSync(
        new URL("../dist/api.d.ts", import.meta.url),
        `${outputText}export declare const createSession: CreateSession;\n`
    );
}
