// Bundles src/ into dist/ with code splitting, so the entry stays tiny and
// the engine, SDKs and UI load only when a command needs them.
import { build } from "esbuild";
import { readFileSync, rmSync } from "node:fs";

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
    define: { __NORTH_VERSION__: JSON.stringify(pkg.version) },
    logLevel: "warning",
});
