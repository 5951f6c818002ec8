/**
 * Every subcommand that prints text North did not write (a project path, a
 * first prompt, a config key, a server's command, an argument) prints it
 * without control sequences: a hostile folder name or prompt cannot write the
 * clipboard (OSC 52), retitle or clear the terminal. Needs `npm run build` first.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { type NorthRun, isolatedHome, runNorth } from "../kit/run-north";

// ESC, and every other C0 (but \n, \t) or C1 control: 8-bit CSI, OSC, ST…
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

/** Clipboard write, title, clear screen, 8-bit CSI and OSC, around visible letters. */
const HOSTILE =
    "A\x1b]52;c;cm0gLXJmIH4vKgo=\x07B\x1b]0;pwned\x07C\x1b[2J\x1b[3JD\x9b2JE\x9d0;pwned\x9cF";
const VISIBLE = "ABCDEF";

let server: FakeLlmServer;
let parent: string;
let repo: string;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
    server = await startFakeLlmServer();
});
afterAll(async () => {
    await server.close();
});
beforeEach(() => {
    parent = mkdtempSync(join(tmpdir(), "north-cli-safe-"));
    repo = join(parent, `project-${HOSTILE}`);
    mkdirSync(repo);
    const isolated = isolatedHome();
    home = isolated.home;
    env = { ...isolated.env, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.anthropicBaseUrl };
    server.requests.length = 0;
});
afterEach(() => {
    expect(server.remaining()).toBe(0);
    rmSync(parent, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

function expectClean(run: NorthRun): void {
    expect(run.stdout).not.toMatch(RAW_CONTROL);
    expect(run.stderr).not.toMatch(RAW_CONTROL);
    expect(run.stdout + run.stderr).not.toContain("pwned");
}

/** A saved conversation in the hostile folder whose first prompt is hostile. */
async function hostileConversation(): Promise<string> {
    server.enqueue({ text: "ok" });
    const run = await runNorth(
        ["-p", `fix ${HOSTILE} now`, "--path", repo, "--output-format", "json"],
        { env }
    );
    expect(run.code).toBe(0);
    return (JSON.parse(run.stdout) as { session_id: string }).session_id;
}

describe("subcommands print hostile text without control sequences", () => {
    it("north list: the project path and the first prompt", async () => {
        const id = await hostileConversation();
        const run = await runNorth(["list"], { env });
        expect(run.code).toBe(0);
        expectClean(run);
        expect(run.stdout).toContain(id);
        expect(run.stdout).toContain(`project-${VISIBLE}`);
        expect(run.stdout).toContain(`fix ${VISIBLE} now`);
    });

    it("north list and rewind: a long clipboard payload cannot push the prompt out of its preview", async () => {
        server.enqueue({ text: "ok" });
        const prompt = `\x1b]52;c;${"Q".repeat(300)}\x07explain the retry loop`;
        const first = await runNorth(["-p", prompt, "--path", repo, "--output-format", "json"], {
            env,
        });
        const id = (JSON.parse(first.stdout) as { session_id: string }).session_id;
        const list = await runNorth(["list"], { env });
        expectClean(list);
        expect(list.stdout).toContain("        explain the retry loop\n");
        const rewind = await runNorth(["rewind", id], { env });
        expectClean(rewind);
        expect(rewind.stdout).toContain("  1. explain the retry loop\n");
    });

    it("north list --path: a folder that does not exist, named in the error", async () => {
        const run = await runNorth(["list", "--path", join(parent, `gone-${HOSTILE}`)], { env });
        expect(run.code).toBe(2);
        expectClean(run);
        expect(run.stderr).toContain(`gone-${VISIBLE}`);
    });

    it("north rewind ID: the project path and each prompt", async () => {
        const id = await hostileConversation();
        const run = await runNorth(["rewind", id], { env });
        expect(run.code).toBe(0);
        expectClean(run);
        expect(run.stdout).toContain(`project-${VISIBLE}`);
        expect(run.stdout).toContain(`1. fix ${VISIBLE} now`);
    });

    it("north doctor: a stray argument and a missing --path, quoted in the errors", async () => {
        const extra = await runNorth(["doctor", `extra${HOSTILE}`], { env });
        expect(extra.code).toBe(2);
        expectClean(extra);
        expect(extra.stderr).toContain(`(got "extra${VISIBLE}")`);

        const missing = await runNorth(["doctor", "--path", join(parent, `gone-${HOSTILE}`)], {
            env,
        });
        expect(missing.code).toBe(2);
        expectClean(missing);
        expect(missing.stderr).toContain(`gone-${VISIBLE}`);
    });

    it("north mcp list / get and north doctor: a server's command and its failure", async () => {
        mkdirSync(env.NORTH_CONFIG_DIR!, { recursive: true });
        writeFileSync(
            join(env.NORTH_CONFIG_DIR!, "config.json"),
            JSON.stringify({ mcpServers: { evil: { command: `/nonexistent/${HOSTILE}` } } })
        );
        for (const args of [["mcp", "list"], ["mcp", "get", "evil"], ["doctor"]]) {
            const run = await runNorth(args, { env, cwd: repo });
            expectClean(run);
            expect(run.stdout).toContain(`/nonexistent/${VISIBLE}`);
        }
    });

    it("north models: a warning that quotes a key of config.json", async () => {
        mkdirSync(env.NORTH_CONFIG_DIR!, { recursive: true });
        writeFileSync(
            join(env.NORTH_CONFIG_DIR!, "config.json"),
            JSON.stringify({ [`key${HOSTILE}`]: 1 })
        );
        const run = await runNorth(["models"], { env });
        expect(run.code).toBe(0);
        expectClean(run);
        expect(run.stderr).toContain(`"key${VISIBLE}"`);
    });

    it("north completion and flag errors: the argument, quoted back", async () => {
        const completion = await runNorth(["completion", `sh${HOSTILE}`], { env });
        expect(completion.code).toBe(2);
        expectClean(completion);
        expect(completion.stderr).toContain(`(got "sh${VISIBLE}")`);

        // (No "=" here: the parser would take what follows as the option's value.)
        const flag = await runNorth(["--bogus\x1b]0;pwned\x07X\x9b2JY\x1b[2JZ"], { env });
        expect(flag.code).toBe(2);
        expectClean(flag);
        expect(flag.stderr).toContain("--bogusXYZ");
    });
});
