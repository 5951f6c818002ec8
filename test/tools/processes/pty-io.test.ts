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
            ["-c", 'echo "mark=$NORTH_OWNER term=$TERM size=$(stty size)"; read -r _'],
            {
                PATH: process.env.PATH,
                NORTH_OWNER: "test-owner-mark",
            }
        );
        const screen = await run.waitForScreen("size=");
        expect(screen).toBe("mark=test-owner-mark term=xterm-256color size=40 120");
    });

    it("leads its own session: a kill ends what it started, jobs in groups of their own too", async () => {
        // Job control (set -m) puts the background job in a process group of its own.
        const run = await tty("bash", ["-c", "set -m; sleep 300 & echo bg=$!; wait"]);
        const text = await run.waitForScreen(/bg=\d+/);
        const background = Number(/bg=(\d+)/.exec(text)![1]);
        expect(processRuns(background)).toBe(true);
        expect(run.io.pid).toBeDefined();
        run.io.kill("SIGKILL");
        expect((await run.exited).signal).toBe("SIGKILL");
        // Killed with the session; it may linger a moment as a zombie of its dead parent.
        await expect.poll(() => processRuns(background), { timeout: 10_000 }).toBe(false);
    });

    it("reports the exit status, and Ctrl+D ends the input of a program reading lines", async () => {
        const run = await tty("bash", ["-c", "cat; exit 3"]);
        run.type("one line\r");
        // The terminal's echo, then cat's copy.
        await run.waitForScreen("one line\none line");
        run.io.endInput();
        expect(await run.exited).toEqual({ exitCode: 3, signal: null });
    });

    it("is driven by keys: Ctrl+C interrupts, Enter ends a line", async () => {
        // Python catches the interrupt once "waiting" shows (printed inside the try).
        const program = [
            "import signal",
            "try:",
            "    print('waiting', flush=True)",
            "    signal.pause()",
            "except KeyboardInterrupt:",
            "    print('interrupted')",
            "name = input('Name: ')",
            "print('hello', name)",
            "input()",
        ].join("\n");
        const run = await tty("python3", ["-c", program]);
        await run.waitForScreen("waiting");
        run.keys(["ctrl+c"]);
        await run.waitForScreen(/^Name:$/, { where: (screen) => screen.cursorLine() });
        run.type("ann");
        run.keys(["enter"]);
        // The terminal echoes the key as ^C, as it would for a user (and, as a terminal
        // does on an interrupt, may drop the newline after "waiting" not yet shown).
        await run.waitForScreen(/^waiting\n?\^Cinterrupted\nName: ann\nhello ann$/);
        run.keys(["ctrl+d"]);
        expect((await run.exited).exitCode).toBe(1);
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
        'read -r -s -p "Password: " secret; echo; echo "got ${#secret} characters"; read -r -p "Name: " name; echo "name=$name"; read -r _';

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
        const screen = await run.waitForScreen("name=ann");
        expect(screen).toBe("Password:\ngot 14 characters\nName: ann\nname=ann");
        expect(run.output()).not.toContain("hunter2");
    });

    it("a prompt's words alone do not make one while the terminal echoes", async () => {
        const run = await tty("bash", [
            "-c",
            'read -r -p "Password: " visible; echo "saw $visible"; read -r _',
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

// The CI machine installs vi, top and python3 (.ci/run); a test that cannot find one fails rather than skips.
it("the machine has vi, top and python3 for these tests", () => {
    expect(() =>
        execFileSync("sh", ["-c", "command -v vi && command -v top && command -v python3"])
    ).not.toThrow();
});
