/**
 * A tty process in the sandbox (issue 35): the pty runs the prepared bwrap
 * program, so an interactive bash inside has a terminal of its own (isatty,
 * /dev/tty, window size, job control, Ctrl+C) and answers keys, while the
 * sandbox still refuses its writes outside the project.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ProcessId, ProcessTable } from "../../src/tools/processes/types";
import { sandboxTestsBlocked, useSandboxFixture } from "./sandbox-kit";

const blocked = await sandboxTestsBlocked([]);

const WAIT = { timeout: 20_000, interval: 25 };

/** The screen once it matches `pattern` (the view's read: rows as they are). */
async function screenShowing(table: ProcessTable, id: ProcessId, pattern: RegExp): Promise<string> {
    let text = "";
    await expect
        .poll(() => (text = table.read(id, { mode: "tail", reader: "view" }).text), WAIT)
        .toMatch(pattern);
    return text;
}

describe.skipIf(blocked !== null)("a tty process in the sandbox", () => {
    const fixture = useSandboxFixture();

    it("an interactive bash gets its own terminal, answers keys, and still cannot write outside", async () => {
        const shell = fixture.sandboxed();
        const started = await shell.start!("PS1='sbx$ ' bash --norc --noprofile -i", {
            tty: true,
            origin: "t1",
        });
        expect(started.note).toBeUndefined();
        expect(started.process).toMatchObject({ tty: true, sandboxed: true, state: "running" });
        const { id } = started.process;
        const table = shell.processes!;
        await screenShowing(table, id, /sbx\$$/);
        await table.send(id, {
            text: 'test -t 0 && echo "tty $(stty size)"; echo via-dev-tty > /dev/tty; echo $((6*7))\n',
        });
        await screenShowing(table, id, /\ntty 40 120\nvia-dev-tty\n42\nsbx\$$/);
        // Job control: a background job listed, a foreground one interrupted by Ctrl+C.
        await table.send(id, { text: "sleep 300 & jobs\n" });
        await screenShowing(table, id, /\[1\]\+ +Running +sleep 300 &\nsbx\$$/);
        await table.send(id, {
            text: 'python3 -c \'import signal; print("nap" + "ping", flush=True); signal.pause()\'\n',
        });
        await screenShowing(table, id, /\nnapping$/);
        await table.send(id, { keys: ["ctrl+c"] });
        await screenShowing(table, id, /KeyboardInterrupt\n+sbx\$$/);
        // $HOME (in the real /tmp, shown read-only inside): the sandbox refuses the write.
        const outside = path.join(fixture.home, "escaped");
        await table.send(id, { text: `touch ${outside}; touch inside.txt; echo done-$?\n` });
        const screen = await screenShowing(table, id, /\ndone-0\nsbx\$$/);
        expect(screen).toContain("Read-only file system");
        expect(screen).not.toContain("no job control");
        expect(existsSync(outside)).toBe(false);
        expect(existsSync(path.join(fixture.root, "inside.txt"))).toBe(true);
        await table.send(id, { text: "exit\n" });
        const ended = await table.wait(
            id,
            { until: "exit", timeoutMs: 20_000 },
            new AbortController().signal
        );
        expect(ended.outcome).toBe("exited");
    }, 120_000);
});
