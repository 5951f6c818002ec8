import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SHELL_HEAD_BYTES, SHELL_TAIL_BYTES } from "../../src/tools/limits";
import { HeadTailBuffer } from "../../src/tools/shell-output";
import { type ShellService, createShellService } from "../../src/tools/shell-service";
import type { CommandSandbox } from "../../src/tools/sandbox/command-sandbox";

/** True while `pid` runs; a zombie (exited, not yet reaped) counts as gone. */
function isAlive(pid: number): boolean {
    try {
        process.kill(pid, 0);
    } catch {
        return false;
    }
    try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const state = stat.charAt(stat.lastIndexOf(")") + 2);
        return state !== "Z" && state !== "X";
    } catch {
        return false;
    }
}

/** Waits until `pid` is gone; false if it still runs after `withinMs` (generous: load only makes it slower). */
async function waitGone(pid: number, withinMs = 10_000): Promise<boolean> {
    try {
        await vi.waitFor(() => expect(isAlive(pid)).toBe(false), {
            timeout: withinMs,
            interval: 20,
        });
        return true;
    } catch {
        return false;
    }
}

/** Pids a command printed, one per line (`echo $!`). */
function printedPids(output: string): number[] {
    return output
        .split("\n")
        .filter((line) => /^\d+$/.test(line))
        .map(Number);
}

/**
 * Run options that abort the command once it printed a pid (`echo $!`): the
 * process to stop is running then, however slow the machine.
 */
function abortOncePidShown(): {
    signal: AbortSignal;
    onOutput: (text: string) => void;
    abortedAt: () => number;
} {
    const controller = new AbortController();
    let at = 0;
    let output = "";
    const onOutput = (text: string): void => {
        output += text;
        if (at === 0 && printedPids(output).length > 0) {
            at = performance.now();
            controller.abort();
        }
    };
    return { signal: controller.signal, onOutput, abortedAt: () => at };
}

let root: string;
let shell: ShellService;

beforeEach(() => {
    root = realpathSync(mkdtempSync(path.join(tmpdir(), "north-shell-test-")));
    shell = createShellService(root);
});

afterEach(() => {
    shell.dispose();
    rmSync(root, { recursive: true, force: true });
});

describe("shell service: running commands", () => {
    it("merges stdout and stderr in order and reports the exit code", async () => {
        const result = await shell.run("echo a; echo b >&2; echo c; exit 3");
        expect(result).toMatchObject({
            exitCode: 3,
            output: "a\nb\nc\n",
            timedOut: false,
            cancelled: false,
            truncated: false,
            droppedBytes: 0,
            cwd: ".",
        });
        expect(result.signal).toBeUndefined();
        expect(result.note).toBeUndefined();
        expect(result.durationMs).toBeGreaterThanOrEqual(0);
    });

    it("reports exit 127 for a command that does not exist", async () => {
        const result = await shell.run("definitely-not-a-command-xyz --flag");
        expect(result.exitCode).toBe(127);
        expect(result.output).toContain("command not found");
    });

    it("reports a syntax error as bash does (exit 2) and keeps working", async () => {
        const result = await shell.run("if then fi (");
        expect(result.exitCode).toBe(2);
        expect(result.output).toContain("syntax error");
        expect((await shell.run("echo ok")).output).toBe("ok\n");
    });

    it("closes stdin: a command waiting for input returns at once", async () => {
        const started = performance.now();
        const result = await shell.run('cat; read -r line; echo "read=$?"');
        expect(performance.now() - started).toBeLessThan(5000);
        expect(result.exitCode).toBe(0);
        expect(result.output).toBe("read=1\n");
    });

    it("runs with a non-interactive environment", async () => {
        const result = await shell.run(
            'echo "$PAGER $GIT_PAGER $GIT_TERMINAL_PROMPT $GIT_EDITOR $EDITOR $VISUAL $NO_COLOR"'
        );
        expect(result.output).toBe("cat cat 0 true true true 1\n");
    });

    it("keeps provider keys and configured key variables out of the environment", async () => {
        const saved = { ...process.env };
        Object.assign(process.env, {
            ANTHROPIC_API_KEY: "sk-ant-hidden",
            OPENAI_API_KEY: "sk-oai-hidden",
            GATEWAY_KEY: "gw-hidden",
            NORTH_TEST_VISIBLE: "visible",
        });
        const gated = createShellService(root, {
            hiddenEnv: ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GATEWAY_KEY"],
        });
        try {
            const byDefault = await shell.run("env");
            expect(byDefault.output).not.toMatch(/sk-ant-hidden|sk-oai-hidden/);
            expect(byDefault.output).toContain("NORTH_TEST_VISIBLE=visible\n");
            const configured = await gated.run("env");
            expect(configured.output).not.toMatch(/hidden/);
            expect(configured.output).toContain("NORTH_TEST_VISIBLE=visible\n");
        } finally {
            gated.dispose();
            for (const name of Object.keys(process.env))
                if (!(name in saved)) delete process.env[name];
        }
    });

    it("keeps the user's positional parameters and exit from the wrapper out of the way", async () => {
        const result = await shell.run('echo "args=$#"; exit 7');
        expect(result.output).toBe("args=0\n");
        expect(result.exitCode).toBe(7);
    });
});

