/**
 * The sandbox's first guarantee, tried as an escape: a command cannot reach a
 * process outside through a Unix socket (tmux, screen, ssh-agent, D-Bus,
 * Wayland, docker.sock, a socket under $HOME or in the project, an abstract
 * socket), and it has a /tmp of its own that the session's next command sees.
 * Each attempt also runs without the sandbox, where it works: the test can fail.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { type Server, createServer } from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connectCommand, sandboxTestsBlocked, until, useSandboxFixture } from "./sandbox-kit";

const blocked = await sandboxTestsBlocked([
    "tmux",
    "screen",
    "ssh-agent",
    "ssh-add",
    "dbus-daemon",
    "dbus-send",
]);

const fixture = useSandboxFixture();

/** A plain Unix socket server (a fake docker.sock, Wayland compositor, …) counting connections. */
async function listen(address: string): Promise<{ server: Server; connections: () => number }> {
    let count = 0;
    const server = createServer((socket) => {
        count++;
        socket.end();
    });
    await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(address, resolve);
    });
    fixture.cleanup(() => server.close());
    return { server, connections: () => count };
}

/** Runs `command` plainly (it must reach the socket) and sandboxed (it must not). */
async function expectReachableOnlyOutside(socket: string): Promise<void> {
    const command = connectCommand(socket);
    const open = await fixture.plain().run(command);
    expect(open.output).toBe("connected\n");
    const boxed = await fixture.sandboxed().run(command);
    expect(boxed.output).toMatch(/^refused: E(NOENT|CONNREFUSED|NOTSOCK)\n$/);
    expect(boxed.exitCode).not.toBe(0);
}

