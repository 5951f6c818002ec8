import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { secretPrompt } from "../../../src/tools/processes/password-prompt";
import { PTY_PACKAGE, PtyUnavailableError, spawnPtyIo } from "../../../src/tools/processes/pty-io";
import { startTty, type TtyProcess } from "../../kit/tty-process";

let dir: string;

/** Running (a zombie, killed and not yet reaped by whoever adopted it, has ended). */
function processRuns(pid: number): boolean {
    try {
        return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
    } catch {
        return false;
    }
}
const started: TtyProcess[] = [];

async function tty(file: string, args: string[], env?: NodeJS.ProcessEnv): Promise<TtyProcess> {
    const run = await startTty(file, args, { cwd: dir, env: env ?? { ...process.env } });
    started.push(run);
    return run;
}

/** An interactive bash with a fixed prompt and no start-up files. */
function bash(): Promise<TtyProcess> {
    return tty("bash", ["--norc", "--noprofile", "-i"], { ...process.env, PS1: "ready$ " });
}

beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "north-pty-"));
});

afterEach(() => {
    for (const run of started.splice(0)) run.dispose();
    rmSync(dir, { recursive: true, force: true });
});

describe("a program in a pseudo-terminal", () => {
    it("gets the environment it is given (the owner mark) and an xterm TERM, in a 120×40 terminal", async () => {
        const run = await tty(
            "bash",
            ["-c", 'echo "mark=$NORTH_OWNER term=$TERM size=$(stty size)"'],
            {
                PATH: process.env.PATH,
                NORTH_OWNER: "test-owner-mark",
            }
        );
        await run.waitForScreen("size=");
        expect(run.screen.text()).toBe("mark=test-owner-mark term=xterm-256color size=40 120");
        expect(await run.exited).toEqual({ exitCode: 0, signal: null });
    });

    it("leads its own process group: a kill of the group ends what it started", async () => {
        const run = await bash();
        await run.waitForScreen("ready$");
        run.type("sleep 300 & echo bg=$!\r");
        const text = await run.waitForScreen(/bg=\d+/);
        const background = Number(/bg=(\d+)/.exec(text)![1]);
        expect(processRuns(background)).toBe(true);
        expect(run.io.pid).toBeDefined();
        run.io.kill("SIGKILL");
        expect((await run.exited).signal).toBe("SIGKILL");
        // Killed with the group; it may linger a moment as a zombie of its dead parent.
        await expect.poll(() => processRuns(background), { timeout: 10_000 }).toBe(false);
    });

    it("reports the exit status, and Ctrl+D ends a shell's input", async () => {
        const run = await bash();
        await run.waitForScreen("ready$");
        run.type("false\r");
        run.io.endInput();
        expect(await run.exited).toEqual({ exitCode: 1, signal: null });
    });

    it("is driven by keys: Ctrl+C interrupts a foreground command and the shell takes the next line", async () => {
        const run = await bash();
        await run.waitForScreen("ready$");
        run.type("sleep 300\r");
        await run.waitForScreen("ready$ sleep 300");
        run.keys(["ctrl+c"]);
        await run.waitForScreen(/\^C\nready\$$/);
        run.type("echo status=$?");
        run.keys(["enter"]);
        await run.waitForScreen("status=130");
        // Up recalls the last line from the shell's history.
        run.keys(["up"]);
        await run.waitForScreen(/ready\$ echo status=\$\?$/, {
            where: (screen) => screen.cursorLine(),
        });
    });
});

