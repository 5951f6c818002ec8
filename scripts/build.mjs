// Bundles src/ into dist/ with code splitting, so the entry stays tiny and
// the engine, SDKs and UI load only when a command needs them.
import { build } from "esbuild";
import { readFileSync, rmSync } from "node:fs";

/**
 * Ink 6.8's incremental renderer moves up one row too few when the previous frame
 * ended with a newline (every frame shorter than the screen), so each diff lands
 * one row low and the screen drifts. Moving up over the newline row fixes it.
 */
const inkIncrementalFix = {
    name: "ink-incremental-fix",
    setup(b) {
        b.onLoad({ filter: /[\\/]ink[\\/]build[\\/]log-update\.js$/ }, (args) => {
            const source = readFileSync(args.path, "utf8");
            const buggy = "buffer.push(ansiEscapes.cursorUp(previousVisible - 1));";
            if (!source.includes(buggy)) {
                return {
                    contents: source,
                    warnings: [
                        { text: "ink log-update changed: check the incremental-render fix" },
                    ],
                };
            }
            const fixed =
                "buffer.push(ansiEscapes.cursorUp(previousVisible - (previousOutput.endsWith('\\n') ? 0 : 1)));";
            return { contents: source.replace(buggy, fixed), loader: "js" };
        });
    },
};

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

rmSync(new URL("../dist", import.meta.url), { recursive: true, force: true });
await build({
    entryPoints: { cli: "src/cli/main.ts" },
    outdir: "dist",
    bundle: true,
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
    external: ["react-devtools-core"],
    // A few CommonJS dependencies of the UI (signal-exit, the React reconciler) call
    // require() for Node built-ins, which ESM output lacks.
    banner: {
        js: 'import { createRequire as __northCreateRequire } from "node:module"; const require = __northCreateRequire(import.meta.url);',
    },
    define: {
        __NORTH_VERSION__: JSON.stringify(pkg.version),
        // React and its reconciler ship development builds behind this check.
        "process.env.NODE_ENV": '"production"',
    },
    plugins: [inkIncrementalFix],
    logLevel: "warning",
});
