import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { build } from "esbuild";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
    vendoredCopyOf,
    vendoredFiles,
    vendoredFilesEsbuild,
} from "../../scripts/vendored-files.mjs";

let dir: string;
beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "north-vendored-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** An installed package `name`@`version` holding `file`. */
function install(name: string, version: string, file: string): string {
    const root = join(dir, "node_modules", name);
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, "package.json"), JSON.stringify({ name, version }));
    writeFileSync(join(root, file), "export default 0;\n");
    return join(root, file);
}

describe("North's copies of other packages' files (vendor/)", () => {
    it("each come with their package's licence", () => {
        const files = vendoredFiles();
        expect(files.length).toBeGreaterThan(0);
        for (const file of files) {
            const folder = file.copy.slice(0, file.copy.length - file.file.length);
            expect(existsSync(join(folder, "license")), file.copy).toBe(true);
        }
    });

    it("stand in only for the version they were taken from", () => {
        const [first] = vendoredFiles();
        expect(vendoredCopyOf(install(first!.name, first!.version, first!.file))).toEqual(first);
        rmSync(join(dir, "node_modules"), { recursive: true });
        expect(vendoredCopyOf(install(first!.name, "999.0.0", first!.file))).toBeUndefined();
    });

    it("fail the build when one goes unused (the installed package moved on)", async () => {
        const [first] = vendoredFiles();
        const entry = install(first!.name, "999.0.0", first!.file);
        const built = build({
            entryPoints: [entry],
            bundle: true,
            write: false,
            plugins: [vendoredFilesEsbuild()],
            logLevel: "silent",
        });
        await expect(built).rejects.toThrow(/was not bundled: the installed .* is another version/);
    });
});
