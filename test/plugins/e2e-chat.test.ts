/**
 * The kit's plugins in the chat, through a real pty: installed with
 * `north plugin install --yes`, then `/alpha:greet` typed in the composer
 * sends the command's prompt, alpha's SessionStart hook ran from the
 * installed copy, `/help` lists the plugin's command and `/mcp` beta's server
 * under their names. Needs `node scripts/build.mjs`.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import {
    isolatedNorthEnv,
    makeTestMarketplace,
    PLUGIN_MARKER_ENV,
} from "../kit/plugin-marketplace";
import { declineLearning, isAppReady, type PtyNorth, spawnNorthPty } from "../kit/pty";
import { runNorth } from "../kit/run-north";

const TIMEOUT = 60_000;
const BETA_SERVER = "plugin:beta:echo";

let server: FakeLlmServer;
let root: string;
let env: NodeJS.ProcessEnv;
let project: string;
let marker: string;
let north: PtyNorth | undefined;

beforeAll(async () => {
    server = await startFakeLlmServer();
    root = mkdtempSync(join(tmpdir(), "north-plugins-chat-"));
    const market = makeTestMarketplace(join(root, "markets"));
    project = join(root, "project");
    mkdirSync(project);
    marker = join(root, "marker.txt");
    env = {
        ...isolatedNorthEnv(root),
        ANTHROPIC_API_KEY: "test-key",
        ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
        [PLUGIN_MARKER_ENV]: marker,
    };
    declineLearning(env.NORTH_DATA_DIR!, project);
    for (const args of [
        ["plugin", "marketplace", "add", market.dir],
        ["plugin", "install", `alpha@${market.name}`, "--yes"],
        ["plugin", "install", `beta@${market.name}`, "--yes"],
    ]) {
        const run = await runNorth(args, { env, cwd: project });
        if (run.code !== 0) throw new Error(`north ${args.join(" ")}: ${run.stderr}`);
    }
}, TIMEOUT);
afterAll(async () => {
    north?.kill();
    await server?.close();
    if (root) rmSync(root, { recursive: true, force: true });
});

/** Types `text` into the composer, waits until its row shows it, and sends it. */
async function submit(pty: PtyNorth, text: string): Promise<void> {
    pty.type(text);
    await pty.waitFor(
        () =>
            (
                pty
                    .screenText()
                    .split("\n")
                    .findLast((row) => row.includes("❯ ")) ?? ""
            ).includes(text),
        10_000,
        `${text} in the composer`
    );
    pty.type("\r");
}

function installedPath(id: string): string {
    const file = join(env.NORTH_DATA_DIR!, "plugins", "installed.json");
    return (JSON.parse(readFileSync(file, "utf8")) as Record<string, { path: string }>)[id]!.path;
}

describe("installed plugins in the chat", () => {
    it(
        "/alpha:greet sends its prompt; alpha's SessionStart hook ran from its copy; /help and /mcp list its parts",
        async () => {
            north = spawnNorthPty({ args: ["--path", project], env, cwd: project });
            await north.waitFor(() => isAppReady(north!), 20_000, "the composer");

            server.enqueue({ text: "Hello there, zoe!" });
            await submit(north, "/alpha:greet zoe");
            await north.waitForText("Hello there, zoe!", 20_000);

            // MCP servers start in the background after the first frame: /mcp shows beta's below.
            expect(JSON.stringify(server.requests.at(-1)!.body)).toContain(
                "Say a warm hello to zoe"
            );

            await north.waitFor(
                () => existsSync(marker) && readFileSync(marker, "utf8").includes("SessionStart"),
                20_000,
                "alpha's SessionStart hook"
            );
            expect(readFileSync(marker, "utf8")).toContain(
                `SessionStart ${installedPath("alpha@north-test")}`
            );

            await submit(north, "/help");
            // Its description: only /help's list shows it now (the earlier message shows the name).
            await north.waitForText("Greets someone by name", 20_000);

            await submit(north, "/mcp");
            await north.waitForText(BETA_SERVER, 20_000);
        },
        TIMEOUT
    );
});
