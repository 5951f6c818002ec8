/**
 * A North killed with `kill -9` cannot stop its background processes; the
 * next North started in the same project does, and says so once. A small
 * script stands for the first North: it records a marked background process
 * as the shell service does, then is killed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
    existsSync,
    mkdirSync,
    mkdtempSync,
    readFileSync,
    realpathSync,
    rmSync,
    writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { newOwnerTag } from "../../src/tools/child-reaper";
import { ProcessRecord, reapLeftovers } from "../../src/tools/processes/leftovers";
import type { ProcessInfo } from "../../src/tools/processes/types";
import { until } from "./sandbox-kit";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * The first North: a shell service as North makes it (records in the data folder) starts a
 * background command; it prints the command's pid and the service's record, then waits.
 */
const FIRST_NORTH = `
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { createShellService } from ${JSON.stringify(path.join(ROOT, "src/tools/shell-service.ts"))};
const [dir, root, mode] = process.argv.slice(2);
const shell = createShellService(root, { spillDir: dir });
const { process: started } = await shell.start("sleep 1000", { origin: "call_1" });
const record = readdirSync(dir).find(
    (name) =>
        name.endsWith(".json") &&
        JSON.parse(readFileSync(join(dir, name), "utf8")).north.pid === process.pid
);
console.log("ready " + started.pid + " " + record.slice(0, -".json".length));
if (mode === "exit") process.exit(0);
setInterval(() => undefined, 1000);
`;

function running(pid: number): boolean {
    try {
        // A zombie waits for a parent that may never reap it (pid 1 in a container): it is gone.
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
    } catch {
        return false;
    }
}

let base: string;
let dir: string;
let project: string;
const children: ChildProcess[] = [];
const stray: number[] = [];

beforeEach(() => {
    base = realpathSync(mkdtempSync(path.join(tmpdir(), "north-leftovers-")));
    dir = path.join(base, "data", "processes");
    project = path.join(base, "project");
    mkdirSync(project);
});

afterEach(() => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
    for (const pid of stray.splice(0)) {
        try {
            process.kill(pid, "SIGKILL");
        } catch {
            // gone
        }
    }
    rmSync(base, { recursive: true, force: true });
});

/** Starts the first North and waits for its "ready" line: the background process's pid and tag. */
async function startFirstNorth(
    mode: "wait" | "exit"
): Promise<{ north: ChildProcess; pid: number; tag: string }> {
    const script = path.join(base, "first-north.mts");
    writeFileSync(script, FIRST_NORTH);
    const north = spawn(process.execPath, ["--import", "tsx", script, dir, project, mode], {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "inherit"],
    });
    children.push(north);
    let output = "";
    north.stdout?.setEncoding("utf8").on("data", (text: string) => (output += text));
    expect(await until(() => /ready \d+ \S+\n/.test(output), 30_000)).toBe(true);
    const [, pid, tag] = /ready (\d+) (\S+)/.exec(output)!;
    stray.push(Number(pid));
    return { north, pid: Number(pid), tag: tag! };
}

describe.skipIf(process.platform !== "linux")("leftovers of a North killed with kill -9", () => {
    it("the next start in the project stops the background process, removes the record and spill folder, and says so once", async () => {
        const { north, pid, tag } = await startFirstNorth("wait");
        const exited = new Promise((resolve) => north.on("close", resolve));
        north.kill("SIGKILL");
        await exited;
        expect(running(pid)).toBe(true);
        // Another project's North finds nothing of it.
        const elsewhere = path.join(base, "elsewhere");
        mkdirSync(elsewhere);
        expect(reapLeftovers(dir, elsewhere)).toBeUndefined();
        expect(running(pid)).toBe(true);

        expect(reapLeftovers(dir, project)).toBe(
            "Stopped 1 process left running by a North that ended abruptly: p1 `sleep 1000`."
        );
        expect(await until(() => !running(pid))).toBe(true);
        expect(existsSync(path.join(dir, `${tag}.json`))).toBe(false);
        expect(existsSync(path.join(dir, tag))).toBe(false);
        expect(reapLeftovers(dir, project)).toBeUndefined();
    });

    it("leaves a live North's processes alone, and a North that exited normally leaves no record", async () => {
        const { north, pid, tag } = await startFirstNorth("wait");
        expect(reapLeftovers(dir, project)).toBeUndefined();
        expect(running(pid)).toBe(true);
        expect(existsSync(path.join(dir, `${tag}.json`))).toBe(true);
        north.kill("SIGKILL");

        const second = await startFirstNorth("exit");
        await until(() => second.north.exitCode !== null);
        expect(existsSync(path.join(dir, `${second.tag}.json`))).toBe(false);
    });

    it("takes a reused pid for a dead North (its start time differs)", () => {
        const tag = newOwnerTag();
        const record = new ProcessRecord({ dir, ownerTag: tag, root: project });
        const info: ProcessInfo = {
            id: "p3",
            command: "node server.js",
            cwd: project,
            tty: false,
            sandboxed: false,
            state: "running",
            startedAt: Date.now(),
            outputBytes: 0,
            origin: "call_3",
        };
        record.recordProcesses([info]);
        const file = path.join(dir, `${tag}.json`);
        const written = JSON.parse(readFileSync(file, "utf8")) as { north: { startTime: string } };
        // This process's pid, as if a new process had taken the dead North's.
        written.north.startTime = "1";
        writeFileSync(file, JSON.stringify(written));
        // Nothing was still running: no message, and the record is gone.
        expect(reapLeftovers(dir, project)).toBeUndefined();
        expect(existsSync(file)).toBe(false);
    });
});
