import { describe, expect, it } from "vitest";
import type {
    ClientCommandLine,
    ClientExitStatus,
    ClientTerminal,
    ClientTerminals,
} from "../../src/tools/client-workspace";
import {
    NO_INPUT_MESSAGE,
    startClientTerminalIo,
} from "../../src/tools/processes/client-terminal-io";
import { ProcessError, type ProcessIoOptions } from "../../src/tools/processes/types";

/** An editor terminal the test drives: output appended by hand, kept up to `limit` characters. */
class ScriptedTerminal implements ClientTerminal {
    readonly id = "term-1";
    text = "";
    truncated = false;
    readonly calls: string[] = [];
    private exitStatus: ClientExitStatus | null = null;
    private resolveExit: (status: ClientExitStatus) => void = () => undefined;
    private rejectExit: (error: Error) => void = () => undefined;
    private readonly exited = new Promise<ClientExitStatus>((resolve, reject) => {
        this.resolveExit = resolve;
        this.rejectExit = reject;
    });

    constructor(private readonly limit = Infinity) {}

    print(text: string): void {
        this.text += text;
        if (this.text.length > this.limit) {
            this.text = this.text.slice(this.text.length - this.limit);
            this.truncated = true;
        }
    }

    end(status: ClientExitStatus): void {
        this.exitStatus = status;
        this.resolveExit(status);
    }

    vanish(message: string): void {
        this.rejectExit(new Error(message));
    }

    async output() {
        return { output: this.text, truncated: this.truncated, exitStatus: this.exitStatus };
    }
    waitForExit() {
        return this.exited;
    }
    async kill() {
        this.calls.push("kill");
        this.end({ exitCode: null, signal: "SIGKILL" });
    }
    async release() {
        this.calls.push("release");
    }
}

function editorWith(terminal: ClientTerminal) {
    const started: Array<{ line: ClientCommandLine; outputByteLimit: number }> = [];
    const terminals: ClientTerminals = {
        run: () => Promise.reject(new Error("not used")),
        start: async (line, options) => {
            started.push({ line, outputByteLimit: options.outputByteLimit });
            return terminal;
        },
    };
    return { terminals, started };
}

const line: ProcessIoOptions = {
    file: "bash",
    args: ["-c", "npm run dev"],
    cwd: "/project",
    env: { PATH: "/usr/bin", UNSET: undefined },
    tty: false,
};

const fast = { fastPollMs: 2, slowPollMs: 8, killGiveUpMs: 50 };

function collect(io: { onData(listener: (chunk: Buffer) => void): void }) {
    let text = "";
    const waiters: Array<() => void> = [];
    io.onData((chunk) => {
        text += chunk.toString("utf8");
        for (const wake of waiters.splice(0)) wake();
    });
    return {
        get text() {
            return text;
        },
        async until(part: string): Promise<string> {
            while (!text.includes(part)) await new Promise<void>((r) => waiters.push(r));
            return text;
        },
    };
}

function exitOf(io: {
    onExit(listener: (exitCode: number | null, signal: string | null) => void): void;
}) {
    return new Promise<{ exitCode: number | null; signal: string | null }>((resolve) =>
        io.onExit((exitCode, signal) => resolve({ exitCode, signal }))
    );
}

