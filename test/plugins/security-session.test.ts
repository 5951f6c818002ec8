/**
 * What an installed, enabled, approved plugin may do in a session, through
 * the built `north` with real processes: a hook that never exits is killed
 * with its process group and the run goes on; its SessionStart hook does not
 * hold the chat's first frame; a plugin command that asks for a shell command
 * still needs the approval print mode does not give without --allow-shell;
 * a plugin's agent's edits need the approval --allow-edits gives; a plugin's
 * MCP tool, with no rule allowing it, is not run in print mode.
 * Needs `node scripts/build.mjs`.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
    anthropicToolResultTexts,
    type FakeLlmServer,
    startFakeLlmServer,
} from "../kit/fake-llm-server";
import {
    ECHO_PREFIX,
    isolatedNorthEnv,
    makeTestMarketplace,
    PLUGIN_MARKER_ENV,
    type TestMarketplace,
} from "../kit/plugin-marketplace";
import { declineLearning, isAppReady, type PtyNorth, spawnNorthPty } from "../kit/pty";
import { type NorthRun, runNorth } from "../kit/run-north";

const TIMEOUT = 60_000;

let server: FakeLlmServer;
let root: string;
let project: string;
let env: NodeJS.ProcessEnv;
let market: TestMarketplace;
let pty: PtyNorth | undefined;

/** A hook that records its shell's pid and a background child's, then waits forever. */
function stuckHook(name: string, timeout: number): Record<string, unknown> {
    const pids = join("${CLAUDE_PLUGIN_DATA}", name);
    return {
        type: "command",
        command: `sleep 1000 & echo "$$ $!" > "${pids}.pids"; wait`,
        timeout,
    };
}

beforeAll(async () => {
    server = await startFakeLlmServer();
});
afterAll(async () => {
    await server.close();
});
beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "north-security-session-"));
    project = join(root, "project");
    mkdirSync(join(project, ".git"), { recursive: true });
    env = {
        ...isolatedNorthEnv(root),
        [PLUGIN_MARKER_ENV]: join(root, "marker"),
        ANTHROPIC_API_KEY: "k",
        ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
    };
    market = makeTestMarketplace(root, {
        extraPlugins: {
            stuck: {
                ".claude-plugin/plugin.json": JSON.stringify({ name: "stuck", version: "1.0.0" }),
                "hooks/hooks.json": JSON.stringify({
                    hooks: { PostToolUse: [{ matcher: "*", hooks: [stuckHook("post", 1)] }] },
                }),
            },
            // An agent granted the create-file tool: its edits follow the run's approvals.
            writer: {
                ".claude-plugin/plugin.json": JSON.stringify({ name: "writer", version: "1.0.0" }),
                "agents/scribe.md":
                    "---\nname: scribe\ndescription: Writes files\ntools: edit_create_file, read_file\n---\nYou write the files you are asked for.\n",
            },
            slowstart: {
                ".claude-plugin/plugin.json": JSON.stringify({
                    name: "slowstart",
                    version: "1.0.0",
                }),
                "hooks/hooks.json": JSON.stringify({
                    hooks: { SessionStart: [{ hooks: [stuckHook("start", 30)] }] },
                }),
            },
        },
    });
    server.requests.length = 0;
});
afterEach(() => {
    pty?.kill();
    pty = undefined;
    expect(server.remaining()).toBe(0);
    rmSync(root, { recursive: true, force: true });
});

async function north(...args: string[]): Promise<NorthRun> {
    return runNorth(args, { env, cwd: project });
}

async function install(name: string): Promise<void> {
    for (const args of [
        ["plugin", "marketplace", "add", market.dir],
        ["plugin", "install", `${name}@${market.name}`, "--yes"],
    ]) {
        const run = await north(...args);
        if (args[1] === "marketplace" && run.code !== 0 && run.stderr.includes("already")) continue;
        expect(run.code, run.stderr).toBe(0);
    }
}

const dataFolder = (plugin: string): string =>
    join(env.NORTH_DATA_DIR!, "plugins", "data", `${plugin}-${market.name}`);

function pidsOf(name: string): number[] {
    const file = join(dataFolder(name === "start" ? "slowstart" : "stuck"), `${name}.pids`);
    return existsSync(file) ? readFileSync(file, "utf8").trim().split(/\s+/).map(Number) : [];
}

function alive(pid: number): boolean {
    try {
        process.kill(pid, 0);
        return true;
    } catch {
        return false;
    }
}

/** Resolves once `predicate` holds, checking on every event-loop turn a few ms apart. */
async function until(predicate: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
    const end = performance.now() + timeoutMs;
    while (!predicate()) {
        if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
    }
}

