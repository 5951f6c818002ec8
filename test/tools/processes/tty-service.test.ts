import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createProcessIo } from "../../../src/tools/processes/process-io";
import type { ProcessId, ProcessTable } from "../../../src/tools/processes/types";
import { type BackgroundShellService, createShellService } from "../../../src/tools/shell-service";

// Tty background processes through the shell service and its process table: started in
// a pty, read as a screen, typed into with named keys, password prompts recognised.
let dir: string;
let shell: BackgroundShellService;
const WAIT = { timeout: 15_000, interval: 10 };

beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "north-tty-service-")));
    shell = createShellService(dir, { spillDir: join(dir, ".spill") });
});

afterEach(() => {
    shell.dispose();
    rmSync(dir, { recursive: true, force: true });
});

/** The screen as the model's reads show it, once it matches `pattern`. */
async function screenShowing(table: ProcessTable, id: ProcessId, pattern: RegExp): Promise<string> {
    let text = "";
    await expect.poll(() => (text = table.read(id, { mode: "new" }).text), WAIT).toMatch(pattern);
    return text;
}

describe("shell service: tty background processes", () => {
    it("vi runs in a pty: reads show its screen, named keys edit the file, and it exits", async () => {
        writeFileSync(join(dir, "notes.txt"), "first line\n");
        const started = await shell.start("vi -u NONE -N notes.txt", { tty: true, origin: "t1" });
        expect(started.note).toBeUndefined();
        expect(started.process).toMatchObject({ tty: true, state: "running" });
        const { id } = started.process;
        const table = shell.processes;
        // A wait for a pattern looks at the screen's rows: vi draws them, not lines.
        const ready = await table.wait(
            id,
            { until: { pattern: "^~$" }, timeoutMs: 15_000 },
            new AbortController().signal
        );
        expect(ready).toMatchObject({ outcome: "matched", matchedLine: "~", screen: true });
        expect(ready.text).toMatch(/^first line\n~/);
        const screen = await screenShowing(table, id, /^first line\n~[\s\S]*"notes\.txt"/);
        expect(table.read(id, { mode: "tail" })).toMatchObject({ screen: true });
        expect(screen).not.toContain("\x1b");
        // Within one send, the text goes first, then the keys.
        await table.send(id, { text: "Go" });
        await table.send(id, { text: "typed through the table", keys: ["esc"] });
        await screenShowing(table, id, /^first line\ntyped through the table\n~/);
        await table.send(id, { text: ":wq", keys: ["enter"] });
        const ended = await table.wait(
            id,
            { until: "exit", timeoutMs: 15_000 },
            new AbortController().signal
        );
        expect(ended.outcome).toBe("exited");
        expect(ended.process.exitCode).toBe(0);
        expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe(
            "first line\ntyped through the table\n"
        );
    });

    it("Ctrl+C in a tty interrupts the program as a terminal would", async () => {
        const program = [
            "import signal",
            "try:",
            "    print('ready', flush=True)",
            "    signal.pause()",
            "except KeyboardInterrupt:",
            "    print('interrupted', flush=True)",
            "input()",
        ].join("\n");
        const started = await shell.start(`python3 -c "${program}"`, { tty: true, origin: "t1" });
        const { id } = started.process;
        const table = shell.processes;
        // Python catches the interrupt once it printed "ready" (inside the try).
        await screenShowing(table, id, /ready/);
        await table.send(id, { keys: ["ctrl+c"] });
        // The terminal echoes the key as ^C, as it would for a user (and, as a terminal
        // does on an interrupt, may drop the newline after "ready" not yet shown).
        await screenShowing(table, id, /^ready\n?\^Cinterrupted$/);
        await table.send(id, { eof: true });
        const ended = await table.wait(
            id,
            { until: "exit", timeoutMs: 15_000 },
            new AbortController().signal
        );
        expect(ended.outcome).toBe("exited");
    });

    it("a password prompt is recognised, the user's answer reaches the program, and it shows nowhere", async () => {
        const started = await shell.start(
            'read -r -s -p "Password: " secret; echo; echo "got ${#secret} characters"; read -r -p "Name: " name; echo "hi $name"; read -r _',
            { tty: true, origin: "t1" }
        );
        const { id } = started.process;
        const table = shell.processes;
        await expect.poll(() => shell.processes.secretPrompt(id), WAIT).toBe("Password:");
        await table.sendSecret(id, "hunter2-secret");
        await screenShowing(table, id, /got 14 characters\nName:$/);
        // An echoing prompt is no secret prompt: the model may answer it, and a secret is not sent to it.
        await expect.poll(() => shell.processes.secretPrompt(id), WAIT).toBeUndefined();
        await expect(table.sendSecret(id, "would-show")).rejects.toThrow(
            /terminal shows what is typed \(echo is on\).*it was not sent/
        );
        await table.send(id, { text: "ann", keys: ["enter"] });
        const screen = await screenShowing(table, id, /hi ann$/);
        expect(screen).toBe("Password:\ngot 14 characters\nName: ann\nhi ann");
        expect(JSON.stringify(table.list())).not.toContain("hunter2");
    });

    it("a tty program at a password prompt is announced once per prompt, for the user to answer", async () => {
        const prompts: string[] = [];
        const table = shell.processes;
        table.subscribe((event) => {
            if (event.type === "secret_prompt") prompts.push(`${event.process.id} ${event.prompt}`);
        });
        const started = await shell.start(
            'read -r -s -p "Password: " a; echo; read -r -s -p "Password (again): " b; echo; ' +
                'echo "same=$([ "$a" = "$b" ] && echo yes)"; read -r _',
            { tty: true, origin: "t1" }
        );
        const { id } = started.process;
        await expect.poll(() => prompts, WAIT).toEqual([`${id} Password:`]);
        await table.sendSecret(id, "s3cret");
        await expect
            .poll(() => prompts, WAIT)
            .toEqual([`${id} Password:`, `${id} Password (again):`]);
        await table.sendSecret(id, "s3cret");
        const screen = await screenShowing(table, id, /same=yes$/);
        expect(screen).not.toContain("s3cret");
        expect(prompts).toHaveLength(2);
    });

    it("a pipe's unfinished last line can be a password prompt too", async () => {
        const started = await shell.start(
            'printf "log line\\nPassword: "; read -r secret; echo "got ${#secret}"',
            {
                origin: "t1",
            }
        );
        const { id } = started.process;
        await expect.poll(() => shell.processes.secretPrompt(id), WAIT).toBe("Password:");
        await shell.processes.sendSecret(id, "hunter2");
        const ended = await shell.processes.wait(
            id,
            { until: "exit", timeoutMs: 15_000 },
            new AbortController().signal
        );
        expect(ended.text).toContain("got 7");
        expect(await shell.processes.secretPrompt(id)).toBeUndefined();
    });
});

describe("shell service: where the pty library cannot load", () => {
    it("a tty command runs with pipes, and the model is told why, naming the package", async () => {
        const missing = Object.assign(new Error("Cannot find package '@lydell/node-pty'"), {
            code: "ERR_MODULE_NOT_FOUND",
        });
        shell.dispose();
        shell = createShellService(dir, {
            spillDir: join(dir, ".spill"),
            startProcessIo: (options) => createProcessIo(options, () => Promise.reject(missing)),
        });
        const started = await shell.start('echo interactive; read -r line; echo "read $line"', {
            tty: true,
            origin: "t1",
        });
        expect(started.process.tty).toBe(false);
        expect(started.note).toMatch(
            /^No terminal: A pseudo-terminal needs the optional package @lydell\/node-pty .*not installed.*\. It runs with pipes instead/
        );
        const { id } = started.process;
        await shell.processes.send(id, { text: "x", keys: ["enter"] });
        const ended = await shell.processes.wait(
            id,
            { until: "exit", timeoutMs: 15_000 },
            new AbortController().signal
        );
        expect(ended.screen).toBeUndefined();
        expect(`${started.output}\n${ended.text}`).toContain("read x");
    });
});
