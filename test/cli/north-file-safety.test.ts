/**
 * NORTH_FILE through the built CLI: the target is untouched until the block
 * is accepted, whatever happens while it streams (given up, killed, disk errors).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { type PacedLlmServer, startPacedLlmServer } from "../kit/paced-llm-server";
import { NORTH_BIN, type NorthRun, isolatedHome, runNorth } from "../kit/run-north";

const SIDECAR = /^\.big\.txt\.north-(\d+)-[0-9a-f]{8}\.partial$/;
/** A run that has not ended by then is stuck: kill it so the test fails instead of hanging. */
const STUCK_MS = 15_000;

let server: FakeLlmServer;
let paced: PacedLlmServer;
let repo: string;
let home: string;
let baseEnv: NodeJS.ProcessEnv;
let original: string;

const env = (baseUrl: string): NodeJS.ProcessEnv => ({
    ...baseEnv,
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: baseUrl,
});
const target = () => join(repo, "big.txt");
const sidecars = () => readdirSync(repo).filter((name) => SIDECAR.test(name));
const lastRequest = () => JSON.stringify(server.requests.at(-1)!.body);
const lines = (count: number, word: string) =>
    Array.from({ length: count }, (_, i) => `${word} ${i + 1}`).join("\n") + "\n";

beforeAll(async () => {
    server = await startFakeLlmServer();
    paced = await startPacedLlmServer();
});
afterAll(async () => {
    await server.close();
    await paced.close();
});
beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), "north-nf-safety-"));
    original = lines(20_000, "original line");
    writeFileSync(target(), original);
    const isolated = isolatedHome();
    home = isolated.home;
    baseEnv = isolated.env;
    server.requests.length = 0;
    paced.requests.length = 0;
});
afterEach(() => {
    expect(server.remaining()).toBe(0);
    expect(paced.remaining()).toBe(0);
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

/** Spawns north the way `runNorth` does, but through `bash -c` so a ulimit applies to it. */
function runLimited(limitKb: number, args: string[], onSpawn?: (pid: number) => void) {
    return new Promise<NorthRun>((resolve, reject) => {
        const quoted = args.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
        const child = spawn(
            "bash",
            ["-c", `ulimit -f ${limitKb} && exec "${process.execPath}" "${NORTH_BIN}" ${quoted}`],
            { env: env(paced.anthropicBaseUrl), stdio: ["ignore", "pipe", "pipe"] }
        );
        let stdout = "";
        let stderr = "";
        child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
        child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
        const stuck = setTimeout(() => child.kill("SIGKILL"), STUCK_MS);
        child.on("error", reject);
        child.on("close", (code, signal) => {
            clearTimeout(stuck);
            resolve({ code, signal, stdout, stderr });
        });
        onSpawn?.(child.pid!);
    });
}

/** Resolves once `check` holds (looked at every 10 ms); the state, not a fixed wait. */
async function until(check: () => boolean, what: string): Promise<void> {
    await vi.waitFor(() => expect(check(), `waiting for ${what}`).toBe(true), {
        timeout: STUCK_MS,
        interval: 10,
    });
}

describe("a NORTH_FILE block that never closes", () => {
    const fourCutOffs = () => [
        { text: ['<NORTH_FILE path="big.txt">\n', "partial line\n"] },
        { text: ['<NORTH_FILE path="big.txt" mode="append">', "partial line\n"] },
        { text: ['<NORTH_FILE path="big.txt" mode="append">', "partial line\n"] },
        { text: ['<NORTH_FILE path="big.txt" mode="append">', "partial line\n"] },
    ];

    it("is denied in print mode without --allow-edits: the file stays byte-identical", async () => {
        server.enqueue(...fourCutOffs(), { text: "I could not finish it." });
        const run = await runNorth(["-p", "rewrite big.txt", "--path", repo], {
            env: env(server.anthropicBaseUrl),
        });
        expect(run.code).toBe(0);
        expect(readFileSync(target(), "utf8")).toBe(original);
        expect(sidecars()).toEqual([]);
        expect(lastRequest()).toContain("cut off again after 3 continuations");
        expect(lastRequest()).toContain("was rejected");
        expect(lastRequest()).toContain("big.txt is as it was before");
        expect(lastRequest()).toContain("--allow-edits");
    });

    it("is applied as partial content with --allow-edits", async () => {
        server.enqueue(...fourCutOffs(), { text: "Partly done." });
        const run = await runNorth(["-p", "rewrite big.txt", "--path", repo, "--allow-edits"], {
            env: env(server.anthropicBaseUrl),
        });
        expect(run.code).toBe(0);
        expect(readFileSync(target(), "utf8")).toBe("partial line\n".repeat(4));
        expect(sidecars()).toEqual([]);
        expect(lastRequest()).toContain("partial content (4 lines) was written and accepted");
    });
});

describe("kill -9 while a NORTH_FILE block streams", () => {
    it("leaves the original byte-identical, and the next run removes the stale sidecar", async () => {
        const chunks = ['Rewriting.\n<NORTH_FILE path="big.txt">\n'];
        for (let i = 0; i < 200; i++) chunks.push(lines(100, `new line ${i}`));
        paced.enqueue({ text: chunks, holdAfterChunks: 100 });
        let pid = 0;
        const run = runNorth(["-p", "rewrite big.txt", "--path", repo, "--allow-edits"], {
            env: env(paced.anthropicBaseUrl),
            onSpawn: (child) => (pid = child.pid!),
        });
        // Content on disk mid-block: in the sidecar (or, if the target were written, there).
        await until(
            () =>
                sidecars().some((name) => statSync(join(repo, name)).size > 0) ||
                readFileSync(target(), "utf8") !== original,
            "block content on disk"
        );
        process.kill(pid, "SIGKILL");
        expect((await run).signal).toBe("SIGKILL");
        expect(readFileSync(target(), "utf8")).toBe(original);
        const [stale] = sidecars();
        expect(SIDECAR.exec(stale ?? "")?.[1]).toBe(String(pid));

        server.enqueue(
            { text: '<NORTH_FILE path="big.txt">\nsmall\n</NORTH_FILE>' },
            { text: "Not allowed." }
        );
        const next = await runNorth(["-p", "rewrite big.txt", "--path", repo], {
            env: env(server.anthropicBaseUrl),
        });
        expect(next.code).toBe(0);
        expect(readdirSync(repo)).toEqual(["big.txt"]);
        expect(readFileSync(target(), "utf8")).toBe(original);
    });
});

describe("a write error in the middle of a NORTH_FILE block (ulimit -f)", () => {
    // 8,000 lines (~150 KB) against a 64 KB file size limit, arriving in 200 paced chunks.
    const block = {
        text: `<NORTH_FILE path="big.txt">\n${lines(8_000, "replacement line")}</NORTH_FILE>\nDone.`,
        tokenChunks: 200,
        eventDelayMs: 2,
    };

    it("ends the block with a clear error, keeps the target, and the run ends normally", async () => {
        paced.enqueue(block, { text: "The disk refused it." });
        const run = await runLimited(64, ["-p", "rewrite big.txt", "--path", repo]);
        expect(run.signal).toBeNull();
        expect(run.code).toBe(0);
        expect(run.stdout).toBe("The disk refused it.\n");
        expect(readFileSync(target(), "utf8")).toBe(original);
        expect(sidecars()).toEqual([]);
        const note = JSON.stringify(paced.requests.at(-1));
        expect(note).toContain("NORTH_FILE big.txt: failed: Writing big.txt failed: EFBIG");
        expect(note).toContain("file size limit was reached");
        expect(note).toContain("Nothing was written");
        // The user is told too, not only the model.
        expect(run.stderr).toMatch(/north: warning: .*big\.txt.*EFBIG/);
    });

    it("stays responsive: SIGTERM during the next request ends the run", async () => {
        paced.enqueue(block, { text: ["Let me ", "think"], holdAfterChunks: 1 });
        let pid = 0;
        const run = runLimited(64, ["-p", "rewrite big.txt", "--path", repo], (p) => (pid = p));
        await once(paced.events, "held");
        expect(JSON.stringify(paced.requests.at(-1))).toContain("file size limit was reached");
        process.kill(pid, "SIGTERM");
        const ended = await run;
        expect(ended.signal).toBeNull();
        expect(ended.code).toBe(143);
        expect(readFileSync(target(), "utf8")).toBe(original);
        expect(sidecars()).toEqual([]);
    });
});