describe("shell service: output", () => {
    // 512 times what is kept, so the tail ring wraps thousands of times; the 2 GB run (with
    // throughput and peak memory) is in `npm run bench -- shell`, where its minutes do not race a test timeout.
    it("keeps a 64 MB output in bounded memory: head, tail and the dropped byte count", async () => {
        const total = 64 * 1024 ** 2;
        const result = await shell.run("head -c 64M /dev/zero; echo; echo END");
        expect(result.exitCode).toBe(0);
        expect(result.truncated).toBe(true);
        expect(result.droppedBytes).toBe(total + 5 - SHELL_HEAD_BYTES - SHELL_TAIL_BYTES);
        expect(result.output.length).toBeLessThanOrEqual(SHELL_HEAD_BYTES + SHELL_TAIL_BYTES + 200);
        expect(result.output.endsWith("\nEND\n")).toBe(true);
        expect(result.output).toMatch(/\[\.\.\. \d+ bytes of output omitted/);
    });

    it("keeps exactly the first and last bytes of a long text output", async () => {
        const lines = Array.from({ length: 200_000 }, (_, i) => `${i + 1}\n`).join("");
        const result = await shell.run("seq 1 200000");
        expect(result.truncated).toBe(true);
        expect(result.droppedBytes).toBe(lines.length - SHELL_HEAD_BYTES - SHELL_TAIL_BYTES);
        const [head, tail] = result.output.split(
            /\n\[\.\.\. \d+ bytes of output omitted[^\n]*\]\n/
        );
        expect(head).toBe(lines.slice(0, SHELL_HEAD_BYTES));
        expect(tail).toBe(lines.slice(lines.length - SHELL_TAIL_BYTES));
    });

    it("turns binary and invalid UTF-8 into replacement characters that survive JSON", async () => {
        const result = await shell.run(
            "printf 'ok \\xc3\\xa9 bad \\xff\\xfe nul \\x00 bell \\x07 \\x1b[31mred\\x1b[0m\\n'; head -c 100000 /dev/urandom"
        );
        expect(result.exitCode).toBe(0);
        expect(result.output.startsWith("ok é bad \uFFFD\uFFFD nul \uFFFD bell \uFFFD red\n")).toBe(
            true
        );
        expect(JSON.parse(JSON.stringify(result))).toEqual(result);
        // No lone surrogates and no raw control characters besides \t \n \r.
        expect(
            /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(
                result.output
            )
        ).toBe(false);
        // eslint-disable-next-line no-control-regex
        expect(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/.test(result.output)).toBe(false);
    });

    it("does not split a character at the head/tail cut", () => {
        const buffer = new HeadTailBuffer(4, 4);
        // "é" is c3 a9: the 4-byte head ends after c3; the 4-byte tail starts with a9.
        buffer.push(Buffer.from("abcé", "utf8"));
        buffer.push(Buffer.from("xxxxxxxxxx", "utf8"));
        buffer.push(Buffer.from("éyzw", "utf8"));
        const { output, truncated, droppedBytes } = buffer.finish();
        expect(truncated).toBe(true);
        expect(output.startsWith("abc\n[... 14 bytes")).toBe(true);
        expect(output.endsWith("]\nyzw")).toBe(true);
        expect(output).not.toContain("\uFFFD");
        // 20 bytes in, 3 kept in the head, 3 in the tail.
        expect(droppedBytes).toBe(14);
    });

    it("keeps a small output whole across the head and the ring", () => {
        const buffer = new HeadTailBuffer(4, 4);
        for (const part of ["ab", "cé", "fg", "h"]) buffer.push(Buffer.from(part, "utf8"));
        expect(buffer.finish()).toEqual({ output: "abcéfgh", truncated: false, droppedBytes: 0 });
    });
});

describe("shell service: working directory", () => {
    it("persists a cd to the next call without changing the exit code or output", async () => {
        mkdirSync(path.join(root, "sub", "deeper"), { recursive: true });
        const first = await shell.run("cd sub && echo moved; exit 4");
        expect(first).toMatchObject({ exitCode: 4, output: "moved\n", cwd: "sub" });
        expect(shell.cwd).toBe(path.join(root, "sub"));
        const second = await shell.run("pwd; cd deeper");
        expect(second.output).toBe(`${path.join(root, "sub")}\n`);
        expect(second.cwd).toBe("sub/deeper");
    });

    it("falls back to the project root when the directory was deleted, and says so", async () => {
        mkdirSync(path.join(root, "gone"));
        expect((await shell.run("cd gone")).cwd).toBe("gone");
        rmSync(path.join(root, "gone"), { recursive: true });
        const result = await shell.run("pwd");
        expect(result.exitCode).toBe(0);
        expect(result.output).toBe(`${root}\n`);
        expect(result.cwd).toBe(".");
        expect(result.note).toMatch(/gone no longer exists.*project root/);
        expect(shell.cwd).toBe(root);
    });

    it("lets a command cd outside the project but keeps the next call inside", async () => {
        mkdirSync(path.join(root, "sub"));
        await shell.run("cd sub");
        const result = await shell.run("cd / && pwd");
        expect(result.output).toBe("/\n");
        expect(result.cwd).toBe(".");
        expect(result.note).toMatch(/outside the project/);
        expect((await shell.run("pwd")).output).toBe(`${root}\n`);
    });

    it("serializes overlapping calls so a cd applies to the call after it", async () => {
        mkdirSync(path.join(root, "sub"));
        const [first, second] = await Promise.all([
            shell.run("sleep 0.2; cd sub"),
            shell.run("pwd"),
        ]);
        expect(first.cwd).toBe("sub");
        expect(second.output).toBe(`${path.join(root, "sub")}\n`);
    });
});

describe("shell service: stopping commands", () => {
    it("returns when bash exits even if a background process holds stdout, and stops it", async () => {
        const started = performance.now();
        const result = await shell.run("(sleep 30; echo late) & echo $!; echo started");
        expect(performance.now() - started).toBeLessThan(10_000);
        expect(result.exitCode).toBe(0);
        expect(result.output).toContain("started\n");
        expect(result.output).not.toContain("late");
        expect(result.note).toMatch(/Background processes/);
        const [pid] = printedPids(result.output);
        expect(pid).toBeDefined();
        expect(await waitGone(pid!)).toBe(true);
    });

    it("stops a background process that does not hold stdout", async () => {
        const result = await shell.run("sleep 30 >/dev/null 2>&1 & echo $!");
        const [pid] = printedPids(result.output);
        expect(await waitGone(pid!)).toBe(true);
    });

    it("kills the whole group on timeout", async () => {
        const started = performance.now();
        const result = await shell.run("sleep 100 & echo $!; bash -c 'sleep 100 & echo $!; wait'", {
            timeoutMs: 1000,
        });
        expect(performance.now() - started).toBeLessThan(10_000);
        expect(result).toMatchObject({ timedOut: true, cancelled: false, exitCode: null });
        expect(result.signal).toBe("SIGTERM");
        expect(result.note).toMatch(/Timed out after 1 s/);
        const pids = printedPids(result.output);
        expect(pids).toHaveLength(2);
        for (const pid of pids) expect(await waitGone(pid)).toBe(true);
    });

    it("cancels `sleep 100 & wait` by killing it", async () => {
        const { signal, onOutput, abortedAt } = abortOncePidShown();
        const result = await shell.run("sleep 100 & echo $!; wait", { signal, onOutput });
        expect(performance.now() - abortedAt()).toBeLessThan(10_000); // killed, not waited for: sleep 100
        expect(result).toMatchObject({ cancelled: true, timedOut: false, exitCode: null });
        const [pid] = printedPids(result.output);
        expect(await waitGone(pid!)).toBe(true);
    });

    it("cancels nested shells, grandchildren included", async () => {
        const { signal, onOutput, abortedAt } = abortOncePidShown();
        const result = await shell.run(`bash -c 'bash -c "sleep 100 & echo \\$!; wait"'`, {
            signal,
            onOutput,
        });
        expect(performance.now() - abortedAt()).toBeLessThan(10_000); // killed, not waited for: sleep 100
        expect(result.cancelled).toBe(true);
        const [pid] = printedPids(result.output);
        expect(pid).toBeDefined();
        expect(await waitGone(pid!)).toBe(true);
    });

    it("kills processes that ignore SIGTERM", async () => {
        const { signal, onOutput, abortedAt } = abortOncePidShown();
        const result = await shell.run("trap '' TERM; sleep 100 & echo $!; wait", {
            signal,
            onOutput,
        });
        expect(performance.now() - abortedAt()).toBeLessThan(10_000); // killed, not waited for: sleep 100
        expect(result.cancelled).toBe(true);
        const [pid] = printedPids(result.output);
        expect(await waitGone(pid!)).toBe(true);
    });

    it("does not start a command whose signal is already aborted", async () => {
        const controller = new AbortController();
        controller.abort();
        const result = await shell.run("touch ran", { signal: controller.signal });
        expect(result.cancelled).toBe(true);
        expect((await shell.run("ls")).output).toBe("");
    });

    it("does not start a command cancelled while the sandbox is still being checked", async () => {
        // An Esc right after the approval lands while the service awaits its look-ups (the
        // sandbox's first probe can take seconds): the cancel must still hold.
        const controller = new AbortController();
        let probes = 0;
        const cancelDuringProbe = {
            description: "test sandbox",
            // The service asks once when created, then before each command: cancel at that one.
            availability: () => {
                if (++probes > 1) controller.abort();
                return Promise.resolve({ ok: true as const });
            },
            createSessionFolders: () => undefined,
            controlPath: (dir: string, name: string) => [
                path.join(dir, name),
                path.join(dir, name),
            ],
            prepare: (argv: readonly string[], env: NodeJS.ProcessEnv) => ({
                file: argv[0]!,
                args: argv.slice(1),
                env,
                finish: () => undefined,
            }),
            blockedNote: () => undefined,
        } as unknown as CommandSandbox;
        const sandboxed = createShellService(root, { sandbox: cancelDuringProbe });
        try {
            const result = await sandboxed.run("touch ran", { signal: controller.signal });
            expect(result.cancelled).toBe(true);
            expect(result.note).toContain("Cancelled by the user before it started.");
            expect(existsSync(path.join(root, "ran"))).toBe(false);
        } finally {
            sandboxed.dispose();
        }
    });

    it("lets daemons that left the group outlive their command, and kills them on dispose()", async () => {
        // setsid, and a double fork under setsid: neither is in the command's process group.
        const result = await shell.run(
            "setsid sleep 300 >/dev/null 2>&1 & echo $!; " +
                "( setsid bash -c 'sleep 300 >/dev/null 2>&1 & echo $!' & ) | cat"
        );
        const pids = printedPids(result.output);
        expect(pids).toHaveLength(2);
        for (const pid of pids) expect(isAlive(pid)).toBe(true);
        expect((await shell.run("echo next")).output).toBe("next\n");
        for (const pid of pids) expect(isAlive(pid)).toBe(true);
        shell.dispose();
        for (const pid of pids) expect(await waitGone(pid)).toBe(true);
    });

    it("dispose() kills a running command and refuses new ones", async () => {
        let pidShown = (): void => {};
        const shown = new Promise<void>((resolve) => (pidShown = resolve));
        const running = shell.run("sleep 100 & echo $!; wait", {
            onOutput: (text) => {
                if (printedPids(text).length > 0) pidShown();
            },
        });
        await shown;
        const started = performance.now();
        shell.dispose();
        const result = await running;
        expect(performance.now() - started).toBeLessThan(10_000);
        expect(result.cancelled).toBe(true);
        const [pid] = printedPids(result.output);
        expect(await waitGone(pid!)).toBe(true);
        await expect(shell.run("true")).rejects.toThrow(/disposed/);
    });
});
