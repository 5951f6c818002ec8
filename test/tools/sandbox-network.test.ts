/**
 * Without the network, a session's sandboxed commands share one network
 * namespace (session-network.ts): a dev server one command starts on
 * 127.0.0.1 is reached by the next, while another session's commands and
 * anything outside stay out of reach. Runs the prepared programs directly, as
 * a background process would be started, in the real bubblewrap sandbox.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { networkInterfaces, tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type CommandSandbox, createCommandSandbox } from "../../src/tools/sandbox/command-sandbox";
import { SessionNetworks } from "../../src/tools/sandbox/session-network";
import { killProcessGroup } from "../../src/util/process-group";
import { sandboxTestsBlocked, until, useSandboxFixture } from "./sandbox-kit";

const blocked = await sandboxTestsBlocked([]);

const SERVER =
    'require("http").createServer((q,s)=>s.end("hello from the session\\n"))' +
    '.listen(0,"127.0.0.1",function(){console.log("listening "+this.address().port)})';

/** Prints the body, or "refused: <code>" (the sandbox's loopback has no such server, or no route). */
function fetchScript(url: string): string {
    return (
        `fetch(${JSON.stringify(url)},{signal:AbortSignal.timeout(5000)}).then(r=>r.text())` +
        '.then(t=>process.stdout.write(t),e=>{console.log("refused: "+(e.cause?.code??e.name));process.exitCode=1})'
    );
}

interface Started {
    child: ChildProcess;
    output(): string;
    exited: Promise<number | null>;
}

describe.skipIf(blocked !== null)("the session's network namespace", () => {
    const fixture = useSandboxFixture();

    function session(sandbox: CommandSandbox): string {
        const dir = realpathSync(mkdtempSync(path.join(tmpdir(), "north-shell-")));
        sandbox.createSessionFolders(dir);
        fixture.cleanup(() => rmSync(dir, { recursive: true, force: true }));
        return dir;
    }

    /** `node -e script` in the sandbox, in a process group of its own as the service starts it. */
    function start(sandbox: CommandSandbox, sessionDir: string, script: string): Started {
        const run = sandbox.prepare(
            [process.execPath, "-e", script],
            { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: fixture.home },
            { root: fixture.root, sessionDir, cwd: fixture.root }
        );
        const child = spawn(run.file, run.args, {
            env: run.env,
            cwd: fixture.root,
            detached: true,
            stdio: ["ignore", "pipe", "pipe"],
        });
        let output = "";
        child.stdout?.setEncoding("utf8").on("data", (text: string) => (output += text));
        child.stderr?.setEncoding("utf8").on("data", (text: string) => (output += text));
        const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
        fixture.cleanup(() => {
            if (child.pid !== undefined) killProcessGroup(child.pid, "SIGKILL");
        });
        return { child, output: () => output, exited };
    }

    async function runToEnd(sandbox: CommandSandbox, sessionDir: string, script: string) {
        const started = start(sandbox, sessionDir, script);
        const code = await started.exited;
        return { code, output: started.output() };
    }

    it("a server one command starts on 127.0.0.1 is reached by the session's next command, not by another session's", async () => {
        const sandbox = createCommandSandbox(
            { network: false, writable: [] },
            { home: fixture.home }
        );
        const dir = session(sandbox);
        const server = start(sandbox, dir, SERVER);
        expect(await until(() => /listening \d+/.test(server.output()))).toBe(true);
        const port = /listening (\d+)/.exec(server.output())![1]!;
        const url = `http://127.0.0.1:${port}/`;

        expect(await runToEnd(sandbox, dir, fetchScript(url))).toEqual({
            code: 0,
            output: "hello from the session\n",
        });
        // Another service (another conversation) has a loopback of its own.
        const other = await runToEnd(sandbox, session(sandbox), fetchScript(url));
        expect(other).toEqual({ code: 1, output: "refused: ECONNREFUSED\n" });
        // Not the machine's either: the server is not on the host's loopback.
        const outside = await fetch(url).then(
            () => "reached",
            () => "refused"
        );
        expect(outside).toBe("refused");
    });

    it("a background server (shell_run with background) is reached by the session's next command", async () => {
        const shell = fixture.sandboxed();
        const started = await shell.start!(`"${process.execPath}" -e '${SERVER}'`, {
            origin: "call_1",
        });
        const server = started.process;
        // The "listening" line is the first output, or comes after start's first second.
        let line = started.output;
        if (!/listening \d+/.test(line)) {
            const waited = await shell.processes!.wait(
                server.id,
                { until: { pattern: "listening \\d+" }, timeoutMs: 30_000 },
                new AbortController().signal
            );
            line = waited.matchedLine ?? "";
        }
        const port = /listening (\d+)/.exec(line)![1]!;
        const fetched = await shell.run(
            `"${process.execPath}" -e '${fetchScript(`http://127.0.0.1:${port}/`)}'`
        );
        expect(fetched.output).toBe("hello from the session\n");
        expect((await shell.processes!.stop(server.id)).state).toBe("exited");
    });

    it("reaches nothing outside: neither the machine's loopback nor its other addresses", async () => {
        const host = createServer((_request, response) => response.end("outside\n"));
        await new Promise<void>((resolve) => host.listen(0, "0.0.0.0", resolve));
        fixture.cleanup(() => host.close());
        host.unref();
        const { port } = host.address() as { port: number };
        const sandbox = createCommandSandbox(
            { network: false, writable: [] },
            { home: fixture.home }
        );
        const dir = session(sandbox);
        const external = Object.values(networkInterfaces())
            .flat()
            .find((entry) => entry?.family === "IPv4" && !entry.internal)?.address;
        for (const address of ["127.0.0.1", ...(external ? [external] : [])]) {
            const url = `http://${address}:${port}/`;
            // The test can fail: the same fetch reaches the server from here.
            expect(await fetch(url).then((r) => r.status)).toBeGreaterThan(0);
            const boxed = await runToEnd(sandbox, dir, fetchScript(url));
            expect(boxed.code).toBe(1);
            expect(boxed.output).toMatch(/^refused: (ECONNREFUSED|ENETUNREACH)\n$/);
        }
    });
});

describe.skipIf(process.platform !== "linux")("when the session's namespace cannot be made", () => {
    it("the command does not run (least of all outside it), and says why as bubblewrap's failure", async () => {
        const dir = realpathSync(mkdtempSync(path.join(tmpdir(), "north-shell-")));
        try {
            const networks = new SessionNetworks({ bwrap: path.join(dir, "no-bwrap") });
            const program = networks.wrap(dir, { PATH: process.env.PATH }, [
                "sh",
                "-c",
                "echo ran",
            ]);
            const child = spawn(program.file, program.args, { stdio: ["ignore", "pipe", "pipe"] });
            let output = "";
            child.stdout.setEncoding("utf8").on("data", (text: string) => (output += text));
            child.stderr.setEncoding("utf8").on("data", (text: string) => (output += text));
            const code = await new Promise((resolve) => child.on("close", resolve));
            expect(code).toBe(1);
            expect(output).toMatch(/^bwrap: .*no-bwrap could not start/);
            expect(output).not.toContain("ran");
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });
});
