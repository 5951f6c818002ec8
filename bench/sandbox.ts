/**
 * `npm run bench -- sandbox`: what the bubblewrap sandbox adds to a command.
 * `true` through the shell service with and without the sandbox (its mounts,
 * the session's private folders, the git and protected-file checks), interleaved
 * run by run so machine load hits both alike; medians, the difference and
 * the ratio (target: at most 20 ms added). Then bwrap alone, with a network
 * namespace of its own (before the session's shared one) against joined to
 * the session's with nsenter, interleaved.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { BWRAP, probeBwrap } from "../src/tools/sandbox/bwrap";
import { SessionNetworks } from "../src/tools/sandbox/session-network";
import { createCommandSandbox } from "../src/tools/sandbox/command-sandbox";
import { startNestedGitCheck } from "../src/tools/sandbox/nested-git-check";
import { type ShellService, createShellService } from "../src/tools/shell-service";
import { median } from "./measure";

const RUNS = Number(process.env.BENCH_RUNS ?? 15) * 2;
const TARGET_MS = 20;

async function timeTrue(shell: ShellService): Promise<number> {
    const started = performance.now();
    const result = await shell.run("true");
    if (result.exitCode !== 0) throw new Error(`true failed: ${result.output}${result.note ?? ""}`);
    return performance.now() - started;
}

/** Runs a program to its end; its wall time in ms. */
function timeProgram(file: string, args: readonly string[]): Promise<number> {
    return new Promise((resolve, reject) => {
        const started = performance.now();
        const child = spawn(file, args, { stdio: "ignore" });
        child.on("error", reject);
        child.on("close", (code) =>
            code === 0
                ? resolve(performance.now() - started)
                : reject(new Error(`${file} exited ${code}`))
        );
    });
}

/**
 * What joining the session's network namespace costs a command against
 * making one of its own (before issue 35): bwrap running `true` both ways,
 * interleaved, with the namespace already made.
 */
async function networkJoinCost(dir: string): Promise<{ own: number; joined: number }> {
    const sessionDir = mkdtempSync(path.join(dir, "session-"));
    const networks = new SessionNetworks();
    const isolation = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid"];
    const joinedArgv = [BWRAP, ...isolation, "--", "true"];
    // The first program waits for the namespace; once made, the next ones join it directly.
    const first = networks.wrap(sessionDir, process.env, joinedArgv);
    await timeProgram(first.file, first.args);
    const joined = networks.wrap(sessionDir, process.env, joinedArgv);
    const ownMs: number[] = [];
    const joinedMs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
        ownMs.push(await timeProgram(BWRAP, [...isolation, "--unshare-net", "--", "true"]));
        joinedMs.push(await timeProgram(joined.file, joined.args));
    }
    return { own: median(ownMs), joined: median(joinedMs) };
}

export async function benchSandbox(): Promise<void> {
    const probe = await probeBwrap(false);
    if (!probe.ok) {
        console.log(`\n## sandbox: skipped, ${probe.reason}`);
        return;
    }
    const root = realpathSync(mkdtempSync(path.join(tmpdir(), "north-bench-sandbox-")));
    // A git project with protected config, so the mounts and checks a real project gets are
    // measured too (git program files, protected files, the session's folders, host sockets).
    execFileSync("git", ["init", "-q"], { cwd: root });
    mkdirSync(path.join(root, ".north"));
    writeFileSync(path.join(root, ".north", "settings.json"), "{}\n");
    writeFileSync(path.join(root, ".mcp.json"), "{}\n");
    // Folders two levels deep and a submodule-like nested repository in the index: what the
    // check for repositories a command made looks through before and after each command.
    for (let i = 0; i < 20; i++) {
        for (let j = 0; j < 10; j++)
            mkdirSync(path.join(root, `d${i}`, `e${j}`), { recursive: true });
    }
    const nested = path.join(root, "vendor");
    mkdirSync(nested);
    const gitEnv = {
        ...process.env,
        GIT_AUTHOR_NAME: "b",
        GIT_AUTHOR_EMAIL: "b@b",
        GIT_COMMITTER_NAME: "b",
        GIT_COMMITTER_EMAIL: "b@b",
    };
    execFileSync("git", ["init", "-q"], { cwd: nested });
    execFileSync("git", ["commit", "-q", "--allow-empty", "-m", "v"], { cwd: nested, env: gitEnv });
    const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: nested }).toString().trim();
    execFileSync("git", ["update-index", "--add", "--cacheinfo", `160000,${head},vendor`], {
        cwd: root,
    });
    const plain = createShellService(root);
    const sandbox = createCommandSandbox({ network: false, writable: [] });
    const boxed = createShellService(root, { sandbox });
    try {
        await timeTrue(plain); // warm-up, and the probe settles before timing
        await timeTrue(boxed);
        const plainMs: number[] = [];
        const boxedMs: number[] = [];
        for (let i = 0; i < RUNS; i++) {
            plainMs.push(await timeTrue(plain));
            boxedMs.push(await timeTrue(boxed));
        }
        const base = median(plainMs);
        const sandboxed = median(boxedMs);
        const added = sandboxed - base;
        console.log(`\n## shell_run in the sandbox (npm run bench -- sandbox; ${RUNS} runs each)`);
        const row = (label: string, value: string, note = ""): void =>
            console.log(`${label.padEnd(48)}${value.padStart(12)}${note.padStart(22)}`);
        row("`true` through the service (baseline)", `${base.toFixed(1)} ms`);
        row("`true` through the service, sandboxed", `${sandboxed.toFixed(1)} ms`);
        row(
            "  added by the sandbox",
            `${added.toFixed(1)} ms`,
            `target ≤ ${TARGET_MS} ms ${added <= TARGET_MS ? "ok" : "MISS"}`
        );
        row("  ratio sandboxed / baseline", `${(sandboxed / base).toFixed(2)}×`);
        const gitDir = path.join(root, ".git");
        const checkMs: number[] = [];
        const gitlinks = new Map();
        for (let i = 0; i < RUNS; i++) {
            const start = performance.now();
            startNestedGitCheck(root, gitDir, [gitDir], gitlinks).finish();
            checkMs.push(performance.now() - start);
        }
        row("  of which the nested repositories check", `${median(checkMs).toFixed(2)} ms`);
        const network = await networkJoinCost(root);
        row("  bwrap with a network namespace of its own", `${network.own.toFixed(1)} ms`);
        row("  bwrap joined to the session's (nsenter)", `${network.joined.toFixed(1)} ms`);
    } finally {
        plain.dispose();
        boxed.dispose();
        rmSync(root, { recursive: true, force: true });
    }
}
