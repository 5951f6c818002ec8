import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runScript } from "../kit/run-script";
import {
    FileLockTimeout,
    tryLockFile,
    waitForFileLock,
    withFileLock,
} from "../../src/util/file-lock";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const MODULE = join(ROOT, "src", "util", "file-lock.ts");

const dirs: string[] = [];
const temp = () => {
    const dir = mkdtempSync(join(tmpdir(), "north-file-lock-"));
    dirs.push(dir);
    return dir;
};
afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A pid no process has right now: that of a child that already exited. */
const deadPid = () => spawnSync(process.execPath, ["-e", ""]).pid;

/**
 * Adds 1 to a counter file `count` times, each read-modify-write under the
 * lock; starts once both processes are ready, so they contend.
 */
const COUNTER = `
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { withFileLock } from ${JSON.stringify(MODULE)};
const [file, count, tag] = process.argv.slice(2);
writeFileSync(file + ".ready-" + tag, "");
while (!existsSync(file + ".ready-a") || !existsSync(file + ".ready-b")) {}
for (let i = 0; i < Number(count); i++) {
    withFileLock(file, () => {
        const n = Number(readFileSync(file, "utf8"));
        writeFileSync(file, String(n + 1));
    }, { timeoutMs: 20_000 });
}
`;

/** Takes the lock, says so, and is killed holding it. */
const KILLED_HOLDER = `
import { tryLockFile } from ${JSON.stringify(MODULE)};
const attempt = tryLockFile(process.argv[2]);
console.log(attempt.ok ? "held" : "busy");
process.kill(process.pid, "SIGKILL");
`;

describe("the file lock between processes", () => {
    it("two processes contending lose no update", async () => {
        const file = join(temp(), "counter");
        writeFileSync(file, "0");
        const runs = await Promise.all([
            runScript(temp(), COUNTER, [file, "200", "a"]),
            runScript(temp(), COUNTER, [file, "200", "b"]),
        ]);
        for (const run of runs) expect(run.stderr).toBe("");
        expect(readFileSync(file, "utf8")).toBe("400");
        expect(existsSync(`${file}.lock`)).toBe(false);
    }, 60_000);

    it("takes over the lock of a process killed while holding it", async () => {
        const lockPath = join(temp(), "conversation.lock");
        const run = await runScript(temp(), KILLED_HOLDER, [lockPath]);
        expect(run.signal).toBe("SIGKILL");
        expect(run.stdout.trim()).toBe("held");
        expect(existsSync(lockPath)).toBe(true);
        const attempt = tryLockFile(lockPath);
        if (!attempt.ok) throw new Error(`still held by ${attempt.pid}`);
        attempt.release();
        expect(existsSync(lockPath)).toBe(false);
    }, 30_000);

    it("an empty lock is being written: held while fresh, taken over once old", () => {
        const lockPath = join(temp(), "conversation.lock");
        writeFileSync(lockPath, "");
        expect(tryLockFile(lockPath)).toEqual({ ok: false, pid: undefined });
        const longAgo = new Date(Date.now() - 60_000);
        utimesSync(lockPath, longAgo, longAgo);
        const attempt = tryLockFile(lockPath);
        expect(attempt.ok).toBe(true);
        if (attempt.ok) attempt.release();
    });

    it("leaves a live process's lock alone, and says whose it is", () => {
        const lockPath = join(temp(), "conversation.lock");
        writeFileSync(lockPath, JSON.stringify({ pid: process.ppid, token: "live" }));
        expect(tryLockFile(lockPath)).toEqual({ ok: false, pid: process.ppid });
        expect(JSON.parse(readFileSync(lockPath, "utf8")).token).toBe("live");
    });
});

describe("the file lock within one process", () => {
    it("a second attempt sees the lock this process holds, until it is released", () => {
        const lockPath = join(temp(), "conversation.lock");
        const first = tryLockFile(lockPath);
        if (!first.ok) throw new Error("not taken");
        expect(tryLockFile(lockPath)).toEqual({ ok: false, pid: process.pid });
        first.release();
        const again = tryLockFile(lockPath);
        expect(again.ok).toBe(true);
        if (again.ok) again.release();
    });

    it("takes over a lock with this pid left by an earlier process (a reused pid)", () => {
        const lockPath = join(temp(), "conversation.lock");
        writeFileSync(lockPath, JSON.stringify({ pid: process.pid, token: "earlier" }));
        const attempt = tryLockFile(lockPath);
        expect(attempt.ok).toBe(true);
        if (attempt.ok) attempt.release();
    });

    it("a release does not remove a lock taken over since", () => {
        const lockPath = join(temp(), "index.lock");
        const first = tryLockFile(lockPath);
        if (!first.ok) throw new Error("not taken");
        writeFileSync(lockPath, JSON.stringify({ pid: process.ppid, token: "newer" }));
        first.release();
        expect(JSON.parse(readFileSync(lockPath, "utf8")).token).toBe("newer");
    });

    it("waitForFileLock waits for another task's release", async () => {
        const lockPath = join(temp(), "apply.lock");
        const releaseFirst = await waitForFileLock(lockPath);
        const second = waitForFileLock(lockPath, { timeoutMs: 20_000 });
        let secondHeld = false;
        void second.then(() => (secondHeld = true));
        await new Promise((resolve) => setImmediate(resolve));
        expect(secondHeld).toBe(false);
        releaseFirst();
        const releaseSecond = await second;
        releaseSecond();
        expect(existsSync(lockPath)).toBe(false);
    });

    it("waitForFileLock gives up on a live owner with FileLockTimeout", async () => {
        const lockPath = join(temp(), "apply.lock");
        writeFileSync(lockPath, JSON.stringify({ pid: process.ppid, token: "live" }));
        await expect(waitForFileLock(lockPath, { timeoutMs: 50 })).rejects.toBeInstanceOf(
            FileLockTimeout
        );
    });
});

describe("withFileLock", () => {
    it("takes over a lock left by a dead process", () => {
        const target = join(temp(), "index.json");
        writeFileSync(`${target}.lock`, JSON.stringify({ pid: deadPid(), token: "old" }));
        expect(withFileLock(target, () => 42, { timeoutMs: 500 })).toBe(42);
        expect(() => readFileSync(`${target}.lock`)).toThrow();
    });

    it("waits for a live owner, then times out; a stale one is taken over", () => {
        const target = join(temp(), "index.json");
        writeFileSync(`${target}.lock`, JSON.stringify({ pid: process.ppid, token: "live" }));
        expect(() => withFileLock(target, () => 1, { timeoutMs: 200 })).toThrow(/timed out/);
        expect(withFileLock(target, () => 2, { timeoutMs: 200, staleMs: 0 })).toBe(2);
    });

    it("releases the lock when fn throws and refuses re-entry", () => {
        const target = join(temp(), "index.json");
        expect(() =>
            withFileLock(target, () => {
                withFileLock(target, () => 0);
            })
        ).toThrow(/already held/);
        expect(withFileLock(target, () => "free", { timeoutMs: 100 })).toBe("free");
    });
});