describe("a plugin's hooks", () => {
    it(
        "a PostToolUse hook that never exits is killed with its child at its timeout, and the run finishes",
        async () => {
            await install("stuck");
            server.enqueue(
                { toolCalls: [{ name: "find_files", input: { pattern: "*.md" } }] },
                { text: "finished" }
            );
            const run = await north("-p", "look around", "--path", project);
            expect(run.code, run.stderr).toBe(0);
            expect(run.stdout).toContain("finished");
            const post = pidsOf("post");
            expect(post).toHaveLength(2);
            // The shell and its background sleep: the whole group is gone.
            await until(() => post.every((pid) => !alive(pid)), "the hook's processes to end");
        },
        TIMEOUT
    );

    it(
        "its SessionStart hook does not hold the chat's first frame",
        async () => {
            await install("slowstart");
            declineLearning(env.NORTH_DATA_DIR!, project);
            pty = spawnNorthPty({ args: ["--path", project], env, cwd: project });
            await pty.waitFor(() => isAppReady(pty!), 20_000, "the status line");
            // The frame is up while the hook (30 s timeout) still waits.
            await until(() => pidsOf("start").length === 2, "the SessionStart hook to start");
            expect(pidsOf("start").every(alive)).toBe(true);
            expect(isAppReady(pty)).toBe(true);
            const start = pidsOf("start");
            await pty.exit();
            // Whatever it left running dies with North.
            await until(() => start.every((pid) => !alive(pid)), "the hook to end with North");
        },
        TIMEOUT
    );
});

describe("a plugin's commands and tools ask like any other", () => {
    it(
        "a plugin command whose prompt asks for a shell command: print mode without --allow-shell runs none",
        async () => {
            await install("alpha");
            server.enqueue(
                {
                    toolCalls: [
                        {
                            name: "shell_run",
                            input: { command: `touch ${join(project, "pwned.txt")}` },
                        },
                    ],
                },
                { text: "could not" }
            );
            const run = await north("-p", "/alpha:greet ann", "--path", project);
            expect(run.stdout).toContain("could not");
            expect(JSON.stringify(server.requests[0]!.body)).toContain("Say a warm hello to ann");
            expect(existsSync(join(project, "pwned.txt"))).toBe(false);
            const results = anthropicToolResultTexts(server.requests.at(-1)!);
            expect(results.join("\n")).toMatch(/--allow-shell|not allowed|denied|refused/i);
        },
        TIMEOUT
    );

    it(
        "a plugin's agent's edits need the run's approval: none without --allow-edits, written with it",
        async () => {
            await install("writer");
            server.enqueue(
                {
                    toolCalls: [
                        {
                            name: "task",
                            input: {
                                description: "a chore",
                                prompt: "Create notes.txt.",
                                agent: "writer:scribe",
                            },
                        },
                    ],
                },
                {
                    toolCalls: [
                        { name: "edit_create_file", input: { path: "notes.txt", content: "x\n" } },
                    ],
                },
                { text: "could not write" },
                { text: "the helper could not" }
            );
            const run = await north("-p", "get help", "--path", project);
            expect(run.stdout).toContain("the helper could not");
            expect(JSON.stringify(server.requests[1]!.body)).toContain(
                "You write the files you are asked for."
            );
            expect(existsSync(join(project, "notes.txt"))).toBe(false);
            // The edit reached the review, which print mode answers from its flags: refused.
            expect(anthropicToolResultTexts(server.requests[2]!).join("\n")).toContain(
                "print mode cannot ask before editing files, so nothing was written"
            );

            // With --allow-edits (the user's approval for this run) the same agent's edit lands.
            server.enqueue(
                {
                    toolCalls: [
                        {
                            name: "task",
                            input: {
                                description: "a chore",
                                prompt: "Create notes.txt.",
                                agent: "writer:scribe",
                            },
                        },
                    ],
                },
                {
                    toolCalls: [
                        { name: "edit_create_file", input: { path: "notes.txt", content: "x\n" } },
                    ],
                },
                { text: "written" },
                { text: "the helper wrote it" }
            );
            const allowed = await north("-p", "get help", "--path", project, "--allow-edits");
            expect(allowed.stdout).toContain("the helper wrote it");
            expect(readFileSync(join(project, "notes.txt"), "utf8")).toBe("x\n");
        },
        TIMEOUT
    );

    it(
        "a plugin's MCP tool with no rule allowing it is not run in print mode",
        async () => {
            await install("beta");
            server.enqueue(
                {
                    toolCalls: [
                        { name: "mcp__plugin_beta_echo__echo", input: { text: "unasked" } },
                    ],
                },
                { text: "not run" }
            );
            const run = await north("-p", "echo it", "--path", project);
            expect(run.stdout).toContain("not run");
            const results = anthropicToolResultTexts(server.requests.at(-1)!).join("\n");
            expect(results).not.toContain(`${ECHO_PREFIX}unasked`);
        },
        TIMEOUT
    );
});
