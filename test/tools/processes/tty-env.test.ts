/**
 * A tty process is for interactive programs: it gets an editor (the user's,
 * else vi) and git may prompt, while commands and pipe background processes
 * keep the non-interactive environment (EDITOR=true, no git prompts).
 */
import { afterEach, describe, expect, it } from "vitest";
import { createProcessIo } from "../../../src/tools/processes/process-io";
import type { ProcessId } from "../../../src/tools/processes/types";
import { shellEnv } from "../../../src/tools/shell-env";
import { type Kit, disposeKits, makeKit } from "./kit";

afterEach(disposeKits);

const WAIT = { timeout: 20_000, interval: 25 };
const never = new AbortController().signal;

/** The environment with no editor of the user's and a git of its own (no global config). */
function plainEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {
        ...process.env,
        GIT_CONFIG_GLOBAL: "/dev/null",
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_AUTHOR_NAME: "Ann",
        GIT_AUTHOR_EMAIL: "ann@example.com",
        GIT_COMMITTER_NAME: "Ann",
        GIT_COMMITTER_EMAIL: "ann@example.com",
        ...extra,
    };
    for (const name of ["EDITOR", "VISUAL", "GIT_EDITOR", "GIT_TERMINAL_PROMPT"]) {
        if (!(name in extra)) delete env[name];
    }
    return env;
}

/** The text of a process once it has exited. */
async function outputAtExit(kit: Kit, id: ProcessId): Promise<string> {
    const ended = await kit.shell.processes.wait(id, { until: "exit", timeoutMs: 20_000 }, never);
    expect(ended.outcome).toBe("exited");
    return kit.shell.processes.read(id, { mode: "tail", reader: "view" }).text;
}

const SHOW_ENV =
    'echo "editor=$EDITOR visual=$VISUAL git=${GIT_EDITOR-unset} prompt=${GIT_TERMINAL_PROMPT-unset} pager=$PAGER"';

describe("the environment of interactive programs", () => {
    it("git commit without -m in a tty opens vi; quitting it aborts the commit", async () => {
        const kit = await makeKit({ env: plainEnv() });
        const started = await kit.shell.start(
            "git init -q work && cd work && git commit --allow-empty",
            { tty: true, origin: "t1" }
        );
        const { id } = started.process;
        await expect
            .poll(() => kit.shell.processes.read(id, { mode: "new" }).text, WAIT)
            .toMatch(/Please enter the commit message[\s\S]*\n~/);
        await kit.shell.processes.send(id, { text: ":q!", keys: ["enter"] });
        expect(await outputAtExit(kit, id)).toMatch(/Aborting commit due to empty commit message/);
    });

    it("a tty keeps the user's editor and lets git prompt; pipes and commands stay non-interactive", async () => {
        const kit = await makeKit({ env: plainEnv({ EDITOR: "nano" }) });
        const tty = await kit.shell.start(SHOW_ENV, { tty: true, origin: "t1" });
        expect(await outputAtExit(kit, tty.process.id)).toBe(
            "editor=nano visual=nano git=unset prompt=unset pager=cat"
        );
        const piped = await kit.shell.start(SHOW_ENV, { origin: "t1" });
        const nonInteractive = "editor=true visual=true git=true prompt=0 pager=cat";
        expect(await outputAtExit(kit, piped.process.id)).toBe(nonInteractive);
        const run = await kit.shell.run(SHOW_ENV);
        expect(run.output.trim()).toBe(nonInteractive);
    });

    it("a tty command that falls back to pipes (no pty library) is non-interactive again", async () => {
        const missing = Object.assign(new Error("Cannot find package"), {
            code: "ERR_MODULE_NOT_FOUND",
        });
        const kit = await makeKit({
            env: plainEnv({ EDITOR: "nano" }),
            startProcessIo: (options) => createProcessIo(options, () => Promise.reject(missing)),
        });
        const started = await kit.shell.start(SHOW_ENV, { tty: true, origin: "t1" });
        expect(started.process.tty).toBe(false);
        expect(await outputAtExit(kit, started.process.id)).toBe(
            "editor=true visual=true git=true prompt=0 pager=cat"
        );
    });

    it("a tty without an editor of the user's gets vi when it is on PATH, else none", async () => {
        const withVi = await makeKit({ env: plainEnv() });
        const found = await withVi.shell.start(SHOW_ENV, { tty: true, origin: "t1" });
        expect(await outputAtExit(withVi, found.process.id)).toMatch(/^editor=vi visual=vi /);
        const none = shellEnv({ PATH: "/nonexistent" }, [], "tag", { tty: true });
        expect([none.EDITOR, none.VISUAL, none.GIT_EDITOR, none.GIT_TERMINAL_PROMPT]).toEqual([
            undefined,
            undefined,
            undefined,
            undefined,
        ]);
    });
});
