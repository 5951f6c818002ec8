/**
 * The offer after trust (src/cli/project-plugin-offer.ts) with B's real
 * operations and a marketplace made with real git: "not now" clones nothing;
 * "all" asks for each plugin on its own after showing what it can run, keeps
 * only the ones said yes to, and runs none of their code.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PluginChange } from "../../src/cli/plugin-consent";
import { offerDeclaredPlugins, type PluginOfferAsker } from "../../src/cli/project-plugin-offer";
import { readDeclaredPlugins } from "../../src/cli/project-declared-plugins";
import { pluginsDir, readInstalledPlugins } from "../../src/storage/plugins/store";
import { readProjectConfig } from "../../src/storage/trust";
import {
    makeTestMarketplace,
    PLUGIN_MARKER_ENV,
    type TestMarketplace,
} from "../kit/plugin-marketplace";

let root: string;
let project: string;
let data: string;
let market: TestMarketplace;
let savedMarker: string | undefined;

beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "north-offer-"));
    project = join(root, "project");
    data = join(root, "data");
    mkdirSync(join(project, ".claude"), { recursive: true });
    market = makeTestMarketplace(root);
    savedMarker = process.env[PLUGIN_MARKER_ENV];
    process.env[PLUGIN_MARKER_ENV] = join(root, "marker");
    writeFileSync(
        join(project, ".claude", "settings.json"),
        JSON.stringify({
            extraKnownMarketplaces: {
                [market.name]: { source: { source: "directory", path: market.dir } },
            },
            enabledPlugins: { [`alpha@${market.name}`]: true, [`beta@${market.name}`]: true },
        })
    );
});
afterEach(() => {
    if (savedMarker === undefined) delete process.env[PLUGIN_MARKER_ENV];
    else process.env[PLUGIN_MARKER_ENV] = savedMarker;
    rmSync(root, { recursive: true, force: true });
});

function asker(choice: string | null, yesTo: string[]) {
    const asked: PluginChange[] = [];
    const notes: string[] = [];
    const offered: string[][] = [];
    const ask: PluginOfferAsker = {
        choose: async (_title, options) => {
            offered.push(options.map((o) => o.id));
            return choice;
        },
        confirm: async (change) => {
            asked.push(change);
            return yesTo.includes(change.id);
        },
        note: (message) => notes.push(message),
    };
    return { ask, asked, notes, offered };
}

const declared = () => readDeclaredPlugins(readProjectConfig(project), data);

describe("the offer to install a trusted project's plugins", () => {
    it("not now: nothing is cloned or installed", async () => {
        const { ask, offered, asked } = asker("", []);
        expect(
            await offerDeclaredPlugins(declared(), ask, { dataDir: data, projectDir: project })
        ).toEqual([]);
        const alpha = `alpha@${market.name}`;
        const beta = `beta@${market.name}`;
        expect(offered).toEqual([["*", alpha, beta, ""]]);
        expect(asked).toEqual([]);
        expect(existsSync(pluginsDir(data))).toBe(false);
    });

    it("all: each plugin shows its programs and takes its own yes; no kept for the one refused", async () => {
        const alpha = `alpha@${market.name}`;
        const beta = `beta@${market.name}`;
        const { ask, asked, notes } = asker("*", [alpha]);
        const done = await offerDeclaredPlugins(declared(), ask, {
            dataDir: data,
            projectDir: project,
        });
        expect(done).toEqual([alpha]);
        expect(asked.map((c) => c.id)).toEqual([alpha, beta]);
        expect(asked[0]!.inventory.hooks.map((h) => h.event).sort()).toEqual([
            "PostToolUse",
            "SessionStart",
        ]);
        expect(asked[1]!.inventory.mcpServers).toHaveLength(1);
        expect(Object.keys(readInstalledPlugins(data))).toEqual([alpha]);
        expect(notes).toEqual([`installed ${alpha}`, `${beta} not installed`]);
        // Nothing of either ran: alpha's hooks and beta's server write this file when they do.
        expect(existsSync(join(root, "marker"))).toBe(false);
        // Now installed: the trust question would say so, and there is nothing more to offer for it.
        expect(declared().plugins.find((p) => p.id === alpha)!.state).toBe("installed");
    });

    it("one: only that plugin is asked about", async () => {
        const beta = `beta@${market.name}`;
        const { ask, asked } = asker(beta, [beta]);
        expect(
            await offerDeclaredPlugins(declared(), ask, { dataDir: data, projectDir: project })
        ).toEqual([beta]);
        expect(asked.map((c) => c.id)).toEqual([beta]);
        expect(readFileSync(join(pluginsDir(data), "installed.json"), "utf8")).toContain(beta);
    });
});
