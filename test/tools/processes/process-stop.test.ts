/**
 * Ending background processes (issue 35, bad inputs): one ignoring SIGTERM
 * is killed after the grace period; daemons that left its group (setsid,
 * double fork) go with it, and only its own; dispose ends them all and
 * removes the spill files; Ctrl+B moves a running command into the table.
 */
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { disposeKits, isAlive, makeKit, pidFrom, until, untilGone } from "./kit";

afterEach(disposeKits);

const origin = "call-1";
const signal = new AbortController().signal;

describe("stopping background processes", () => {
    it("kills one that ignores SIGTERM after the grace period", async () => {
        const { shell } = await makeKit();
        await shell.start("trap '' TERM; echo ready; while :; do sleep 0.05; done", { origin });
        const info = await shell.processes.stop("p1");
        expect(info).toMatchObject({ state: "exited", signal: "SIGKILL", stopped: true });
        await untilGone(info.pid!);
        // Stopped by the model: no notice tells it what it did.
        expect(shell.processes.takeNotices()).toEqual([]);
    });

    it("reaps the daemons a process left (setsid, double fork), and leaves the other processes running", async () => {
        const kit = await makeKit();
        const { shell } = kit;
        await shell.start(
            "setsid sh -c 'echo $$ > d1.pid; exec sleep 300' & (sh -c 'echo $$ > d2.pid; exec sleep 301' &); echo up; exec sleep 302",
            { origin }
        );
        await shell.start("echo other; exec sleep 303", { origin });
        const daemons = [await pidFrom(kit, "d1.pid"), await pidFrom(kit, "d2.pid")];
        for (const pid of daemons) expect(isAlive(pid)).toBe(true);
        await shell.processes.stop("p1");
        for (const pid of daemons) await untilGone(pid);
        const other = shell.processes.get("p2")!;
        expect(other.state).toBe("running");
        expect(isAlive(other.pid!)).toBe(true);
    });

    it("ends every process, their daemons and spill files at dispose", async () => {
        const kit = await makeKit({ processLimits: { ringBytes: 1024, spillCapBytes: 64 * 1024 } });
        const { shell } = kit;
        await shell.start("setsid sh -c 'echo $$ > d.pid; exec sleep 300' & exec sleep 301", {
            origin,
        });
        await shell.start("seq 1 2000; exec sleep 302", { origin });
        const daemon = await pidFrom(kit, "d.pid");
        await until(() => expect(shell.processes.get("p2")?.spillPath).toBeDefined());
        const spill = shell.processes.get("p2")!.spillPath!;
        expect(statSync(spill).mode & 0o777).toBe(0o600);
        const pids = shell.processes.list().map((p) => p.pid!);
        shell.dispose();
        for (const pid of [daemon, ...pids]) await untilGone(pid);
        expect(existsSync(spill)).toBe(false);
        // The service's own folder under the shared one goes too.
        expect(path.dirname(spill).startsWith(kit.spillDir)).toBe(true);
        expect(existsSync(path.dirname(spill))).toBe(false);
    });
});

describe("moving a running command to the background (Ctrl+B)", () => {
    it("returns the run at once with the id and the output so far; the process keeps running in the table", async () => {
        const { shell, repo } = await makeKit();
        const detach = new AbortController();
        const result = await shell.run(
            "echo one; while [ ! -f go ]; do sleep 0.02; done; echo two; exec sleep 100",
            {
                detach: detach.signal,
                onOutput: (text) => {
                    if (text.includes("one")) detach.abort();
                },
            }
        );
        expect(result.backgrounded).toEqual({ id: "p1" });
        expect(result.output).toBe("one\n");
        expect(result.exitCode).toBeNull();
        expect(result.note).toMatch(/moved it to the background as p1/);
        const table = shell.processes;
        expect(table.get("p1")).toMatchObject({ state: "running", origin: "user", outputBytes: 4 });
        await repo.write("go", "");
        const two = await table.wait(
            "p1",
            { until: { pattern: "two" }, timeoutMs: 20_000 },
            signal
        );
        expect(two.outcome).toBe("matched");
        expect(two.text).toBe("two");
        // The next foreground command runs as usual.
        expect((await shell.run("echo after")).output).toBe("after\n");
        const stopped = await table.stop("p1");
        await untilGone(stopped.pid!);
    });
});
