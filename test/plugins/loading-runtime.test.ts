/**
 * The plugin runtime of a session: a plugin's agent reached as a subagent
 * (print mode), and `reload()` after a plugin is disabled: its MCP server's
 * process ends, its commands, skills and hooks leave; enabled again, they return.
 */
import {
    appendFileSync,
    existsSync,
    mkdirSync,
    mkdtempSync,
    readFileSync,
    readdirSync,
    rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CHANGED_SINCE_APPROVED, loadEnabledPlugins } from "../../src/agent/plugins/enabled";
import { loadSessionPlugins } from "../../src/agent/plugins/runtime-session";
import type { HookSettings } from "../../src/agent/hooks/types";
import type { CustomCommand } from "../../src/project/custom-commands";
import type { Skill } from "../../src/project/skills";
import { writeInstalledPlugin } from "../../src/storage/plugins/store";
import { createMcpManager } from "../../src/tools/mcp/manager";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import {
    PLUGIN_MARKER_ENV,
    type TestMarketplace,
    isolatedNorthEnv,
    makeTestMarketplace,
} from "../kit/plugin-marketplace";
import { runNorth } from "../kit/run-north";
import { installTestPlugin } from "./loading-helpers";

let root: string;
let env: NodeJS.ProcessEnv;
let data: string;
let repo: string;
let market: TestMarketplace;

beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "north-plugin-runtime-"));
    env = isolatedNorthEnv(root);
    data = env.NORTH_DATA_DIR!;
    repo = join(root, "repo");
    mkdirSync(repo);
    market = makeTestMarketplace(root);
});
afterEach(() => {
    rmSync(root, { recursive: true, force: true });
});

/** Pids whose command line mentions `text` (Linux /proc). */
function pidsRunning(text: string): number[] {
    const pids: number[] = [];
    for (const entry of readdirSync("/proc")) {
        if (!/^\d+$/.test(entry)) continue;
        try {
            if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(text))
                pids.push(Number(entry));
        } catch {
            // Gone meanwhile.
        }
    }
    return pids;
}

function alive(pid: number): boolean {
    try {
        process.kill(pid, 0);
        return true;
    } catch {
        return false;
    }
}

describe("the fingerprint check", () => {
    it("remembers a verified copy, and still holds it once a file changes", async () => {
        const alpha = await installTestPlugin(data, market, "alpha");
        const first = await loadEnabledPlugins({ dataDir: data, projectDir: repo });
        expect(first.plugins.map((p) => p.id)).toEqual([alpha.id]);
        expect(existsSync(join(data, "plugins", "verified.json"))).toBe(true);
        expect((await loadEnabledPlugins({ dataDir: data, projectDir: repo })).held).toEqual([]);

        appendFileSync(join(alpha.path, "commands", "greet.md"), "Also run rm -rf.\n");
        const after = await loadEnabledPlugins({ dataDir: data, projectDir: repo });
        expect(after.plugins).toEqual([]);
        expect(after.held).toEqual([{ id: alpha.id, reason: CHANGED_SINCE_APPROVED }]);
    });
});

describe("reload()", () => {
    it("stops a disabled plugin's MCP server and removes its parts; enabling brings them back", async () => {
        const alpha = await installTestPlugin(data, market, "alpha");
        const beta = await installTestPlugin(data, market, "beta", { version: "2.0.0" });
        const warnings: string[] = [];
        const plugins = await loadSessionPlugins({
            dataDir: data,
            projectDir: repo,
            settings: { layers: [] },
            projectFiles: undefined,
            warn: (m) => warnings.push(m),
        });
        const mcp = createMcpManager([], {
            clientName: "north-test",
            version: "0",
            cwd: repo,
            pluginStillApproved: plugins.stillApproved,
            env: { ...process.env, [PLUGIN_MARKER_ENV]: join(root, "marker") },
        });
        const hooks: HookSettings = {};
        const skills: Skill[] = [];
        const commands: CustomCommand[] = [];
        const runtime = await plugins.start({
            hooks,
            skills,
            commands,
            mcp,
            warn: (m) => warnings.push(m),
        });
        try {
            await mcp.settled();
            expect(mcp.status().map((s) => [s.name, s.state, s.plugin])).toEqual([
                ["plugin:beta:echo", "ready", "beta@north-test"],
            ]);
            expect(mcp.tools().map((t) => t.name)).toEqual(["mcp__plugin_beta_echo__echo"]);
            const [pid] = pidsRunning(join(beta.path, "server.mjs"));
            expect(pid).toBeGreaterThan(0);
            expect(commands.map((c) => c.name)).toEqual(["alpha:greet"]);
            expect(skills.map((s) => [s.name, s.plugin])).toEqual([["alpha:tidy", alpha.id]]);
            expect(runtime.agents().map((a) => [a.name, a.plugin])).toEqual([
                ["alpha:helper", alpha.id],
            ]);
            expect(hooks.SessionStart?.[0]?.plugin).toBe(alpha.id);
            expect(runtime.list().map((p) => [p.id, p.enabled, p.parts.mcpServers])).toEqual([
                [alpha.id, true, 0],
                [beta.id, true, 1],
            ]);

            writeInstalledPlugin(data, beta.id, { ...beta, enabled: false });
            writeInstalledPlugin(data, alpha.id, { ...alpha, enabled: false });
            // Before the reload, the record already stops alpha's hooks.
            expect(hooks.SessionStart?.[0]?.stillTrusted?.()).toBe(false);
            const { notes } = await runtime.reload();
            expect(notes).toContain(
                `plugin ${beta.id} left the session: its commands, skills and hooks are gone and its MCP servers stopped`
            );
            expect(notes).toContain(
                "skills changed: the prompt cache restarts on the next request"
            );
            expect(mcp.status()).toEqual([]);
            expect(mcp.tools()).toEqual([]);
            expect(alive(pid!)).toBe(false);
            expect(commands).toEqual([]);
            expect(skills).toEqual([]);
            expect(hooks).toEqual({});
            expect(runtime.list().map((p) => [p.id, p.enabled])).toEqual([
                [alpha.id, false],
                [beta.id, false],
            ]);

            writeInstalledPlugin(data, beta.id, { ...beta, enabled: true });
            expect((await runtime.reload()).notes).toContain(
                `plugin ${beta.id} joined the session`
            );
            await mcp.settled();
            expect(mcp.status().map((s) => s.state)).toEqual(["ready"]);
        } finally {
            await mcp.close();
        }
    });
});

describe("a plugin's agent", () => {
    let server: FakeLlmServer;
    beforeAll(async () => {
        server = await startFakeLlmServer();
    });
    afterAll(async () => {
        await server?.close();
    });

    it("runs as a subagent by its plugin:agent name", async () => {
        await installTestPlugin(data, market, "alpha");
        server.enqueue(
            {
                toolCalls: [
                    {
                        id: "task1",
                        name: "task",
                        input: {
                            description: "tidy up",
                            prompt: "Do the chore.",
                            agent: "alpha:helper",
                        },
                    },
                ],
            },
            { text: "chore done" },
            { text: "the helper did it" }
        );
        const run = await runNorth(["-p", "get help", "--path", repo], {
            env: { ...env, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.anthropicBaseUrl },
            cwd: repo,
        });
        expect(run.stdout).toBe("the helper did it\n");
        const child = JSON.stringify(server.requests[1]!.body);
        expect(child).toContain("You are a careful helper.");
        expect(JSON.stringify(server.requests[0]!.body)).toContain("alpha:helper");
    });
});
