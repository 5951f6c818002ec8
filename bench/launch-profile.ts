/**
 * `npx tsx bench/launch-profile.ts [DIR]`: one chat launch in a pty with
 * `--cpu-prof`, ended by Ctrl+C once the composer shows, then prints where the
 * CPU went before the composer was drawn (self time by script, then by function).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { isAppReady, spawnNorthPty } from "../test/kit/pty";
import { NORTH_BIN } from "../test/kit/run-north";
import { startPacedLlmServer } from "../test/kit/paced-llm-server";
import { makeFixture } from "./tui";

interface ProfileNode {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
    nodes: ProfileNode[];
    startTime: number;
    samples: number[];
    timeDeltas: number[];
}

const dir = process.argv[2] ?? "/tmp/north-launch-profile";
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const server = await startPacedLlmServer();
const fixture = makeFixture(server.anthropicBaseUrl);
const started = performance.now();
const north = spawnNorthPty({
    // Node takes --cpu-prof on its command line only, ahead of the script.
    bin: "--cpu-prof",
    args: [`--cpu-prof-dir=${dir}`, NORTH_BIN, "--path", fixture.repo],
    env: fixture.env,
    cwd: fixture.repo,
    cols: 100,
    rows: 30,
});
await north.waitFor(() => isAppReady(north), 30_000, "the composer");
const readyMs = performance.now() - started;
await north.exit(10_000);
north.kill();
await server.close();
rmSync(fixture.repo, { recursive: true, force: true });
rmSync(fixture.home, { recursive: true, force: true });

const file = readdirSync(dir).find((name) => name.endsWith(".cpuprofile"));
if (!file) throw new Error("no profile written");
const profile = JSON.parse(readFileSync(join(dir, file), "utf8")) as CpuProfile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
// Samples up to the composer (the process started a few ms before the profiler).
const byScript = new Map<string, number>();
const byFunction = new Map<string, number>();
let elapsedUs = 0;
for (let i = 0; i < profile.samples.length; i++) {
    elapsedUs += profile.timeDeltas[i] ?? 0;
    if (elapsedUs / 1000 > readyMs) break;
    const frame = byId.get(profile.samples[i]!)!.callFrame;
    const deltaMs = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const script =
        frame.url.replace(/.*\/(dist|node_modules)\//, "$1/") || `(${frame.functionName})`;
    byScript.set(script, (byScript.get(script) ?? 0) + deltaMs);
    const fn = `${frame.functionName || "(anonymous)"} ${script}:${frame.lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + deltaMs);
}
const top = (map: Map<string, number>, n: number) =>
    [...map].sort((a, b) => b[1] - a[1]).slice(0, n);
console.log(`composer visible after ${readyMs.toFixed(0)} ms; profile ${join(dir, file)}`);
console.log("self time by script:");
for (const [name, ms] of top(byScript, 15))
    console.log(`  ${ms.toFixed(1).padStart(7)} ms  ${name}`);
console.log("self time by function:");
for (const [name, ms] of top(byFunction, 30))
    console.log(`  ${ms.toFixed(1).padStart(7)} ms  ${name}`);
