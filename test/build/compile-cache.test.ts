import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ltsNodeBinary } from "../../scripts/lts-node.mjs";

// Node's module compile cache in North's data folder (src/cli/launch-boundary.ts),
// through the built CLI on a current Node LTS and on the Node running the tests.
const NORTH = fileURLToPath(new URL("../../bin/north.js", import.meta.url));

let home: string;
beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), "north-compile-cache-"));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function northModels(node: string, dataDir: string) {
    const run = spawnSync(node, [NORTH, "models"], {
        encoding: "utf8",
        env: {
            PATH: process.env.PATH,
            HOME: home,
            NORTH_CONFIG_DIR: join(home, "config"),
            NORTH_DATA_DIR: dataDir,
            XDG_STATE_HOME: join(home, "state"),
        },
    });
    return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Every file below `dir`. */
function filesBelow(dir: string): string[] {
    if (!existsSync(dir)) return [];
    return readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => entry.name);
}

describe("the module compile cache", () => {
    it("fills <data folder>/compile-cache on a current LTS, and the next run still works", () => {
        const lts = ltsNodeBinary();
        const data = join(home, "data");
        const first = northModels(lts, data);
        expect(first.stderr).toBe("");
        expect(first.code).toBe(0);
        expect(first.stdout).toContain("sonnet-4");
        expect(filesBelow(join(data, "compile-cache")).length).toBeGreaterThan(0);

        const second = northModels(lts, data);
        expect(second).toEqual(first);
    }, 120_000);

    it("leaves a data folder that cannot be created alone, and the run works", () => {
        const lts = ltsNodeBinary();
        writeFileSync(join(home, "file"), "");
        const run = northModels(lts, join(home, "file", "data"));
        expect(run.stderr).toBe("");
        expect(run.code).toBe(0);
        expect(run.stdout).toContain("sonnet-4");
    }, 120_000);

    const [major, minor] = process.versions.node.split(".").map(Number) as [number, number];
    it.runIf(major < 22 || (major === 22 && minor < 1))(
        "is not there on a Node without it, and the run works",
        () => {
            const data = join(home, "data");
            const run = northModels(process.execPath, data);
            expect(run.code).toBe(0);
            expect(run.stdout).toContain("sonnet-4");
            expect(existsSync(join(data, "compile-cache"))).toBe(false);
        }
    );
});
