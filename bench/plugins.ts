/**
 * `npx tsx bench/run.ts plugins` (after `node scripts/build.mjs`): start-up
 * with 10 Claude Code plugins installed, all in one run, interleaved.
 *
 * The plugins (installed with North's own marketplace add + install, the
 * code a user's `north plugin install --yes` runs): six copies of the test
 * kit's alpha (a command, an agent, a skill, a PostToolUse hook), three of
 * beta (an output style) and Render's real plugin (test/fixtures/plugins/render:
 * 2 commands, an agent, 3 skills, a PostToolUse hook; its `.mcp.json` left
 * out of the copy because it names a remote server on the internet).
 * Two sets: "parts" (what loading a plugin costs North) and "+ programs"
 * (alpha's SessionStart hook and beta's stdio MCP server added: what the
 * plugins' own programs cost on top).
 *
 * Figures: bare `node` in a pty and the chat's launch to its first frame
 * (0 / 10 plugins; target ≤ 2× bare node: plugins load after the first
 * frame), and `north -p`'s first request (0 / 10; target ≤ 1.15× none).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { addMarketplace, commitPrepared, prepareInstall } from "../src/agent/plugins/operations";
import { startFakeLlmServer } from "../test/kit/fake-llm-server";
import { startPacedLlmServer } from "../test/kit/paced-llm-server";
import { alphaFiles, betaFiles, makeTestMarketplace } from "../test/kit/plugin-marketplace";
import { launchMs } from "./launch";
import { median } from "./measure";
import { printTimeline, type Timeline, writeTimelinePreload } from "./print-startup";
import { bareNodeLaunch, type Fixture, makeFixture } from "./tui";

const NORTH = fileURLToPath(new URL("../bin/north.js", import.meta.url));
const RENDER = fileURLToPath(new URL("../test/fixtures/plugins/render", import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 15);

type PluginSet = "none" | "parts" | "programs";

/** Every file of a folder as relative path → text (Render's plugin is all text). */
function treeOf(root: string): Record<string, string> {
    const out: Record<string, string> = {};
    const walk = (dir: string): void => {
        for (const name of readdirSync(dir)) {
            const path = join(dir, name);
            if (statSync(path).isDirectory()) walk(path);
            else out[relative(root, path)] = readFileSync(path, "utf8");
        }
    };
    walk(root);
    return out;
}

/** The ten plugins of a set, by name. */
function tenPlugins(set: Exclude<PluginSet, "none">): Record<string, Record<string, string>> {
    const plugins: Record<string, Record<string, string>> = {};
    for (let i = 1; i <= 6; i++) {
        const files = alphaFiles(`alpha${i}`);
        if (set === "parts") {
            const hooks = JSON.parse(files["hooks/hooks.json"]!) as {
                hooks: Record<string, unknown>;
            };
            delete hooks.hooks.SessionStart;
            files["hooks/hooks.json"] = JSON.stringify(hooks, null, 4) + "\n";
        }
        plugins[`alpha${i}`] = files;
    }
    for (let i = 1; i <= 3; i++) {
        const files = betaFiles(`beta${i}`);
        if (set === "parts") delete files[".mcp.json"];
        plugins[`beta${i}`] = files;
    }
    const render = treeOf(RENDER);
    delete render[".mcp.json"];
    delete render[".claude-plugin/marketplace.json"];
    plugins.render = render;
    return plugins;
}

/** Installs a set into `dataDir` the way `north plugin install --yes` does. */
async function installSet(dataDir: string, projectDir: string, set: PluginSet): Promise<void> {
    if (set === "none") return;
    const parent = join(dataDir, "..", `market-${set}`);
    const market = makeTestMarketplace(parent, {
        name: `bench-${set}`,
        extraPlugins: tenPlugins(set),
        entries: { alpha: null, beta: null },
    });
    const ctx = { dataDir, projectDir };
    await addMarketplace(ctx, { kind: "local", path: market.dir });
    for (const name of Object.keys(tenPlugins(set))) {
        await commitPrepared(ctx, await prepareInstall(ctx, `${name}@${market.name}`));
    }
}

