import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { checkAcpStdout } from "../../src/cli/doctor-checks";
import { NORTH_BIN, isolatedHome, runNorth } from "../kit/run-north";

// `north doctor`'s check that nothing but protocol messages reaches stdout in `north acp`: what
// breaks an editor's connection is whatever runs before North (a NODE_OPTIONS preload, a wrapper
// script) printing there, so the fakes below are such things around a well-behaved agent.

/** An ACP agent that answers `initialize` on its first line and then waits. */
const ANSWERING_AGENT = `
process.stdin.setEncoding("utf8");
let input = "";
process.stdin.on("data", (d) => {
    input += d;
    if (!input.includes("\\n")) return;
    const request = JSON.parse(input.slice(0, input.indexOf("\\n")));
    process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: request.id, result: { protocolVersion: 1 } }) + "\\n");
});
`;

let dir: string;
let agent: string;
beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "north-doctor-acp-"));
    agent = join(dir, "agent.cjs");
    writeFileSync(agent, ANSWERING_AGENT);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const probe = (args: string[], env: NodeJS.ProcessEnv = { PATH: process.env.PATH }) =>
    checkAcpStdout(process.execPath, args, { env, cwd: dir, timeoutMs: 10_000 });

describe("the acp stdout check", () => {
    it("passes an agent whose stdout carries only its answer", async () => {
        const check = await probe([agent]);
        expect(check.status).toBe("ok");
        expect(check.detail).toMatch(/^only protocol messages; initialize answered \(protocol 1\)/);
    });

    it("names the first line a NODE_OPTIONS preload prints before the agent starts", async () => {
        const preload = join(dir, "banner.cjs");
        writeFileSync(preload, `process.stdout.write("Debugger helper loaded\\n");`);
        const check = await probe([agent], {
            PATH: process.env.PATH,
            NODE_OPTIONS: `--require ${preload}`,
        });
        expect(check.status).toBe("fail");
        expect(check.detail).toContain('stdout line 1 is not JSON: "Debugger helper loaded"');
        expect(check.detail).toContain("NODE_OPTIONS");
    });

    it("fails on JSON that is not JSON-RPC and on blank lines", async () => {
        const chatty = join(dir, "chatty.cjs");
        writeFileSync(chatty, `console.log(JSON.stringify({ ready: true })); ${ANSWERING_AGENT}`);
        expect((await probe([chatty])).detail).toMatch(
            /^stdout line 1 is JSON but not a JSON-RPC message: "\{\\"ready\\":true\}"/
        );
        const blank = join(dir, "blank.cjs");
        writeFileSync(blank, `console.log(""); ${ANSWERING_AGENT}`);
        expect((await probe([blank])).detail).toMatch(/^stdout line 1 is blank/);
    });

    it("reports an agent that exits before answering, with its last stderr line", async () => {
        const crashing = join(dir, "crash.cjs");
        writeFileSync(crashing, `console.error("north: unknown command acp"); process.exit(2);`);
        const check = await probe([crashing]);
        expect(check.status).toBe("fail");
        expect(check.detail).toBe(
            "`north acp` exited (code 2) before answering initialize: north: unknown command acp"
        );
    });

    it("gives up on an agent that never answers, and stops it", async () => {
        const silent = join(dir, "silent.cjs");
        const pidFile = join(dir, "silent.pid");
        writeFileSync(
            silent,
            `require("node:fs").writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000);`
        );
        const check = await checkAcpStdout(process.execPath, [silent], {
            env: { PATH: process.env.PATH },
            cwd: dir,
            timeoutMs: 1500,
        });
        expect(check).toEqual({
            status: "fail",
            label: "acp stdout",
            detail: "`north acp` did not answer initialize within 1.5 s",
        });
        const pid = Number(readFileSync(pidFile, "utf8"));
        await expect.poll(() => isAlive(pid), { timeout: 10_000 }).toBe(false);
    });
});

function isAlive(pid: number): boolean {
    try {
        process.kill(pid, 0);
        return true;
    } catch {
        return false;
    }
}

describe("north doctor in acp mode", () => {
    beforeAll(() => {
        if (!existsSync(NORTH_BIN.replace(/bin\/north\.js$/, "dist/cli.js"))) {
            throw new Error("dist/ is missing: run `node scripts/build.mjs` before this test");
        }
    });

    function setup(): { repo: string; env: NodeJS.ProcessEnv; home: string } {
        const { home, env } = isolatedHome();
        const repo = join(home, "repo");
        mkdirSync(join(repo, ".git"), { recursive: true });
        return { repo, env, home };
    }

    it("finds stdout clean for the built `north acp`", async () => {
        const { repo, env, home } = setup();
        try {
            const run = await runNorth(["doctor", "--path", repo], { env });
            expect(run.stdout).toMatch(
                /\n✓ acp stdout +only protocol messages; initialize answered \(protocol 1\) in \d+ ms\n/
            );
        } finally {
            rmSync(home, { recursive: true, force: true });
        }
    }, 60_000);

    it("fails, naming the banner, when a NODE_OPTIONS preload prints to stdout", async () => {
        const { repo, env, home } = setup();
        const preload = join(home, "banner.cjs");
        writeFileSync(preload, `process.stdout.write("profile loaded\\n");`);
        try {
            const run = await runNorth(["doctor", "--path", repo], {
                env: { ...env, NODE_OPTIONS: `--require ${preload}` },
            });
            expect(run.stdout).toMatch(
                /\n✗ acp stdout +stdout line 1 is not JSON: "profile loaded"; editors read only protocol messages there/
            );
            expect(run.code).toBe(1);
        } finally {
            rmSync(home, { recursive: true, force: true });
        }
    }, 60_000);
});
