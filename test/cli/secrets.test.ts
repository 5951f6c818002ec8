import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome, runNorth } from "../kit/run-north";

const FAKE_MCP = fileURLToPath(new URL("../tools/mcp/fixtures/fake-server.mjs", import.meta.url));
let server: FakeLlmServer;
let repo: string;
let home: string;
let env: NodeJS.ProcessEnv;
// Long and unique, so a leak anywhere is found by a plain substring search.
const KEYS = {
    ANTHROPIC_API_KEY: `sk-ant-e2e-${randomBytes(12).toString("hex")}`,
    OPENAI_API_KEY: `sk-oai-e2e-${randomBytes(12).toString("hex")}`,
    GATEWAY_KEY: `gw-e2e-${randomBytes(12).toString("hex")}`,
};
const keyValues = Object.values(KEYS);

beforeAll(async () => {
    server = await startFakeLlmServer();
});
afterAll(async () => {
    await server.close();
});
beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), "north-secrets-repo-"));
    const isolated = isolatedHome();
    home = isolated.home;
    env = { ...isolated.env, ...KEYS, ANTHROPIC_BASE_URL: server.anthropicBaseUrl };
    server.requests.length = 0;
});
afterEach(() => {
    expect(server.remaining()).toBe(0);
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

/** User-level configuration (always trusted): a keyed provider, MCP servers, hooks. */
function writeUserConfig(hooks: Record<string, string>): void {
    const dir = join(home, "config");
    mkdirSync(dir, { recursive: true });
    const server = (extra: object = {}) => ({
        command: process.execPath,
        args: [FAKE_MCP],
        ...extra,
    });
    writeFileSync(
        join(dir, "config.json"),
        JSON.stringify({
            providers: {
                gateway: {
                    api: "openai-chat",
                    baseUrl: "http://127.0.0.1:9/v1",
                    apiKeyEnv: "GATEWAY_KEY",
                },
            },
            mcpServers: {
                plain: server(),
                explicit: server({ env: { ANTHROPIC_API_KEY: "${ANTHROPIC_API_KEY}" } }),
            },
        })
    );
    writeFileSync(
        join(dir, "settings.json"),
        JSON.stringify({
            hooks: Object.fromEntries(
                Object.entries(hooks).map(([event, command]) => [
                    event,
                    [{ matcher: "", hooks: [{ type: "command", command }] }],
                ])
            ),
        })
    );
}

/** The tool results North sent back to the model, by tool call id. */
function toolResults(requestIndex: number): Map<string, string> {
    const body = server.requests[requestIndex]!.body as {
        messages: Array<{ content: unknown }>;
    };
    const results = new Map<string, string>();
    for (const message of body.messages) {
        if (!Array.isArray(message.content)) continue;
        for (const block of message.content as Array<Record<string, unknown>>) {
            if (block.type !== "tool_result") continue;
            const content = block.content;
            results.set(
                String(block.tool_use_id),
                typeof content === "string" ? content : JSON.stringify(content)
            );
        }
    }
    return results;
}

function logText(): string {
    const path = join(home, "state", "north", "north.log");
    return existsSync(path) ? readFileSync(path, "utf8") : "";
}

/** True while `pid` runs; a zombie (killed, not yet reaped) counts as gone. */
function isAlive(pid: number): boolean {
    try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const state = stat.charAt(stat.lastIndexOf(")") + 2);
        return state !== "Z" && state !== "X";
    } catch {
        return false;
    }
}

function readPid(file: string): number {
    return Number(readFileSync(file, "utf8").trim());
}

describe("provider keys stay with North", () => {
    it("are absent from shell_run, hooks and MCP servers, unless a server's env passes one", async () => {
        const hookEnv = join(home, "hook-env.txt");
        writeUserConfig({ SessionStart: `env > ${hookEnv}`, PreToolUse: `env >> ${hookEnv}` });
        server.enqueue(
            {
                toolCalls: [
                    { id: "shell", name: "shell_run", input: { command: "env" } },
                    { id: "plain", name: "mcp__plain__get-env", input: {} },
                    { id: "explicit", name: "mcp__explicit__get-env", input: {} },
                    // A path is logged: a key in it is masked there.
                    {
                        id: "read",
                        name: "read_file",
                        input: { path: `${KEYS.OPENAI_API_KEY}.txt` },
                    },
                ],
            },
            { text: "done" }
        );
        const run = await runNorth(["-p", "show env", "--path", repo, "--allow-shell"], { env });
        expect(run.stderr).toBe("");
        expect(run.code).toBe(0);
        const results = toolResults(1);

        const shell = results.get("shell")!;
        expect(shell).toContain(`HOME=${home}`);
        for (const key of keyValues) expect(shell).not.toContain(key);

        const plain = results.get("plain")!;
        expect(plain).toContain(`HOME=${home}`);
        for (const key of keyValues) expect(plain).not.toContain(key);

        const explicit = results.get("explicit")!;
        expect(explicit).toContain(`ANTHROPIC_API_KEY=${KEYS.ANTHROPIC_API_KEY}`);
        expect(explicit).not.toContain(KEYS.OPENAI_API_KEY);
        expect(explicit).not.toContain(KEYS.GATEWAY_KEY);

        const hooks = readFileSync(hookEnv, "utf8");
        // SessionStart, then PreToolUse for each of the four calls.
        expect(hooks.match(/^NORTH_PROJECT_DIR=/gm)).toHaveLength(5);
        for (const key of keyValues) expect(hooks).not.toContain(key);

        const log = logText();
        expect(log).toContain('"tool_call_start"');
        expect(log).toContain('"path":"[redacted].txt"');
        for (const key of keyValues) expect(log).not.toContain(key);
    });
});

// setsid takes the daemon out of the command's process group; its pid goes to a file.
const daemon = (pidFile: string) => `setsid sleep 300 >/dev/null 2>&1 & echo $! > ${pidFile}`;

describe.runIf(process.platform === "linux")("daemons die with North", () => {
    it("on a normal exit: those of a command, a hook and an MCP server", async () => {
        const [shellPid, hookPid] = [join(home, "shell.pid"), join(home, "hook.pid")];
        writeUserConfig({ SessionStart: daemon(hookPid) });
        server.enqueue(
            {
                toolCalls: [
                    { id: "shell", name: "shell_run", input: { command: daemon(shellPid) } },
                    { id: "mcp", name: "mcp__plain__spawn_daemon", input: {} },
                ],
            },
            { text: "done" }
        );
        const run = await runNorth(["-p", "start things", "--path", repo, "--allow-shell"], {
            env,
        });
        expect(run.code).toBe(0);
        const mcpPid = Number((JSON.parse(toolResults(1).get("mcp")!) as { text: string }).text);
        const pids = [readPid(shellPid), readPid(hookPid), mcpPid];
        for (const pid of pids) expect(pid).toBeGreaterThan(1);
        await expect.poll(() => pids.filter(isAlive), { timeout: 5000 }).toEqual([]);
    });

    it("on SIGTERM while a command runs", async () => {
        const pidFile = join(home, "shell.pid");
        server.enqueue({
            toolCalls: [{ name: "shell_run", input: { command: `${daemon(pidFile)}; sleep 100` } }],
        });
        const run = runNorth(["-p", "start things", "--path", repo, "--allow-shell"], {
            env,
            onSpawn: (child) => {
                void expect
                    .poll(
                        () => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n"),
                        {
                            timeout: 10_000,
                        }
                    )
                    .toBe(true)
                    .then(() => child.kill("SIGTERM"));
            },
        });
        const result = await run;
        expect(result.code).toBe(143);
        const pid = readPid(pidFile);
        expect(pid).toBeGreaterThan(1);
        await expect.poll(() => isAlive(pid), { timeout: 5000 }).toBe(false);
    });
});
