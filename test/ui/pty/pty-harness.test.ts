/** The pty harness itself, against output that does not depend on the interactive app. */
import { rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { type PtyNorth, spawnNorthPty } from "../../kit/pty";
import { isolatedHome } from "../../kit/run-north";

let north: PtyNorth | undefined;
let home: string | undefined;
afterEach(() => {
    north?.kill();
    north = undefined;
    if (home) rmSync(home, { recursive: true, force: true });
    home = undefined;
});

describe("pty harness", () => {
    it("runs the built north in a terminal and reads its screen", async () => {
        const isolated = isolatedHome();
        home = isolated.home;
        north = spawnNorthPty({
            args: ["--help"],
            env: isolated.env,
            cwd: home,
            cols: 120,
            rows: 80,
        });
        await north.waitForText(/Exit codes: 0 success/);
        const { exitCode } = await north.exited;
        expect(exitCode).toBe(0);
        await north.flush();
        expect(north.screenText()).toContain("North — a terminal AI coding agent");
        expect(north.bytesWritten()).toBeGreaterThan(100);
        expect(north.term.buffer.active.type).toBe("normal");
    });

    it("reports the screen when a wait times out", async () => {
        const isolated = isolatedHome();
        home = isolated.home;
        north = spawnNorthPty({ args: ["--version"], env: isolated.env, cwd: home });
        await expect(north.waitForText("never shown", 500)).rejects.toThrow(/screen:\n\d+\.\d+/);
    });
});
