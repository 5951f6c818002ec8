import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
    PLUGIN_MARKER_ENV,
    type TestMarketplace,
    isolatedNorthEnv,
    makeTestMarketplace,
} from "../kit/plugin-marketplace";
import { type NorthRun, runNorth } from "../kit/run-north";

let root: string;
let project: string;
let env: NodeJS.ProcessEnv;
let market: TestMarketplace;
let marker: string;

beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "north-plugin-cli-"));
    project = join(root, "project");
    mkdirSync(project);
    marker = join(root, "marker.txt");
    env = { ...isolatedNorthEnv(root), [PLUGIN_MARKER_ENV]: marker };
    market = makeTestMarketplace(root);
});

afterAll(() => {
    rmSync(root, { recursive: true, force: true });
});

function north(...args: string[]): Promise<NorthRun> {
    return runNorth(["plugin", ...args], { env, cwd: project });
}

function ok(run: NorthRun): NorthRun {
    expect(run.code, `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`).toBe(0);
    return run;
}

function installed(): Record<string, { enabled: boolean; path: string; fingerprint: string }> {
    const file = join(env.NORTH_DATA_DIR!, "plugins", "installed.json");
    return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : {};
}

function staging(): string[] {
    const dir = join(env.NORTH_DATA_DIR!, "plugins", "staging");
    return existsSync(dir) ? readdirSync(dir) : [];
}

describe("north plugin", () => {
    it("prints its help, and a usage mistake exits 2 naming the closest command or option", async () => {
        const help = ok(await north("--help"));
        for (const word of [
            "marketplace add",
            "install",
            "--available",
            "--keep-data",
            "--all",
            "--yes",
        ]) {
            expect(help.stdout).toContain(word);
        }
        const typo = await north("instal", "alpha");
        expect(typo.code).toBe(2);
        expect(typo.stderr).toContain("did you mean install?");
        const flag = await north("list", "--avail");
        expect(flag.code).toBe(2);
        expect(flag.stderr).toContain("did you mean --available?");
        const market2 = await north("marketplace", "ad", "x");
        expect(market2.code).toBe(2);
        expect(market2.stderr).toContain("did you mean marketplace add?");
        const missing = await north("enable");
        expect(missing.code).toBe(2);
    });

    it("adds, lists, installs (a yes required), updates, switches, removes; nothing of a plugin runs", async () => {
        const added = ok(await north("marketplace", "add", market.dir));
        expect(added.stdout).toContain(
            `added marketplace north-test from ${market.dir} at ${market.commit().slice(0, 12)}: 2 plugins`
        );
        expect(ok(await north("marketplace", "list")).stdout).toContain("north-test");
        const listedJson = JSON.parse(ok(await north("marketplace", "list", "--json")).stdout);
        expect(listedJson).toMatchObject([{ name: "north-test", commit: market.commit() }]);
        const available = ok(await north("list", "--available")).stdout;
        expect(available).toContain("alpha@north-test");
        expect(available).toContain("The beta test plugin");

        // No terminal and no --yes: the inventory is shown, nothing is installed.
        const refused = await north("install", "alpha");
        expect(refused.code).toBe(1);
        expect(refused.stderr).toContain("mark.mjs");
        expect(refused.stderr).toContain("--yes");
        expect(installed()).toEqual({});
        expect(staging()).toEqual([]);

        // Two installs at once: both records land in installed.json.
        const [alpha, beta] = await Promise.all([
            north("install", "alpha", "--yes"),
            north("install", "beta@north-test", "-y"),
        ]);
        expect(ok(alpha!).stdout).toContain("installed alpha@north-test");
        ok(beta!);
        expect(Object.keys(installed()).sort()).toEqual(["alpha@north-test", "beta@north-test"]);
        expect(existsSync(marker)).toBe(false);

        expect(ok(await north("install", "alpha")).stdout).toContain(
            "already installed (the same files): alpha@north-test"
        );
        const list = ok(await north("list")).stdout;
        expect(list).toMatch(/alpha@north-test .*enabled/);
        const listJson = JSON.parse(ok(await north("list", "--json")).stdout) as Array<{
            id: string;
        }>;
        expect(listJson.map((record) => record.id)).toEqual([
            "alpha@north-test",
            "beta@north-test",
        ]);
        expect(ok(await north("list", "--available")).stdout).toContain(
            "alpha@north-test  [installed]  The alpha test plugin"
        );

        expect(ok(await north("update", "--all")).stdout).toContain(
            "alpha@north-test is up to date"
        );
        const approved = installed()["alpha@north-test"]!;
        market.change("plugins/alpha/hooks/mark.mjs", "// changed\n");
        const unasked = await north("update", "alpha");
        expect(unasked.code).toBe(1);
        expect(unasked.stderr).toContain("--yes");
        expect(installed()["alpha@north-test"]!.fingerprint).toBe(approved.fingerprint);
        ok(await north("update", "alpha", "--yes"));
        expect(installed()["alpha@north-test"]!.fingerprint).not.toBe(approved.fingerprint);
        expect(existsSync(marker)).toBe(false);

        ok(await north("disable", "alpha"));
        expect(installed()["alpha@north-test"]!.enabled).toBe(false);
        ok(await north("enable", "alpha@north-test"));
        expect(installed()["alpha@north-test"]!.enabled).toBe(true);

        const unknown = await north("remove", "gamma");
        expect(unknown.code).toBe(1);
        expect(unknown.stderr.trim()).toBe("north: no installed plugin is gamma");
        const path = installed()["alpha@north-test"]!.path;
        ok(await north("uninstall", "alpha"));
        expect(existsSync(path)).toBe(false);
        expect(Object.keys(installed())).toEqual(["beta@north-test"]);

        const removed = ok(await north("marketplace", "remove", "north-test"));
        expect(removed.stdout).toContain("and its plugins beta@north-test");
        expect(installed()).toEqual({});
        expect(ok(await north("marketplace", "list")).stdout).toContain("no marketplaces added");
        expect(existsSync(marker)).toBe(false);
    });

    it("a folder that is not a git repository fails with one line and exit 1", async () => {
        const plain = makeTestMarketplace(join(root, "plain"), { noGit: true });
        const run = await north("marketplace", "add", plain.dir);
        expect(run.code).toBe(1);
        expect(run.stderr.trim().split("\n")).toHaveLength(1);
        expect(run.stderr).toContain("is not a git repository");
    });
});
