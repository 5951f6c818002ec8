/**
 * `npm run bench -- install`: what a global install of the packed tarball costs
 * (packages, size on disk, `npm install -g` wall time) and how fast the
 * installed `north --version` starts next to bare `node -e 0`. The install is
 * offline, so North's one optional dependency (the pseudo-terminal library for
 * tty background processes) is left out; its size is that of the checkout's
 * copy for this platform, which an online install adds.
 */
import { lstatSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { interleavedSeries, printTable, runOnce, series } from "./measure";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 15);

/** Bytes on disk (allocated blocks) under `dir`, symlinks not followed. */
function diskBytes(dir: string): number {
    let total = 0;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        total += lstatSync(path).blocks * 512;
        if (entry.isDirectory()) total += diskBytes(path);
    }
    return total;
}

/** Installed packages under a node_modules folder, nested ones included. */
function countPackages(modules: string): number {
    let count = 0;
    for (const entry of readdirSync(modules, { withFileTypes: true })) {
        if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
        const dirs = entry.name.startsWith("@")
            ? readdirSync(join(modules, entry.name)).map((n) => join(modules, entry.name, n))
            : [join(modules, entry.name)];
        for (const dir of dirs) {
            count++;
            if (readdirSync(dir).includes("node_modules")) {
                count += countPackages(join(dir, "node_modules"));
            }
        }
    }
    return count;
}

export async function benchInstall(): Promise<void> {
    const work = mkdtempSync(join(tmpdir(), "north-bench-install-"));
    // npm isolated from the user's config and cache; offline, so a runtime dependency fails loudly.
    const env = {
        ...process.env,
        npm_config_userconfig: join(work, "npmrc"),
        npm_config_cache: join(work, "npm-cache"),
        npm_config_update_notifier: "false",
        npm_config_audit: "false",
        npm_config_fund: "false",
    };
    writeFileSync(join(work, "npmrc"), "");
    try {
        const pack = await runOnce(
            "npm",
            ["pack", "--json", "--ignore-scripts", "--pack-destination", work],
            { cwd: ROOT, env }
        );
        if (pack.code !== 0) throw new Error(`npm pack failed:\n${pack.stderr}`);
        const packed = (JSON.parse(pack.stdout) as Array<{ filename: string; size: number }>)[0]!;
        const tarball = join(work, packed.filename);

        let installs = 0;
        const installed = await series("npm install -g (tarball, offline)", 5, () =>
            runOnce(
                "npm",
                ["install", "-g", "--offline", "--prefix", join(work, `p${installs++}`), tarball],
                { cwd: work, env }
            )
        );
        const prefix = join(work, "p0");
        const modules = join(prefix, "lib", "node_modules");
        console.log("\n## global install of the packed tarball");
        console.log(`tarball                 ${(packed.size / 1024).toFixed(0)} KB`);
        console.log(`packages installed      ${countPackages(modules)}`);
        console.log(`size on disk            ${(diskBytes(prefix) / 1e6).toFixed(1)} MB`);
        console.log(`npm install -g (median) ${installed.wallMs.toFixed(0)} ms`);
        const pty = ["node-pty", `node-pty-${process.platform}-${process.arch}`].map((name) =>
            join(ROOT, "node_modules", "@lydell", name)
        );
        const ptyBytes = pty.reduce(
            (sum, dir) => sum + diskBytes(dir) + lstatSync(dir).blocks * 512,
            0
        );
        console.log(
            `optional @lydell/node-pty ${(ptyBytes / 1e6).toFixed(2)} MB (2 packages, ${process.platform}-${process.arch}; online installs only)`
        );

        const bin = join(prefix, "bin", "north");
        const rows = await interleavedSeries(
            [
                { label: "node -e 0", make: () => runOnce(process.execPath, ["-e", "0"]) },
                { label: "installed north --version", make: () => runOnce(bin, ["--version"]) },
            ],
            RUNS * 2
        );
        printTable("installed north --version (target ≤ 1.5× node -e 0)", rows, rows[0]!);
    } finally {
        rmSync(work, { recursive: true, force: true });
    }
}
