import { defineConfig } from "vitest/config";
import { inkPatchVite } from "./scripts/ink-patch.mjs";

export default defineConfig({
    // The tests run the Ink the build ships: patched (scripts/ink-patch.mjs).
    plugins: [inkPatchVite()],
    test: {
        include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
        testTimeout: 20_000,
        hookTimeout: 20_000,
        pool: "forks",
        // Externalized packages bypass Vite's transforms; ink goes through them to be patched.
        server: { deps: { inline: ["ink"] } },
    },
});
