/**
 * Ink 6.8 keeps the size of every text it ever laid out; the patch in
 * scripts/ink-patch.mjs bounds that cache, in the build and in the tests alike.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import {
    INK_TEXT_SIZES_KEPT,
    inkTextCachePatchEsbuild,
    patchInkMeasureText,
} from "../../scripts/ink-patch.mjs";

const installedMeasureText = path.join(
    path.dirname(fileURLToPath(import.meta.resolve("ink"))),
    "measure-text.js"
);

type MeasureText = (text: string) => { width: number; height: number };

describe("Ink text-size cache bound", () => {
    it("applies to the installed Ink", () => {
        const source = readFileSync(installedMeasureText, "utf8");
        const patched = patchInkMeasureText(source);
        expect(patched).not.toBe(source);
        expect(patched).toContain(`cache.size >= ${INK_TEXT_SIZES_KEPT}`);
    });

    it("is what the tests run: a text measured long ago is forgotten, a recent one kept", async () => {
        // The module the tests load, so through vitest's transform (see vitest.config.ts).
        const measureText = (
            (await import(/* @vite-ignore */ installedMeasureText)) as { default: MeasureText }
        ).default;
        const first = measureText("the first line of a long session");
        expect(measureText("the first line of a long session")).toBe(first);
        // A long session draws many more distinct lines than the cache keeps.
        for (let i = 0; i < INK_TEXT_SIZES_KEPT; i++) measureText(`line ${i} of turn ${i % 97}`);
        const again = measureText("the first line of a long session");
        expect(again).toEqual(first);
        expect(again).not.toBe(first);
        const recent = measureText(
            `line ${INK_TEXT_SIZES_KEPT - 1} of turn ${(INK_TEXT_SIZES_KEPT - 1) % 97}`
        );
        expect(
            measureText(`line ${INK_TEXT_SIZES_KEPT - 1} of turn ${(INK_TEXT_SIZES_KEPT - 1) % 97}`)
        ).toBe(recent);
    });

    it("refuses an Ink whose measure-text no longer has the line it bounds", () => {
        expect(() =>
            patchInkMeasureText("export default 1;\n", "/x/ink/build/measure-text.js")
        ).toThrow(/no longer applies: \/x\/ink\/build\/measure-text\.js does not contain/);
    });

    it("is bundled by the build, which fails when measure-text is not bundled at all", async () => {
        const dir = mkdtempSync(path.join(tmpdir(), "north-ink-cache-patch-"));
        const bundle = async (source: string) => {
            const entry = path.join(dir, "entry.js");
            writeFileSync(entry, source);
            const result = await build({
                entryPoints: [entry],
                bundle: true,
                write: false,
                format: "esm",
                platform: "node",
                logLevel: "silent",
                plugins: [inkTextCachePatchEsbuild()],
            });
            return result.outputFiles[0]?.text ?? "";
        };
        try {
            const text = await bundle(
                `export { default } from ${JSON.stringify(installedMeasureText)};\n`
            );
            // esbuild may print the bound as 1e3: look for the eviction itself.
            expect(text).toContain("cache.delete(cache.keys().next().value)");
            await expect(bundle("export const x = 1;\n")).rejects.toThrow(
                /measure-text\.js was not bundled/
            );
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });
});
