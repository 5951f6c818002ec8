/**
 * Installed plugins in a print-mode session (bin/north.js against the fake
 * model): commands by their full and bare names, collisions with built-ins,
 * user commands and other plugins, hooks with the plugin's variables, a
 * plugin's MCP tool under a permission rule, disabled, held and untrusted.
 */
import {
    appendFileSync,
    existsSync,
    mkdirSync,
    mkdtempSync,
    readFileSync,
    rmSync,
    writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import {
    ECHO_PREFIX,
    PLUGIN_MARKER_ENV,
    type TestMarketplace,
    isolatedNorthEnv,
    makeTestMarketplace,
} from "../kit/plugin-marketplace";
import { runNorth } from "../kit/run-north";
import { installTestPlugin, writeUserCommand } from "./loading-helpers";

let server: FakeLlmServer;
let root: string;
let env: NodeJS.ProcessEnv;
let data: string;
let repo: string;
let marker: string;
let market: TestMarketplace;

beforeAll(async () => {
    server = await startFakeLlmServer();
});
afterAll(async () => {
    await server?.close();
});
beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "north-plugin-loading-"));
    env = isolatedNorthEnv(root);
    data = env.NORTH_DATA_DIR!;
    repo = join(root, "repo");
    mkdirSync(repo);
    marker = join(root, "marker.txt");
    market = makeTestMarketplace(root, {
        extraPlugins: {
            gamma: {
                ".claude-plugin/plugin.json": JSON.stringify({ name: "gamma", version: "1.0.0" }),
                "commands/greet.md":
                    "---\ndescription: Gamma's greeting\n---\nGAMMA greets $ARGUMENTS.\n",
                "commands/review.md": "---\ndescription: Gamma's review\n---\nGAMMA reviews.\n",
                "commands/help.md": "GAMMA helps.\n",
            },
        },
    });
});
afterEach(() => {
    rmSync(root, { recursive: true, force: true });
});

function north(args: string[]) {
    return runNorth([...args, "--path", repo], {
        env: {
            ...env,
            ANTHROPIC_API_KEY: "k",
            ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
            [PLUGIN_MARKER_ENV]: marker,
        },
        cwd: repo,
    });
}

const lastRequestText = (): string => JSON.stringify(server.requests.at(-1)!.body);

describe("plugin commands in print mode", () => {
    it("runs a plugin command by its full name and by its bare name", async () => {
        await installTestPlugin(data, market, "alpha");
        server.enqueue({ text: "hi Ada" });
        const full = await north(["-p", "/alpha:greet Ada"]);
        expect(full.stderr).not.toContain("unknown command");
        expect(full.code).toBe(0);
        expect(full.stdout).toBe("hi Ada\n");
        expect(lastRequestText()).toContain("Say a warm hello to Ada, in one sentence.");

        server.enqueue({ text: "hi Bo" });
        const bare = await north(["-p", "/greet Bo"]);
        expect(bare.code).toBe(0);
        expect(lastRequestText()).toContain("Say a warm hello to Bo, in one sentence.");
        expect(server.remaining()).toBe(0);
    });

    it("never lets a plugin replace a built-in, and /help shows the collision", async () => {
        await installTestPlugin(data, market, "gamma");
        const help = await north(["-p", "/help"]);
        expect(help.code).toBe(0);
        expect(help.stdout).toContain("Plugin commands:");
        expect(help.stdout).toContain("/gamma:review");
        expect(help.stdout).toContain("(plugin gamma@north-test)");
        expect(help.stdout).toMatch(
            /\/review: the built-in \/review runs; the plugin's is \/gamma:review/
        );
        expect(help.stdout).toMatch(
            /\/help: the built-in \/help runs; the plugin's is \/gamma:help/
        );
        // The plugin's /help never ran: no request reached the model.
        expect(server.requests.length === 0 || !lastRequestText().includes("GAMMA helps")).toBe(
            true
        );
    });

    it("lets a user command keep its bare name over a plugin's", async () => {
        await installTestPlugin(data, market, "alpha");
        writeUserCommand(data, "greet", "USER greets $ARGUMENTS.\n");
        server.enqueue({ text: "ok" }, { text: "ok" });
        await north(["-p", "/greet Cy"]);
        expect(lastRequestText()).toContain("USER greets Cy.");
        await north(["-p", "/alpha:greet Cy"]);
        expect(lastRequestText()).toContain("Say a warm hello to Cy");
    });

    it("gives a bare name shared by two plugins to the first installed; both keep full names", async () => {
        await installTestPlugin(data, market, "alpha");
        await installTestPlugin(data, market, "gamma");
        server.enqueue({ text: "ok" }, { text: "ok" });
        await north(["-p", "/greet Di"]);
        expect(lastRequestText()).toContain("Say a warm hello to Di");
        await north(["-p", "/gamma:greet Di"]);
        expect(lastRequestText()).toContain("GAMMA greets Di.");
        const help = await north(["-p", "/help"]);
        expect(help.stdout).toContain("/greet: alpha:greet and gamma:greet");
    });
});

