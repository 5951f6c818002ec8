import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import xtermHeadless from "@xterm/headless";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { inkPatchEsbuild, patchInkLogUpdate } from "../../scripts/ink-patch.mjs";

const { Terminal } = xtermHeadless;
const installedLogUpdate = path.join(
    path.dirname(fileURLToPath(import.meta.resolve("ink"))),
    "log-update.js"
);

type LogUpdate = ((frame: string) => boolean) & { done(): void };
interface LogUpdateModule {
    default: { create(stream: NodeJS.WriteStream, options: { incremental: boolean }): LogUpdate };
}

/** Draws frames with Ink's incremental renderer on a headless terminal; returns the screen rows. */
async function drawIncrementally(frames: string[]): Promise<string[]> {
    const term = new Terminal({ cols: 40, rows: 8, allowProposedApi: true });
    let written = Promise.resolve();
    const stream = {
        isTTY: false,
        columns: 40,
        rows: 8,
        write(chunk: string) {
            written = new Promise((resolve) => term.write(chunk, resolve));
            return true;
        },
    } as unknown as NodeJS.WriteStream;
    // The module the tests load, so through vitest's transform (see vitest.config.ts).
    const mod = (await import(/* @vite-ignore */ installedLogUpdate)) as LogUpdateModule;
    const log = mod.default.create(stream, { incremental: true });
    for (const frame of frames) log(frame);
    await written;
    const rows: string[] = [];
    for (let y = 0; y < 8; y++) {
        rows.push(term.buffer.active.getLine(y)?.translateToString(true) ?? "");
    }
    term.dispose();
    return rows;
}

describe("Ink incremental-render patch", () => {
    it("applies to the installed Ink", () => {
        const source = readFileSync(installedLogUpdate, "utf8");
        const patched = patchInkLogUpdate(source);
        expect(patched).not.toBe(source);
        expect(patched).toContain("previousOutput.endsWith('\\n') ? 0 : 1");
    });

    it("is what the tests run: a changed last line is redrawn in place, not one row low", async () => {
        const rows = await drawIncrementally(["header\nstatus 1\n", "header\nstatus 2\n"]);
        expect(rows.slice(0, 3)).toEqual(["header", "status 2", ""]);
    });

    it("refuses an Ink whose log-update no longer has the line it fixes", () => {
        expect(() =>
            patchInkLogUpdate("export default 1;\n", "/x/ink/build/log-update.js")
        ).toThrow(/no longer applies: \/x\/ink\/build\/log-update\.js does not contain/);
    });

    describe("in the build", () => {
        /** Bundles an entry that re-exports `logUpdate` (or nothing, for null). */
        const bundle = async (logUpdate: string | null) => {
            const dir = mkdtempSync(path.join(tmpdir(), "north-ink-patch-"));
            try {
                const entry = path.join(dir, "entry.js");
                writeFileSync(
                    entry,
                    logUpdate === null
                        ? "export const x = 1;\n"
                        : `export { default } from ${JSON.stringify(logUpdate)};\n`
                );
                const result = await build({
                    entryPoints: [entry],
                    bundle: true,
                    write: false,
                    format: "esm",
                    platform: "node",
                    logLevel: "silent",
                    plugins: [inkPatchEsbuild()],
                });
                return result.outputFiles[0]?.text ?? "";
            } finally {
                rmSync(dir, { recursive: true, force: true });
            }
        };

        /** A log-update.js at an Ink-like path whose patched line has moved. */
        const movedInk = () => {
            const dir = mkdtempSync(path.join(tmpdir(), "north-ink-moved-"));
            const file = path.join(dir, "ink", "build", "log-update.js");
            mkdirSync(path.dirname(file), { recursive: true });
            writeFileSync(file, "export default function logUpdate() {}\n");
            return { file, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
        };

        it("bundles the fixed line", async () => {
            const text = await bundle(installedLogUpdate);
            expect(text).toContain('previousOutput.endsWith("\\n") ? 0 : 1');
        });

        it("fails when the line moved", async () => {
            const moved = movedInk();
            try {
                await expect(bundle(moved.file)).rejects.toThrow(
                    /incremental-render fix no longer applies/
                );
            } finally {
                moved.cleanup();
            }
        });

        it("fails when Ink's log-update is not bundled at all", async () => {
            await expect(bundle(null)).rejects.toThrow(/log-update\.js was not bundled/);
        });
    });
});
