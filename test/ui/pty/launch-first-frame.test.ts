/**
 * The chat's first frame loads only what it draws. Node's fetch (undici) is
 * the costliest thing that slipped in: Yoga's loader fetched its inlined wasm
 * through it. Needs `npm run build` first.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type NorthPtySession, startNorthSession } from "../../kit/pty";

const TIMEOUT = 30_000;
// A file URL: NODE_OPTIONS splits on spaces, which a URL escapes.
const PROBE = new URL("./first-frame-probe.mjs", import.meta.url).href;

let session: NorthPtySession | undefined;
let probeDir: string | undefined;
afterEach(async () => {
    await session?.dispose();
    session = undefined;
    if (probeDir) rmSync(probeDir, { recursive: true, force: true });
    probeDir = undefined;
});

describe("chat launch", () => {
    it(
        "draws the first frame without loading Node's fetch, and fetch works after it",
        async () => {
            probeDir = mkdtempSync(join(tmpdir(), "north-first-frame-"));
            const report = join(probeDir, "probe.json");
            session = await startNorthSession({
                env: { NODE_OPTIONS: `--import ${PROBE}`, NORTH_FIRST_FRAME_PROBE: report },
            });
            const probe = JSON.parse(readFileSync(report, "utf8")) as {
                modules: string[];
                fetch: string;
            };
            // The probe saw Node's own modules load (so a miss below is real).
            expect(probe.modules.some((name) => name.includes("internal/modules/esm"))).toBe(true);
            expect(probe.modules.filter((name) => name.includes("undici"))).toEqual([]);
            expect(probe.fetch).toBe("function");

            // The engine, loaded behind the frame, still answers.
            session.server.enqueue({ text: "Still answering." });
            await session.submit("are you there?");
            await session.north.waitForText("Still answering.");
        },
        TIMEOUT
    );
});
