import { rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isolatedHome, runNorth } from "../kit/run-north";

describe("north (interactive) without a terminal", () => {
    it("exits 2 and points to print mode", async () => {
        const { home, env } = isolatedHome();
        try {
            const run = await runNorth([], { env, input: "" });
            expect(run.code).toBe(2);
            expect(run.stderr).toContain("needs a terminal");
            expect(run.stderr).toContain("north -p");
            expect(run.stdout).toBe("");
        } finally {
            rmSync(home, { recursive: true, force: true });
        }
    });
});