describe.skipIf(blocked !== null)("a sandboxed command cannot reach the user's sockets", () => {
    it("tmux: run-shell on the user's server in /tmp does not run, the outside file is not written", async () => {
        const socket = path.join(fixture.outside, "tmux-0", "default");
        mkdirSync(path.dirname(socket), { mode: 0o700 });
        execFileSync("tmux", ["-S", socket, "new-session", "-d", "-s", "north"]);
        fixture.cleanup(() => execFileSync("tmux", ["-S", socket, "kill-server"]));
        const marker = path.join(fixture.outside, "pwned");
        const attempt = `tmux -S '${socket}' run-shell 'id > ${marker}'`;

        const boxed = await fixture.sandboxed().run(attempt);
        expect(boxed.exitCode).not.toBe(0);
        expect(existsSync(marker)).toBe(false);
        // Without the sandbox the same command reaches the server and writes the file.
        await fixture.plain().run(attempt);
        expect(readFileSync(marker, "utf8")).toMatch(/^uid=/);
    });

    it("screen: commands typed into the user's session from inside never run", async () => {
        const screenDir = path.join(fixture.outside, "screens");
        mkdirSync(screenDir, { mode: 0o700 });
        const env = { ...process.env, SCREENDIR: screenDir };
        execFileSync("screen", ["-dmS", "north", "sh"], { env });
        fixture.cleanup(() => execFileSync("screen", ["-S", "north", "-X", "quit"], { env }));
        expect(await until(() => execFileSync("ls", [screenDir]).toString() !== "")).toBe(true);
        const marker = path.join(fixture.outside, "pwned");
        const done = path.join(fixture.outside, "done");

        const boxed = await fixture
            .sandboxed()
            .run(`SCREENDIR='${screenDir}' screen -S north -X stuff 'echo x > ${marker}\\n'`);
        expect(boxed.exitCode).not.toBe(0);
        // The session runs typed lines in order: once ours ran, the sandboxed one never will.
        execFileSync("screen", ["-S", "north", "-X", "stuff", `echo x > ${done}\n`], { env });
        expect(await until(() => existsSync(done))).toBe(true);
        expect(existsSync(marker)).toBe(false);
    });

    it("ssh-agent: its socket is unreachable and SSH_AUTH_SOCK is not passed in", async () => {
        const socket = path.join(fixture.outside, "agent.sock");
        const pid = /SSH_AGENT_PID=(\d+)/.exec(
            execFileSync("ssh-agent", ["-a", socket, "-s"]).toString()
        )![1]!;
        fixture.cleanup(() => process.kill(Number(pid)));
        const env = { ...process.env, SSH_AUTH_SOCK: socket };
        const attempt = `echo "sock=\${SSH_AUTH_SOCK-unset}"; SSH_AUTH_SOCK='${socket}' ssh-add -l`;

        const open = await fixture.plain(env).run(attempt);
        expect(open.output).toContain("The agent has no identities");
        const boxed = await fixture.sandboxed({ env }).run(attempt);
        expect(boxed.output).toMatch(/^sock=unset\n/);
        expect(boxed.output).toContain("Error connecting to agent");
        expect(boxed.output).not.toContain("The agent has no identities");
    });

    it("D-Bus: a session bus in $XDG_RUNTIME_DIR is unreachable and its address is not passed in", async () => {
        const runtime = path.join(fixture.outside, "runtime");
        mkdirSync(runtime, { mode: 0o700 });
        const address = `unix:path=${path.join(runtime, "bus")}`;
        const pid = execFileSync("dbus-daemon", [
            "--session",
            `--address=${address}`,
            "--fork",
            "--print-pid",
        ])
            .toString()
            .trim();
        fixture.cleanup(() => process.kill(Number(pid)));
        const env = { ...process.env, XDG_RUNTIME_DIR: runtime, DBUS_SESSION_BUS_ADDRESS: address };
        const attempt =
            'echo "bus=${DBUS_SESSION_BUS_ADDRESS-unset} runtime=$XDG_RUNTIME_DIR"; ' +
            `dbus-send --bus='${address}' --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.ListNames`;

        const open = await fixture.plain(env).run(attempt);
        expect(open.output).toContain("org.freedesktop.DBus");
        const boxed = await fixture.sandboxed({ env }).run(attempt);
        expect(boxed.exitCode).not.toBe(0);
        expect(boxed.output).toMatch(/^bus=unset runtime=/);
        expect(boxed.output).not.toContain('string "org.freedesktop.DBus"');
    });

    it("Wayland and X11: a compositor's socket in $XDG_RUNTIME_DIR and an X server's in /tmp", async () => {
        const runtime = path.join(fixture.outside, "runtime");
        mkdirSync(runtime, { mode: 0o700 });
        const wayland = path.join(runtime, "wayland-0");
        await listen(wayland);
        const x11 = path.join(fixture.outside, ".X11-unix", "X0");
        mkdirSync(path.dirname(x11));
        await listen(x11);
        const env = { ...process.env, XDG_RUNTIME_DIR: runtime, DISPLAY: ":0" };
        const boxed = await fixture
            .sandboxed({ env })
            .run(
                `echo "display=\${DISPLAY-unset}"; ${connectCommand(wayland)}; ${connectCommand(x11)}`
            );
        expect(boxed.output).toMatch(/^display=unset\nrefused: ENOENT\nrefused: ENOENT\n$/);
        await expectReachableOnlyOutside(wayland);
    });

    it("docker.sock and other sockets outside the replaced folders: in /run, under $HOME, in the project", async () => {
        const sockets = [
            path.join(fixture.home, ".docker", "run", "docker.sock"),
            path.join(fixture.home, ".ssh", "cm-git@github.com:22"),
            path.join(fixture.root, "docker.sock"),
        ];
        for (const socket of sockets) {
            mkdirSync(path.dirname(socket), { recursive: true });
            await listen(socket);
        }
        // The real /run/docker.sock's place; only root may listen there (CI runs as root).
        const run = `/run/north-escape-test-${process.pid}.sock`;
        let runListening = false;
        try {
            await listen(run);
            runListening = true;
        } catch (error) {
            if (process.env.CI) throw error;
        }
        for (const socket of runListening ? [...sockets, run] : sockets) {
            await expectReachableOnlyOutside(socket);
        }
        // The project's own files stay: only the socket is covered.
        expect(existsSync(path.join(fixture.root, "docker.sock"))).toBe(true);
    });

    it("abstract sockets are cut with the network, and reachable when the network is allowed", async () => {
        const name = `\0north-escape-test-${process.pid}`;
        const { connections } = await listen(name);
        const boxed = await fixture.sandboxed().run(connectCommand(name));
        expect(boxed.output).toBe("refused: ECONNREFUSED\n");
        expect(connections()).toBe(0);
        // As the README says: with "network": true the command shares the network namespace.
        const networked = await fixture.sandboxed({ network: true }).run(connectCommand(name));
        expect(networked.output).toBe("connected\n");
    });
});

describe.skipIf(blocked !== null)("a sandboxed command's own temporary folders", () => {
    it("/tmp, /var/tmp, /dev/shm and $XDG_RUNTIME_DIR are the session's: kept between its commands, invisible outside and to another session", async () => {
        const write =
            'echo "tmpdir=$TMPDIR"; for d in /tmp /var/tmp /dev/shm "$XDG_RUNTIME_DIR"; do ' +
            'echo kept > "$d/north-escape-note" || echo "cannot write $d"; done';
        const session = fixture.sandboxed();
        const first = await session.run(write);
        expect(first.output).toBe("tmpdir=/tmp\n");
        const read =
            'for d in /tmp /var/tmp /dev/shm "$XDG_RUNTIME_DIR"; do ' +
            'cat "$d/north-escape-note" 2>/dev/null || echo missing; done';
        expect((await session.run(read)).output).toBe("kept\nkept\nkept\nkept\n");
        expect(existsSync("/tmp/north-escape-note")).toBe(false);
        expect(existsSync("/var/tmp/north-escape-note")).toBe(false);
        expect(existsSync("/dev/shm/north-escape-note")).toBe(false);
        expect((await fixture.sandboxed().run(read)).output).toBe(
            "missing\nmissing\nmissing\nmissing\n"
        );
    });

    it("sees the real /tmp's files no more than its sockets", async () => {
        const file = path.join(fixture.outside, "secret.txt");
        writeFileSync(file, "outside\n");
        const boxed = await fixture.sandboxed().run(`cat '${file}'`);
        expect(boxed.output).toContain("No such file or directory");
    });
});
