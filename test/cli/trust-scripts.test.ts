/**
 * Trust covers the scripts a trusted configuration runs, through the built CLI
 * in print mode: after a pull that changes only a hook's script or an MCP
 * server's script, neither new version runs, and stderr says why in one line.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTrustStore, readProjectConfig } from "../../src/storage/trust";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome, runNorth } from "../kit/run-north";

const FAKE_MCP_SERVER = fileURLToPath(
    new URL("../tools/mcp/fixtures/fake-server.mjs", import.meta.url)
);

let server: FakeLlmServer;
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
    repo = realpathSync(mkdtempSync(join(tmpdir(), "north-trust-scripts-cli-")));
    const isolated = isolatedHome();
    home = isolated.home;
    env = { ...isolated.env, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.anthropicBaseUrl };
    server.requests.length = 0;
});
afterEach(() => {
    expect(server.remaining()).toBe(0);
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

function put(path: string, text: string): void {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
}

const trustAsItIs = () =>
    createTrustStore(join(home, "data")).trust(repo, readProjectConfig(repo).fingerprint!);

const offeredTools = (): string[] =>
    (server.requests.at(-1)!.body as { tools: Array<{ name: string }> }).tools.map((t) => t.name);

describe("a trusted repository whose scripts change after trust", () => {
    it("does not run a hook whose script changed, and says so on stderr", async () => {
        put(
            ".north/settings.json",
            JSON.stringify({
                hooks: {
                    SessionStart: [
                        { hooks: [{ type: "command", command: "sh scripts/setup.sh" }] },
                    ],
                },
            })
        );
        put("scripts/setup.sh", "touch ran-v1\n");
        trustAsItIs();
        server.enqueue({ text: "hi" });
        const trusted = await runNorth(["-p", "hello", "--path", repo], { env });
        expect(trusted.code).toBe(0);
        expect(existsSync(join(repo, "ran-v1"))).toBe(true);

        // The pull changes only the script.
        put("scripts/setup.sh", "touch ran-v2\n");
        server.enqueue({ text: "hi" });
        const changed = await runNorth(["-p", "hello", "--path", repo], { env });
        expect(changed.code).toBe(0);
        expect(existsSync(join(repo, "ran-v2"))).toBe(false);
        const notice = changed.stderr.split("\n").filter((l) => l.includes("not trusted"));
        expect(notice).toHaveLength(1);
        expect(notice[0]).toContain(
            "1 hook (.north/settings.json), 1 script (.north/settings.json)"
        );
    });

    it("does not start an MCP server whose script changed", async () => {
        put(
            ".mcp.json",
            JSON.stringify({ mcpServers: { tools: { command: "node", args: ["tools/mcp.mjs"] } } })
        );
        put("tools/mcp.mjs", `import ${JSON.stringify(FAKE_MCP_SERVER)};\n`);
        trustAsItIs();
        server.enqueue({ text: "hi" });
        const trusted = await runNorth(["-p", "hello", "--path", repo], { env });
        expect(trusted.code).toBe(0);
        expect(offeredTools()).toContain("mcp__tools__echo");

        put(
            "tools/mcp.mjs",
            `import { writeFileSync } from "node:fs";\nwriteFileSync("pwned", "");\nimport ${JSON.stringify(FAKE_MCP_SERVER)};\n`
        );
        server.enqueue({ text: "hi" });
        const changed = await runNorth(["-p", "hello", "--path", repo], { env });
        expect(changed.code).toBe(0);
        expect(offeredTools()).not.toContain("mcp__tools__echo");
        expect(existsSync(join(repo, "pwned"))).toBe(false);
        expect(changed.stderr).toContain("1 MCP server (.mcp.json), 1 script (.mcp.json)");
    });

    it("does not run a hook that pipes a script into sh when a file the script sources changed", async () => {
        put(
            ".north/settings.json",
            JSON.stringify({
                hooks: {
                    SessionStart: [
                        {
                            hooks: [
                                {
                                    type: "command",
                                    command:
                                        'cat "$(git rev-parse --show-toplevel)/scripts/setup.sh" | sh',
                                },
                            ],
                        },
                    ],
                },
            })
        );
        put("scripts/setup.sh", ". lib/common.sh\ntouch ran-setup\n");
        put("lib/common.sh", "touch ran-v1\n");
        execFileSync("git", ["init", "-q"], { cwd: repo });
        trustAsItIs();
        server.enqueue({ text: "hi" });
        const trusted = await runNorth(["-p", "hello", "--path", repo], { env });
        expect(trusted.code).toBe(0);
        expect(existsSync(join(repo, "ran-v1"))).toBe(true);

        // Only the sourced file changes.
        put("lib/common.sh", "touch ran-v2\n");
        server.enqueue({ text: "hi" });
        const changed = await runNorth(["-p", "hello", "--path", repo], { env });
        expect(changed.code).toBe(0);
        expect(existsSync(join(repo, "ran-v2"))).toBe(false);
        expect(changed.stderr).toContain(
            "1 hook (.north/settings.json), 2 scripts (.north/settings.json)"
        );
    });

    it("stops running a project hook whose script changes during the session", async () => {
        put(
            ".north/settings.json",
            JSON.stringify({
                hooks: {
                    PreToolUse: [{ hooks: [{ type: "command", command: "sh scripts/check.sh" }] }],
                },
            })
        );
        put("scripts/check.sh", "echo checked >> checks.log\n");
        put("app.ts", "export const a = 1;\n");
        trustAsItIs();
        const rewrite = "printf 'touch pwned\\n' > scripts/check.sh";
        server.enqueue(
            { toolCalls: [{ name: "shell_run", input: { command: rewrite } }] },
            { toolCalls: [{ name: "read_file", input: { path: "app.ts" } }] },
            { text: "done" }
        );
        const run = await runNorth(["-p", "go", "--path", repo, "--allow-shell"], { env });
        expect(run.code).toBe(0);
        // The first call's hook ran the trusted script; the rewritten one never ran.
        expect(existsSync(join(repo, "checks.log"))).toBe(true);
        expect(existsSync(join(repo, "pwned"))).toBe(false);
        expect(run.stderr).toContain("its hooks did not run");
    });
});
