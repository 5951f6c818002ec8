import {
    existsSync,
    lstatSync,
    mkdirSync,
    mkdtempSync,
    readFileSync,
    rmSync,
    statSync,
    symlinkSync,
    writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTrustStore, readProjectConfig } from "../../src/storage/trust";
import { isolatedHome, runNorth } from "../kit/run-north";

const MCP_FIXTURE = fileURLToPath(
    new URL("../tools/mcp/fixtures/fake-server.mjs", import.meta.url)
);

let repo: string;
let env: NodeJS.ProcessEnv;
let configPath: string;
let closedPort: number;

beforeAll(async () => {
    // A port that was just free: nothing listens there once the server is closed.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    closedPort = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
});

beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), "north-mcp-repo-"));
    mkdirSync(join(repo, ".git"));
    env = isolatedHome().env;
    configPath = join(env.NORTH_CONFIG_DIR!, "config.json");
});

const mcp = (...args: string[]) => runNorth(["mcp", ...args], { env, cwd: repo });
const readJson = (path: string): Record<string, unknown> =>
    JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
const lineOf = (stdout: string, name: string): string =>
    stdout.split("\n").find((l) => l.startsWith(`${name} (`)) ?? "";

describe("north mcp add, list, get, remove", () => {
    it("adds a stdio server to the user config, keeping every other key", async () => {
        mkdirSync(env.NORTH_CONFIG_DIR!, { recursive: true });
        writeFileSync(
            configPath,
            JSON.stringify({ selectedModel: "sonnet", someFutureKey: [1, 2] }, null, 4)
        );
        const added = await mcp(
            "add",
            "-e",
            "TOKEN=abc",
            "fake",
            "--",
            process.execPath,
            MCP_FIXTURE,
            "normal"
        );
        expect(added.stderr).toBe("");
        expect(added.code).toBe(0);
        expect(added.stdout).toContain(`Added MCP server "fake" in user scope (${configPath})`);
        expect(readJson(configPath)).toEqual({
            selectedModel: "sonnet",
            someFutureKey: [1, 2],
            mcpServers: {
                fake: {
                    type: "stdio",
                    command: process.execPath,
                    args: [MCP_FIXTURE, "normal"],
                    env: { TOKEN: "abc" },
                },
            },
        });

        const list = await mcp("list");
        expect(list.code).toBe(0);
        expect(lineOf(list.stdout, "fake")).toBe(
            `fake (user, ${configPath}): ${process.execPath} ${MCP_FIXTURE} normal - ✓ connected, 11 tool(s)`
        );

        const got = await mcp("get", "fake");
        expect(got.code).toBe(0);
        expect(got.stdout).toContain(`  Scope: user (${configPath})`);
        expect(got.stdout).toContain("  Environment: TOKEN\n");
        expect(got.stdout).not.toContain("abc");
        expect(got.stdout).toMatch(/ {2}Tools: echo, env, /);

        const removed = await mcp("remove", "fake");
        expect(removed.code).toBe(0);
        expect(readJson(configPath)).toEqual({
            selectedModel: "sonnet",
            someFutureKey: [1, 2],
            mcpServers: {},
        });
        expect((await mcp("list")).stdout).toContain("No MCP servers configured");
    });

    it("adds remote servers with --transport, headers and add-json; list reports an unreachable one", async () => {
        const url = `http://127.0.0.1:${closedPort}/mcp`;
        const http = await mcp(
            "add",
            "--transport",
            "http",
            "-H",
            "Authorization: Bearer ${API_TOKEN}",
            "remote",
            url
        );
        expect(http.code).toBe(0);
        const json = await mcp(
            "add-json",
            "legacy",
            JSON.stringify({ type: "sse", url: `http://127.0.0.1:${closedPort}/sse` })
        );
        expect(json.code).toBe(0);
        expect(readJson(configPath).mcpServers).toEqual({
            remote: { type: "http", url, headers: { Authorization: "Bearer ${API_TOKEN}" } },
            legacy: { type: "sse", url: `http://127.0.0.1:${closedPort}/sse` },
        });
        const list = await mcp("list");
        expect(list.code).toBe(0);
        expect(lineOf(list.stdout, "remote")).toMatch(
            new RegExp(`^remote \\(user, .*\\): ${url} - ✗ failed: .*ECONNREFUSED`)
        );
        expect(lineOf(list.stdout, "legacy")).toMatch(/ - ✗ failed: /);
    });

    it("writes project scope to .mcp.json and starts those servers only once the project is trusted", async () => {
        const marker = join(repo, "started");
        const added = await mcp(
            "add",
            "--scope",
            "project",
            "touchy",
            "--",
            "sh",
            "-c",
            `touch ${marker}; exec ${process.execPath} ${MCP_FIXTURE}`
        );
        expect(added.code).toBe(0);
        expect(added.stdout).toContain("only once you trust the project");
        const file = join(repo, ".mcp.json");
        expect(readJson(file)).toEqual({
            mcpServers: {
                touchy: {
                    type: "stdio",
                    command: "sh",
                    args: ["-c", `touch ${marker}; exec ${process.execPath} ${MCP_FIXTURE}`],
                },
            },
        });
        expect(statSync(file).mode & 0o777).toBe(0o644);

        const untrusted = await mcp("list");
        expect(lineOf(untrusted.stdout, "touchy")).toMatch(
            / - not started: the project is not trusted/
        );
        expect(existsSync(marker)).toBe(false);

        createTrustStore(env.NORTH_DATA_DIR!).trust(repo, readProjectConfig(repo).fingerprint!);
        const trusted = await mcp("list");
        expect(lineOf(trusted.stdout, "touchy")).toMatch(/ - ✓ connected, 11 tool\(s\)$/);
        expect(existsSync(marker)).toBe(true);
    });

    it("reports a server that fails to start with its reason", async () => {
        await mcp("add", "broken", "--", process.execPath, MCP_FIXTURE, "exit-at-start");
        const list = await mcp("list");
        expect(list.code).toBe(0);
        expect(lineOf(list.stdout, "broken")).toMatch(/ - ✗ failed: .*missing API key/);
    });

    it("asks for --scope when a name is in both scopes, and removes only that one", async () => {
        await mcp("add", "twin", "--", "echo", "user");
        await mcp("add", "--scope", "project", "twin", "--", "echo", "project");
        const ambiguous = await mcp("remove", "twin");
        expect(ambiguous.code).toBe(2);
        expect(ambiguous.stderr).toMatch(/^north: "twin" is set in both project and user scope/);
        const removed = await mcp("remove", "twin", "--scope", "project");
        expect(removed.code).toBe(0);
        expect(readJson(join(repo, ".mcp.json")).mcpServers).toEqual({});
        expect(readJson(configPath).mcpServers).toHaveProperty("twin");
    });
});