describe("plugin hooks and MCP servers", () => {
    it("runs a plugin's hook with CLAUDE_PLUGIN_ROOT set and expanded", async () => {
        const alpha = await installTestPlugin(data, market, "alpha");
        server.enqueue({ text: "done" });
        const run = await north(["-p", "say done"]);
        expect(run.code).toBe(0);
        const lines = readFileSync(marker, "utf8").trim().split("\n");
        expect(lines).toContain(`SessionStart ${alpha.path}`);
        // CLAUDE_PLUGIN_DATA was made for it.
        expect(existsSync(join(data, "plugins", "data", "alpha-north-test"))).toBe(true);
    });

    it("calls a plugin's MCP tool by its mcp__plugin_ name, under a permission rule", async () => {
        await installTestPlugin(data, market, "beta");
        writeFileSync(
            join(env.NORTH_CONFIG_DIR!, "config.json"),
            JSON.stringify({ permissions: { allow: ["mcp__plugin_beta_echo__echo"] } })
        );
        server.enqueue(
            {
                toolCalls: [
                    { id: "t1", name: "mcp__plugin_beta_echo__echo", input: { text: "ping" } },
                ],
            },
            { text: "echoed" }
        );
        const run = await north(["-p", "echo ping"]);
        expect(run.stderr).toBe("");
        expect(run.stdout).toBe("echoed\n");
        expect(lastRequestText()).toContain(`${ECHO_PREFIX}ping`);

        // Without the rule, print mode does not run it.
        writeFileSync(
            join(env.NORTH_CONFIG_DIR!, "config.json"),
            JSON.stringify({ permissions: { deny: ["mcp__plugin_beta_echo__echo"] } })
        );
        server.enqueue(
            {
                toolCalls: [
                    { id: "t2", name: "mcp__plugin_beta_echo__echo", input: { text: "pong" } },
                ],
            },
            { text: "refused" }
        );
        await north(["-p", "echo pong"]);
        expect(lastRequestText()).not.toContain(`${ECHO_PREFIX}pong`);
    });
});

describe("plugins that do not load", () => {
    it("loads nothing of a disabled plugin", async () => {
        await installTestPlugin(data, market, "alpha", { enabled: false });
        const run = await north(["-p", "/alpha:greet Ed"]);
        expect(run.code).not.toBe(0);
        expect(run.stderr + run.stdout).toContain("/alpha:greet");
        expect(existsSync(marker)).toBe(false);
    });

    it("holds a plugin whose files changed since it was approved, and says why", async () => {
        const alpha = await installTestPlugin(data, market, "alpha");
        appendFileSync(join(alpha.path, "hooks", "mark.mjs"), "\n// changed\n");
        server.enqueue({ text: "done" });
        const run = await north(["-p", "say done"]);
        expect(run.stderr).toContain(
            "plugin alpha@north-test not loaded: changed since you approved it"
        );
        expect(existsSync(marker)).toBe(false);
        const help = await north(["-p", "/help"]);
        expect(help.stdout).not.toContain("alpha:greet");
    });

    it("ignores an untrusted project's enabledPlugins", async () => {
        await installTestPlugin(data, market, "alpha", { enabled: false });
        mkdirSync(join(repo, ".north"));
        writeFileSync(
            join(repo, ".north", "settings.json"),
            // A hook makes the project need trust (print mode never grants it).
            JSON.stringify({
                enabledPlugins: { "alpha@north-test": true },
                hooks: { Stop: [{ hooks: [{ type: "command", command: "true" }] }] },
            })
        );
        const help = await north(["-p", "/help"]);
        expect(help.stdout).not.toContain("alpha:greet");
        expect(existsSync(marker)).toBe(false);
    });
});
