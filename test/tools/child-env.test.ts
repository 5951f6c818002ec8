import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { OWNER_ENV, newOwnerTag, ownerEnv, reapOwned } from "../../src/tools/child-reaper";
import { PROVIDER_SECRET_ENV, childEnv, secretEnvNames } from "../../src/util/child-env";

describe("the child environment", () => {
    it("drops the hidden names and unset entries, keeps everything else", () => {
        const env = childEnv(
            {
                PATH: "/bin",
                HOME: "/home/me",
                ANTHROPIC_API_KEY: "sk-ant",
                GATEWAY_KEY: "gw",
                UNSET: undefined,
            },
            ["ANTHROPIC_API_KEY", "GATEWAY_KEY"]
        );
        expect(env).toEqual({ PATH: "/bin", HOME: "/home/me" });
    });

    it("passes an explicit entry even when it names a hidden variable", () => {
        const env = childEnv({ ANTHROPIC_API_KEY: "sk-ant", PATH: "/bin" }, PROVIDER_SECRET_ENV, {
            ANTHROPIC_API_KEY: "sk-ant",
            EXTRA: "1",
        });
        expect(env).toEqual({ PATH: "/bin", ANTHROPIC_API_KEY: "sk-ant", EXTRA: "1" });
    });

    it("hides the SDKs' own variables and every configured apiKeyEnv, each once", () => {
        expect(secretEnvNames(["OPENAI_API_KEY", undefined, "GATEWAY_KEY", "GATEWAY_KEY"])).toEqual(
            ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "GATEWAY_KEY", "OPENAI_API_KEY"]
        );
    });
});

/** True while `pid` runs; a zombie counts as gone. */
function isAlive(pid: number): boolean {
    try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const state = stat.charAt(stat.lastIndexOf(")") + 2);
        return state !== "Z" && state !== "X";
    } catch {
        return false;
    }
}

/** True once `pid` runs `sleep` (setsid has exec'd it: its environment can be read). */
function runsSleep(pid: number): boolean {
    try {
        return readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "sleep";
    } catch {
        return false;
    }
}

/**
 * Starts `script` under bash with `env`; resolves with the pids it printed once bash exits
 * and each of them runs `sleep` (mid-exec, a process's environment reads empty).
 */
async function startDaemons(script: string, env: Record<string, string>): Promise<number[]> {
    const pids = await new Promise<number[]>((resolve, reject) => {
        const child = spawn("bash", ["-c", script], {
            env: { PATH: process.env.PATH ?? "", ...env },
            stdio: ["ignore", "pipe", "inherit"],
        });
        let out = "";
        child.stdout.setEncoding("utf8").on("data", (text: string) => (out += text));
        child.on("error", reject);
        child.on("close", () => resolve(out.trim().split(/\s+/).map(Number)));
    });
    await vi.waitFor(() => expect(pids.every(runsSleep)).toBe(true), { timeout: 10_000 });
    return pids;
}

// Each daemon leaves bash's process group: setsid, and a double fork under setsid.
const DAEMONS =
    "setsid sleep 300 >/dev/null & echo $!; ( setsid bash -c 'sleep 300 >/dev/null & echo $!' & )";

describe.runIf(process.platform === "linux")("the child reaper", () => {
    it("kills what left the process group when it carries the tag, and nothing else", async () => {
        const tag = newOwnerTag();
        const other = newOwnerTag();
        const mine = await startDaemons(DAEMONS, ownerEnv(tag));
        const theirs = await startDaemons(DAEMONS, ownerEnv(other));
        const unmarked = await startDaemons(DAEMONS, {});
        try {
            expect(mine).toHaveLength(2);
            for (const pid of [...mine, ...theirs, ...unmarked]) expect(isAlive(pid)).toBe(true);
            expect(reapOwned(tag)).toBe(2);
            // SIGKILL is synchronous in effect: a killed process is a zombie or gone at once.
            await expect.poll(() => mine.filter(isAlive), { timeout: 2000 }).toEqual([]);
            for (const pid of [...theirs, ...unmarked]) expect(isAlive(pid)).toBe(true);
        } finally {
            for (const pid of [...theirs, ...unmarked]) process.kill(pid, "SIGKILL");
        }
    });

    it("finds a tag among inherited ones (North started by North)", async () => {
        const tag = newOwnerTag();
        const [pid] = await startDaemons("setsid sleep 300 >/dev/null & echo $!", {
            [OWNER_ENV]: `outer-1 ${ownerEnv(tag)[OWNER_ENV]} inner-2`,
        });
        expect(isAlive(pid!)).toBe(true);
        expect(reapOwned(tag)).toBe(1);
        await expect.poll(() => isAlive(pid!), { timeout: 2000 }).toBe(false);
    });
});