/** A fixture (repo, home, env) per set, all sharing one repository folder's contents. */
export async function fixtures(serverUrl: string): Promise<Record<PluginSet, Fixture>> {
    const out = {} as Record<PluginSet, Fixture>;
    for (const set of ["none", "parts", "programs"] as const) {
        const fixture = makeFixture(serverUrl);
        await installSet(join(fixture.home, "data"), fixture.repo, set);
        out[set] = fixture;
    }
    return out;
}

export function cleanup(all: Record<PluginSet, Fixture>): void {
    for (const fixture of Object.values(all)) {
        rmSync(fixture.repo, { recursive: true, force: true });
        rmSync(fixture.home, { recursive: true, force: true });
    }
}

async function benchLaunchWithPlugins(): Promise<void> {
    const server = await startPacedLlmServer();
    const all = await fixtures(server.anthropicBaseUrl);
    const samples = { bare: [] as number[], none: [], parts: [], programs: [] } as Record<
        "bare" | PluginSet,
        number[]
    >;
    try {
        for (const set of ["none", "parts", "programs"] as const) await launchMs(NORTH, all[set]);
        for (let i = 0; i < RUNS; i++) {
            samples.bare.push(await bareNodeLaunch());
            for (const set of ["none", "parts", "programs"] as const) {
                samples[set].push(await launchMs(NORTH, all[set]));
            }
        }
    } finally {
        await server.close();
        cleanup(all);
    }
    const bare = median(samples.bare);
    console.log(`\n## chat launch to composer visible, 10 plugins installed (median of ${RUNS})`);
    console.log(`  bare node in a pty        ${bare.toFixed(1)} ms`);
    for (const [set, label] of LABELS) {
        const ms = median(samples[set]);
        console.log(
            `  ${label.padEnd(25)} ${ms.toFixed(1)} ms  ${(ms / bare).toFixed(2)}× bare node`
        );
    }
    console.log("  target: 10 plugins ≤ 2× bare node (plugins load after the first frame)");
}

const LABELS: Array<[PluginSet, string]> = [
    ["none", "north, no plugins"],
    ["parts", "north, 10 plugins"],
    ["programs", "north, 10 + programs"],
];

async function benchPrintWithPlugins(): Promise<void> {
    const server = await startFakeLlmServer();
    const all = await fixtures(server.anthropicBaseUrl);
    const work = join(all.none.home, "bench");
    mkdirSync(work, { recursive: true });
    const timelineFile = writeTimelinePreload(work);
    const samples = { none: [], parts: [], programs: [] } as Record<PluginSet, Timeline[]>;
    const once = (set: PluginSet): Promise<Timeline> => {
        server.enqueue({ text: "Done." });
        return printTimeline(NORTH, { env: all[set].env, repo: all[set].repo, timelineFile });
    };
    try {
        for (const set of ["none", "parts", "programs"] as const) await once(set);
        for (let i = 0; i < RUNS; i++) {
            for (const set of ["none", "parts", "programs"] as const)
                samples[set].push(await once(set));
        }
    } finally {
        await server.close();
        cleanup(all);
    }
    const none = median(samples.none.map((s) => s.requestMs));
    console.log(
        `\n## north -p: start-up to the first request, 10 plugins installed (median of ${RUNS})`
    );
    for (const [set, label] of LABELS) {
        const wall = median(samples[set].map((s) => s.requestMs));
        const cpu = median(samples[set].map((s) => s.requestCpuMs));
        console.log(
            `  ${label.padEnd(25)} ${wall.toFixed(1)} ms wall  ${cpu.toFixed(1)} ms CPU  ${(wall / none).toFixed(3)}× none`
        );
    }
    console.log("  target: 10 plugins ≤ 1.15× none installed");
}

export async function benchPlugins(): Promise<void> {
    await benchLaunchWithPlugins();
    await benchPrintWithPlugins();
}