describe("a background process in an editor's terminal", () => {
    it("starts the exact command line, passes new output on, and reports the exit after the last output", async () => {
        const terminal = new ScriptedTerminal();
        const editor = editorWith(terminal);
        const io = await startClientTerminalIo(editor.terminals, line, fast);
        expect(editor.started[0]!.line).toEqual({
            file: "bash",
            args: ["-c", "npm run dev"],
            cwd: "/project",
            env: { PATH: "/usr/bin" },
        });
        expect(io.pid).toBeUndefined();
        expect(io.terminalId).toBe("term-1");
        const output = collect(io);
        const exit = exitOf(io);
        terminal.print("listening on 3000\n");
        await output.until("listening on 3000\n");
        terminal.print("GET /\n");
        await output.until("GET /\n");
        terminal.print("bye\n");
        terminal.end({ exitCode: 3, signal: null });
        expect(await exit).toEqual({ exitCode: 3, signal: null });
        expect(output.text).toBe("listening on 3000\nGET /\nbye\n");
        expect(terminal.calls).toEqual(["release"]);
    });

    it("says so when output came and went between two reads", async () => {
        const terminal = new ScriptedTerminal(20);
        const io = await startClientTerminalIo(editorWith(terminal).terminals, line, fast);
        const output = collect(io);
        terminal.print("first line\n");
        await output.until("first line\n");
        terminal.print(`${"x".repeat(40)}\nlast\n`);
        await output.until("last\n");
        expect(output.text).toContain("output the editor's terminal no longer kept was not read");
        terminal.end({ exitCode: 0, signal: null });
        await exitOf(io);
    });

    it("refuses input with a message that says what to do instead", async () => {
        const terminal = new ScriptedTerminal();
        const io = await startClientTerminalIo(editorWith(terminal).terminals, line, fast);
        expect(() => io.write("y\n")).toThrow(ProcessError);
        expect(() => io.write("y\n")).toThrow(NO_INPUT_MESSAGE);
        expect(() => io.endInput()).toThrow(/tty: true/);
        terminal.end({ exitCode: 0, signal: null });
        await exitOf(io);
    });

    it("kills through the editor, then releases the terminal", async () => {
        const terminal = new ScriptedTerminal();
        const io = await startClientTerminalIo(editorWith(terminal).terminals, line, fast);
        const exit = exitOf(io);
        io.kill("SIGTERM");
        expect(await exit).toEqual({ exitCode: null, signal: "SIGKILL" });
        expect(terminal.calls).toEqual(["kill", "release"]);
    });

    it("an editor that stops answering after a kill does not hold the exit back", async () => {
        const terminal = new ScriptedTerminal();
        const silent: ClientTerminal = {
            id: terminal.id,
            output: () => new Promise(() => undefined),
            waitForExit: () => new Promise(() => undefined),
            kill: () => new Promise(() => undefined),
            release: () => new Promise(() => undefined),
        };
        const io = await startClientTerminalIo(editorWith(silent).terminals, line, fast);
        const output = collect(io);
        const exit = exitOf(io);
        io.kill("SIGTERM");
        expect(await exit).toEqual({ exitCode: null, signal: "SIGKILL" });
        expect(output.text).toContain("North stopped waiting for it");
    });

    it("an editor that goes away ends the process with its reason in the output", async () => {
        const terminal = new ScriptedTerminal();
        const io = await startClientTerminalIo(editorWith(terminal).terminals, line, fast);
        const output = collect(io);
        const exit = exitOf(io);
        terminal.vanish("connection closed");
        expect(await exit).toEqual({ exitCode: null, signal: null });
        expect(output.text).toContain("the editor's terminal stopped answering: connection closed");
    });

    it("a listener that comes after the exit still hears it, and earlier output too", async () => {
        const terminal = new ScriptedTerminal();
        terminal.print("done\n");
        terminal.end({ exitCode: 0, signal: null });
        const io = await startClientTerminalIo(editorWith(terminal).terminals, line, fast);
        await new Promise<void>((resolve) => {
            const waitForRelease = (): void => {
                if (terminal.calls.includes("release")) resolve();
                else setImmediate(waitForRelease);
            };
            waitForRelease();
        });
        const output = collect(io);
        expect(await exitOf(io)).toEqual({ exitCode: 0, signal: null });
        expect(output.text).toBe("done\n");
    });

    it("refuses a tty process and a port that cannot leave commands running", async () => {
        const terminal = new ScriptedTerminal();
        await expect(
            startClientTerminalIo(editorWith(terminal).terminals, { ...line, tty: true })
        ).rejects.toThrow(/North's own terminal/);
        await expect(
            startClientTerminalIo({ run: () => Promise.reject(new Error("no")) }, line)
        ).rejects.toThrow(/cannot run background processes/);
    });
});
