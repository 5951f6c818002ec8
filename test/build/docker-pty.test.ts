import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { PTY_PACKAGE } from "../../src/tools/processes/pty-io";

// Tty background processes need the optional native pseudo-terminal module: the image
// must install it for its own platform (dist/ cannot bundle native code) and prove it works.
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
    optionalDependencies?: Record<string, string>;
};

/** The final stage's instructions, comments dropped and `\` continuations joined. */
function finalStage(): string[] {
    const text = readFileSync(join(ROOT, "Dockerfile"), "utf8")
        .split("\n")
        .filter((line) => !/^\s*#/.test(line))
        .join("\n")
        .replace(/\\\n/g, " ");
    const stages = text.split(/^FROM\s/m);
    return stages
        .at(-1)!
        .split("\n")
        .map((line) => line.trim())
        .filter(Boolean);
}

describe("the pseudo-terminal module", () => {
    it("is the one optional dependency, pinned to an exact version", () => {
        expect(Object.keys(pkg.optionalDependencies ?? {})).toEqual([PTY_PACKAGE]);
        expect(pkg.optionalDependencies![PTY_PACKAGE]).toMatch(/^\d+\.\d+\.\d+$/);
        expect(pkg.dependencies ?? {}).toEqual({});
    });

    it("is installed in the image's final stage with optional packages, then run in a pty", () => {
        const stage = finalStage();
        const copyManifest = stage.findIndex((line) => /^COPY\b.*package\.json/.test(line));
        const install = stage.findIndex((line) => /^RUN\b.*\bnpm install\b/.test(line));
        expect(copyManifest).toBeGreaterThanOrEqual(0);
        expect(install).toBeGreaterThan(copyManifest);
        const run = stage[install]!;
        expect(run).toMatch(/--omit=dev\b/);
        expect(run).not.toMatch(/--omit=optional|--no-optional/);
        expect(run).toContain(`require("${PTY_PACKAGE}").spawn(`);
        // As root, before the image switches to its user.
        expect(install).toBeLessThan(stage.findIndex((line) => /^USER\b/.test(line)));
    });
});