describe("a full-screen program read as a screen", () => {
    it("vi: the screen shows the file and the editor's lines, keys edit it and :wq saves", async () => {
        const file = join(dir, "notes.txt");
        writeFileSync(file, "first line of the notes\n");
        // No vimrc: the screen is vi's defaults on any machine.
        const run = await tty("vi", ["-u", "NONE", "-N", file]);
        const screen = await run.waitForScreen(/first line of the notes[\s\S]*notes\.txt/);
        const rows = screen.split("\n");
        expect(rows[0]).toBe("first line of the notes");
        // Empty rows of the window show a tilde; no escape codes reach the text.
        expect(rows[1]).toMatch(/^~\s*$/);
        expect(screen).not.toContain("\x1b");
        run.keys(["esc"]);
        run.type("Go");
        run.type("second line, typed");
        run.keys(["esc"]);
        await run.waitForScreen(/^first line of the notes\nsecond line, typed\n~/);
        run.type(":wq");
        run.keys(["enter"]);
        expect((await run.exited).exitCode).toBe(0);
        expect(readFileSync(file, "utf8")).toBe("first line of the notes\nsecond line, typed\n");
    });

    it("top: the screen is its table, redrawn in place, and q quits", async () => {
        const run = await tty("top", ["-d", "1"]);
        const screen = await run.waitForScreen(/PID\s+USER[\s\S]*COMMAND/);
        expect(screen.split("\n").length).toBeLessThanOrEqual(40);
        expect(screen).toMatch(/^top - /);
        run.type("q");
        expect((await run.exited).exitCode).toBe(0);
    });
});

describe("a password prompt in a pseudo-terminal", () => {
    const script =
        'read -r -s -p "Password: " secret; echo; echo "got ${#secret} characters"; read -r -p "Name: " name; echo "name=$name"';

    it("is seen as waiting for a secret; what is typed never shows on the screen", async () => {
        const run = await tty("bash", ["-c", script]);
        await run.waitForScreen(/^Password:$/, { where: (screen) => screen.cursorLine() });
        expect(
            await secretPrompt({ line: run.screen.cursorLine(), tty: true, pid: run.io.pid })
        ).toBe("Password:");
        run.type("hunter2-secret\r");
        await run.waitForScreen("got 14 characters");
        await run.waitForScreen(/^Name:$/, { where: (screen) => screen.cursorLine() });
        // A prompt that echoes is no secret prompt.
        expect(
            await secretPrompt({ line: run.screen.cursorLine(), tty: true, pid: run.io.pid })
        ).toBe(undefined);
        run.type("ann\r");
        await run.exited;
        expect(run.screen.text()).toBe("Password:\ngot 14 characters\nName: ann\nname=ann");
        expect(run.output()).not.toContain("hunter2");
    });

    it("a prompt's words alone do not make one while the terminal echoes", async () => {
        const run = await tty("bash", [
            "-c",
            'read -r -p "Password: " visible; echo "saw $visible"',
        ]);
        await run.waitForScreen(/^Password:$/, { where: (screen) => screen.cursorLine() });
        expect(
            await secretPrompt({ line: run.screen.cursorLine(), tty: true, pid: run.io.pid })
        ).toBe(undefined);
        run.type("shown\r");
        await run.waitForScreen("saw shown");
    });
});

describe("where the pseudo-terminal library cannot load", () => {
    it("rejects with a message naming the optional package, so the caller can use pipes", async () => {
        const missing = Object.assign(new Error(`Cannot find package '${PTY_PACKAGE}'`), {
            code: "ERR_MODULE_NOT_FOUND",
        });
        const attempt = spawnPtyIo(
            { file: "bash", args: ["-c", "true"], cwd: dir, env: process.env, tty: true },
            () => Promise.reject(missing)
        );
        await expect(attempt).rejects.toBeInstanceOf(PtyUnavailableError);
        await expect(attempt).rejects.toThrow(
            /optional package @lydell\/node-pty .*it is not installed/
        );
    });

    it("names a binary that fails to load (another Node's build)", async () => {
        const abi = new Error(
            "The module 'pty.node' was compiled against a different Node.js version using NODE_MODULE_VERSION 108.\nThis version of Node.js requires 115."
        );
        const attempt = spawnPtyIo(
            { file: "bash", args: ["-c", "true"], cwd: dir, env: process.env, tty: true },
            () => Promise.reject(abi)
        );
        await expect(attempt).rejects.toThrow(
            "optional package @lydell/node-pty (" +
                `${process.platform}-${process.arch}, Node ${process.versions.node}), and it failed to load ` +
                "(The module 'pty.node' was compiled against a different Node.js version using NODE_MODULE_VERSION 108)."
        );
    });
});

// The CI machine installs vi and top (.ci/run); a test that cannot find one fails rather than skips.
it("the machine has vi and top for the full-screen tests", () => {
    expect(() => execFileSync("sh", ["-c", "command -v vi && command -v top"])).not.toThrow();
});
