import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Tty background processes cost nothing until one starts: the terminal emulator is a
// chunk of its own that only `import()` reaches, and the native pty library stays out of
// the bundle, loaded from node_modules (an optional dependency) when a tty command starts.
const CHUNKS = fileURLToPath(new URL("../../dist/chunks/", import.meta.url));

function chunks(): string[] {
    const files = readdirSync(CHUNKS).filter((file) => file.endsWith(".js"));
    if (files.length === 0) throw new Error("dist/chunks is empty: run the build first");
    return files;
}

function sourcesOf(file: string): string[] {
    const map = JSON.parse(readFileSync(join(CHUNKS, `${file}.map`), "utf8")) as {
        sources: string[];
    };
    return map.sources;
}

describe("the tty modules in the build", () => {
    it("put the terminal emulator in one chunk that no chunk imports statically", () => {
        const withXterm = chunks().filter((file) =>
            sourcesOf(file).some((source) => source.includes("@xterm/"))
        );
        expect(withXterm).toHaveLength(1);
        const [emulator] = withXterm as [string];
        expect(sourcesOf(emulator)).toContain("../../src/tools/processes/terminal-screen.ts");
        for (const file of chunks()) {
            const code = readFileSync(join(CHUNKS, file), "utf8");
            // A static import is `import{…}from"./x.js"` or `import"./x.js"`; `import("./x.js")` is not one.
            expect(code, file).not.toMatch(
                new RegExp(`(?:\\bfrom|\\bimport)\\s*"\\./${emulator}"`)
            );
        }
    });

    it("leave the native pty library out of the bundle, imported by name when needed", () => {
        const bundled = chunks().filter((file) =>
            sourcesOf(file).some((source) => source.includes("node-pty"))
        );
        expect(bundled).toEqual([]);
        const importing = chunks().filter((file) =>
            readFileSync(join(CHUNKS, file), "utf8").includes('import("@lydell/node-pty")')
        );
        expect(importing).toHaveLength(1);
    });
});
