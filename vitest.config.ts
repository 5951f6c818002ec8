import { defineConfig } from "vitest/config";
import { inkPatchVite } from "./scripts/ink-patch.mjs";
import { vendoredFilesVite } from "./scripts/vendored-files.mjs";

export default defineConfig({
    // The tests run the UI code the build ships: Ink with its fix (scripts/ink-patch.mjs)
    // and North's copies of the text packages' files (vendor/README.md).
    plugins: [inkPatchVite(), vendoredFilesVite()],
    test: {
        include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
        testTimeout: 20_000,
        hookTimeout: 20_000,
        pool: "forks",
        // Externalized packages bypass Vite's transforms; these go through them to be replaced.
        server: {
            deps: {
                inline: [
                    "ink",
                    "string-width",
                    "wrap-ansi",
                    "slice-ansi",
                    "@alcalzone/ansi-tokenize",
                ],
            },
        },
    },
});
