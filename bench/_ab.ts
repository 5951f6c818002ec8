import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeLlmServer } from "../test/kit/fake-llm-server";
const server = await startFakeLlmServer();
const home = mkdtempSync(join(tmpdir(), "ab-"));
const repo = mkdtempSync(join(tmpdir(), "abr-"));
spawnSync("git", ["init", "-q"], { cwd: repo });
const dirs = { base: "/tmp/base16", new: "/work/main" };
const times: Record<string, number[]> = { base: [], new: [] };
for (let i = 0; i < 30; i++) {
    for (const k of (i % 2 ? ["base", "new"] : ["new", "base"]) as Array<keyof typeof dirs>) {
        server.enqueue({ text: "hello there" });
        const t = performance.now();
        const r = await new Promise<{ status: number | null; stderr: string }>((res) => { let stderr = ""; const c = spawn("node", [join(dirs[k], "bin/north.js"), "-p", "hi"], { cwd: repo, env: { ...process.env, HOME: home, NORTH_DATA_DIR: join(home, "d"), NORTH_CONFIG_DIR: join(home, "c"), ANTHROPIC_API_KEY: "x", ANTHROPIC_BASE_URL: server.anthropicBaseUrl }, stdio: ["ignore", "pipe", "pipe"] }); c.stderr.on("data", (d) => (stderr += d)); c.stdout.resume(); c.on("close", (status) => res({ status, stderr })); });
        if (r.status !== 0) throw new Error(String(r.stderr));
        times[k]!.push(performance.now() - t);
    }
}
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
console.log(`base ${med(times.base!).toFixed(1)} new ${med(times.new!).toFixed(1)} ratio ${(med(times.new!) / med(times.base!)).toFixed(3)}`);
await server.close();