describe("north mcp: bad input is one line, exit 2, and changes nothing", () => {
    const cases: Array<[string, string[], RegExp]> = [
        ["a duplicate name", ["add", "first", "--", "echo", "again"], /already in user scope/],
        ["bad JSON", ["add-json", "j", '{"command":'], /the JSON for "j" is not valid/],
        ["JSON without a command", ["add-json", "j", '{"args":[]}'], /needs a "command" string/],
        ["a missing command", ["add", "nocmd"], /needs a command/],
        ["an unknown scope", ["add", "-s", "global", "x", "--", "echo"], /unknown scope "global"/],
        ["the local scope", ["add", "-s", "local", "x", "--", "echo"], /--scope local is not/],
        ["an unknown transport", ["add", "-t", "ws", "x", "ws://h"], /unknown transport "ws"/],
        ["a bad URL", ["add", "-t", "http", "x", "not a url"], /"url" is not a valid URL/],
        ["a bad -e", ["add", "-e", "NOVALUE", "x", "--", "echo"], /-e needs KEY=VALUE/],
        ["a bad -H", ["add", "-t", "http", "-H", "nocolon", "x", "http://h"], /-H needs/],
        ["a server option before --", ["add", "x", "npx", "-y", "pkg"], /after --/],
        ["a bad name", ["add", "a b", "--", "echo"], /invalid server name/],
        ["an unknown server", ["remove", "ghost"], /no MCP server named "ghost"/],
        ["an unknown action", ["ad"], /unknown mcp command ad/],
    ];

    it.each(cases)("%s", async (_what, args, message) => {
        await mcp("add", "first", "--", "echo", "one");
        const before = readFileSync(configPath, "utf8");
        const run = await mcp(...args);
        expect(run.code).toBe(2);
        expect(run.stdout).toBe("");
        expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
        expect(run.stderr).toMatch(/^north: /);
        expect(run.stderr).toMatch(message);
        expect(readFileSync(configPath, "utf8")).toBe(before);
        expect(existsSync(join(repo, ".mcp.json"))).toBe(false);
    });

    it("leaves a config.json that is not valid JSON as it is", async () => {
        mkdirSync(env.NORTH_CONFIG_DIR!, { recursive: true });
        writeFileSync(configPath, "{ selectedModel: ");
        const run = await mcp("add", "x", "--", "echo");
        expect(run.code).toBe(2);
        expect(run.stderr).toMatch(
            /^north: .*config\.json is not valid JSON.*it was left as is\n$/
        );
        expect(readFileSync(configPath, "utf8")).toBe("{ selectedModel: ");
    });
});

describe("north mcp add through symlinked config files", () => {
    it("writes a symlinked user config.json (a dotfiles link) through, and it stays a link", async () => {
        const dotfiles = mkdtempSync(join(tmpdir(), "north-dotfiles-"));
        const target = join(dotfiles, "north-config.json");
        writeFileSync(target, JSON.stringify({ selectedModel: "sonnet" }));
        mkdirSync(env.NORTH_CONFIG_DIR!, { recursive: true });
        symlinkSync(target, configPath);

        const added = await mcp("add", "fake", "--", process.execPath, MCP_FIXTURE);
        expect(added.stderr).toBe("");
        expect(added.code).toBe(0);

        expect(lstatSync(configPath).isSymbolicLink()).toBe(true);
        expect(readJson(target)).toEqual({
            selectedModel: "sonnet",
            mcpServers: {
                fake: { type: "stdio", command: process.execPath, args: [MCP_FIXTURE] },
            },
        });
        rmSync(dotfiles, { recursive: true, force: true });
    });

    it("refuses a project .mcp.json that links out of the project, which stays unchanged", async () => {
        const outside = mkdtempSync(join(tmpdir(), "north-outside-"));
        const target = join(outside, "victim.json");
        writeFileSync(target, "{}\n");
        symlinkSync(target, join(repo, ".mcp.json"));

        const added = await mcp("add", "--scope", "project", "fake", "--", "node", "x.js");
        expect(added.code).not.toBe(0);
        expect(added.stderr).toContain("leads through a symbolic link to");
        expect(added.stderr).toContain("outside the project");
        expect(readFileSync(target, "utf8")).toBe("{}\n");
        expect(lstatSync(join(repo, ".mcp.json")).isSymbolicLink()).toBe(true);
        rmSync(outside, { recursive: true, force: true });
    });
});
