/**
 * Issue 39's bad input, each through the `north` a user runs: a clear error
 * and nothing half-installed (no record, no copy, no clone left behind), or,
 * where the input is survivable (a symlink out, a name a built-in owns, a hook
 * that never exits), the plugin works without the bad part and says so.
 * Needs `node scripts/build.mjs`.
 */
import {
    existsSync,
    mkdirSync,
    mkdtempSync,
    readdirSync,
    readFileSync,
    rmSync,
    writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { listenLocal } from "../kit/http-fake";
import {
    isolatedNorthEnv,
    makeTestMarketplace,
    PLUGIN_MARKER_ENV,
    type TestMarketplaceOptions,
    testGit,
} from "../kit/plugin-marketplace";
import { type NorthRun, runNorth } from "../kit/run-north";

const TIMEOUT = 20_000;

let server: FakeLlmServer;
beforeAll(async () => {
    server = await startFakeLlmServer();
});
afterAll(async () => {
    await server?.close();
});

const roots: string[] = [];
afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

interface World {
    root: string;
    env: NodeJS.ProcessEnv;
    project: string;
    marker: string;
    north(...args: string[]): Promise<NorthRun>;
    installed(): Record<string, { path: string }>;
    marketplaces(): Record<string, unknown>;
    /** What is under `<data>/plugins/<sub>` (empty when absent). */
    entries(sub: string): string[];
}

function world(): World {
    const root = mkdtempSync(join(tmpdir(), "north-plugins-bad-"));
    roots.push(root);
    const project = join(root, "project");
    mkdirSync(project);
    const marker = join(root, "marker.txt");
    const env: NodeJS.ProcessEnv = {
        ...isolatedNorthEnv(root),
        ANTHROPIC_API_KEY: "test-key",
        ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
        [PLUGIN_MARKER_ENV]: marker,
    };
    const plugins = join(env.NORTH_DATA_DIR!, "plugins");
    const json = (file: string): Record<string, never> =>
        existsSync(join(plugins, file))
            ? (JSON.parse(readFileSync(join(plugins, file), "utf8")) as Record<string, never>)
            : {};
    return {
        root,
        env,
        project,
        marker,
        north: (...args) => runNorth(args, { env, cwd: project }),
        installed: () => json("installed.json"),
        marketplaces: () => json("marketplaces.json"),
        entries: (sub) => (existsSync(join(plugins, sub)) ? readdirSync(join(plugins, sub)) : []),
    };
}

function ok(run: NorthRun): NorthRun {
    expect(run.code, `exit ${run.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`).toBe(0);
    return run;
}

/** A run that failed with a message (on stderr) and no stack trace. */
function refused(run: NorthRun): string {
    expect(run.code, `expected a failure\nstdout:\n${run.stdout}`).not.toBe(0);
    expect(run.stderr.trim()).not.toBe("");
    expect(run.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
    return run.stderr;
}

/** A world with the kit's marketplace (plus `o`) added. */
async function withMarket(o: TestMarketplaceOptions): Promise<World & { name: string }> {
    const w = world();
    const market = makeTestMarketplace(join(w.root, "markets"), o);
    ok(await w.north("plugin", "marketplace", "add", market.dir));
    return { ...w, name: market.name };
}

const manifest = (fields: Record<string, unknown>): string =>
    JSON.stringify({ name: "x", version: "1.0.0", ...fields }, null, 4) + "\n";

describe("bad plugins", () => {
    it(
        "a plugin.json that is not JSON: refused, naming the file; nothing installed",
        async () => {
            const w = await withMarket({
                extraPlugins: {
                    broken: {
                        ".claude-plugin/plugin.json": '{ "name": "broken", ',
                        "commands/x.md": "x\n",
                    },
                },
            });
            const message = refused(
                await w.north("plugin", "install", `broken@${w.name}`, "--yes")
            );
            expect(message).toContain("plugin.json");
            expect(w.installed()).toEqual({});
            expect(w.entries(join("cache", w.name))).not.toContain("broken");
        },
        TIMEOUT
    );

    it(
        "a path in the manifest that leaves the plugin folder: refused, naming the path; nothing installed",
        async () => {
            const w = await withMarket({
                extraPlugins: {
                    escape: {
                        ".claude-plugin/plugin.json": manifest({
                            name: "escape",
                            commands: ["./../alpha/commands"],
                        }),
                    },
                },
            });
            const message = refused(
                await w.north("plugin", "install", `escape@${w.name}`, "--yes")
            );
            expect(message).toContain("../alpha/commands");
            expect(w.installed()).toEqual({});
            expect(w.entries(join("cache", w.name))).not.toContain("escape");
        },
        TIMEOUT
    );

    it(
        "a symlink out of the plugin: the copy leaves it out and says so; the rest installs",
        async () => {
            const w = world();
            const outside = join(w.root, "secret.md");
            writeFileSync(outside, "the user's secret\n");
            const market = makeTestMarketplace(join(w.root, "markets"), {
                extraPlugins: {
                    leaky: {
                        ".claude-plugin/plugin.json": manifest({ name: "leaky" }),
                        "commands/fine.md": "A fine command.\n",
                    },
                },
                symlinks: { "plugins/leaky/commands/secret.md": outside },
            });
            ok(await w.north("plugin", "marketplace", "add", market.dir));
            const run = ok(await w.north("plugin", "install", `leaky@${market.name}`, "--yes"));
            expect(run.stdout + run.stderr).toContain("secret.md");
            const copy = w.installed()[`leaky@${market.name}`]!.path;
            expect(existsSync(join(copy, "commands", "fine.md"))).toBe(true);
            expect(existsSync(join(copy, "commands", "secret.md"))).toBe(false);
        },
        TIMEOUT
    );

    it(
        "commands named help and review install; the built-ins still run and /help shows the plugin's under its name",
        async () => {
            const w = await withMarket({
                extraPlugins: {
                    clash: {
                        ".claude-plugin/plugin.json": manifest({ name: "clash" }),
                        "commands/help.md":
                            "---\ndescription: The plugin's help\n---\nPLUGIN HELP\n",
                        "commands/review.md":
                            "---\ndescription: The plugin's review\n---\nPLUGIN REVIEW\n",
                    },
                },
            });
            ok(await w.north("plugin", "install", `clash@${w.name}`, "--yes"));
            const before = server.requests.length;
            const help = ok(await w.north("-p", "/help"));
            // The built-in answered: nothing went to the model.
            expect(server.requests.length).toBe(before);
            expect(help.stdout).toContain("/clash:help");
            expect(help.stdout).toContain("/clash:review");
            expect(help.stdout).not.toContain("PLUGIN HELP");

            server.enqueue({ text: "done" });
            ok(await w.north("-p", "/clash:review now"));
            expect(JSON.stringify(server.requests.at(-1)!.body)).toContain("PLUGIN REVIEW");
        },
        TIMEOUT
    );

    it(
        "a plugin whose hook never exits: print mode finishes, the hook is killed at its timeout",
        async () => {
            const hang = `import { appendFileSync } from "node:fs";
appendFileSync(process.env.${PLUGIN_MARKER_ENV}, "Hang " + process.pid + "\\n");
setInterval(() => {}, 1000);
`;
            const w = await withMarket({
                extraPlugins: {
                    stuck: {
                        ".claude-plugin/plugin.json": manifest({ name: "stuck" }),
                        "hooks/hang.mjs": hang,
                        "hooks/hooks.json": JSON.stringify({
                            hooks: {
                                SessionStart: [
                                    {
                                        hooks: [
                                            {
                                                type: "command",
                                                command:
                                                    'node "${CLAUDE_PLUGIN_ROOT}/hooks/hang.mjs"',
                                                timeout: 2,
                                            },
                                        ],
                                    },
                                ],
                            },
                        }),
                    },
                },
            });
            ok(await w.north("plugin", "install", `stuck@${w.name}`, "--yes"));
            server.enqueue({ text: "Still here." });
            const run = ok(await w.north("-p", "hello"));
            expect(run.stdout).toContain("Still here.");
            const line = readFileSync(w.marker, "utf8")
                .split("\n")
                .find((l) => l.startsWith("Hang "));
            expect(line).toBeDefined();
            const pid = Number(line!.slice("Hang ".length));
            // Killed at its timeout: gone once its parent (init, after North's group kill) reaps it.
            await until(() => !alive(pid), 5_000, `hook process ${pid} to be gone`);
        },
        TIMEOUT
    );
});

/** Polls a state (not a fixed wait): resolves once `done()` holds, fails after `ms`. */
async function until(done: () => boolean, ms: number, what: string): Promise<void> {
    const deadline = Date.now() + ms;
    while (!done()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
    }
}

function alive(pid: number): boolean {
    try {
        process.kill(pid, 0);
        return true;
    } catch {
        return false;
    }
}

describe("bad marketplaces", () => {
    it(
        "a folder or a file:// URL that is not a git repository: refused, saying so; nothing recorded, no clone left",
        async () => {
            const w = world();
            const plain = makeTestMarketplace(join(w.root, "markets"), { noGit: true });
            for (const source of [plain.dir, `file://${plain.dir}`]) {
                const message = refused(await w.north("plugin", "marketplace", "add", source));
                expect(message.toLowerCase()).toContain("git");
            }
            expect(w.marketplaces()).toEqual({});
            expect(w.entries("marketplaces")).toEqual([]);
        },
        TIMEOUT
    );

    it(
        "a git repository with no .claude-plugin/marketplace.json: refused, naming the file",
        async () => {
            const w = world();
            const empty = join(w.root, "empty");
            mkdirSync(empty);
            writeFileSync(join(empty, "README.md"), "nothing here\n");
            testGit(empty, "init", "-q");
            testGit(empty, "add", "-A");
            testGit(empty, "commit", "-q", "-m", "no catalogue");
            const message = refused(await w.north("plugin", "marketplace", "add", empty));
            expect(message).toContain("marketplace.json");
            expect(w.marketplaces()).toEqual({});
            expect(w.entries("marketplaces")).toEqual([]);
        },
        TIMEOUT
    );

    it(
        "a source that needs credentials (HTTP 401): refused at once, no prompt, nothing recorded",
        async () => {
            const w = world();
            const asked: string[] = [];
            // What GitHub answers an anonymous clone of a private repository.
            const git = await listenLocal((req, res) => {
                asked.push(`${req.method} ${req.url}`);
                res.writeHead(401, {
                    "WWW-Authenticate": 'Basic realm="GitHub"',
                    "Content-Type": "text/plain",
                });
                res.end("Authentication required\n");
            });
            try {
                const message = refused(
                    await w.north(
                        "plugin",
                        "marketplace",
                        "add",
                        `${git.url}/private-owner/private-plugins.git`
                    )
                );
                expect(message).toMatch(/auth|credential|401|username/i);
                expect(asked[0]).toMatch(
                    /^GET \/private-owner\/private-plugins\.git\/info\/refs\?service=git-upload-pack$/
                );
                expect(w.marketplaces()).toEqual({});
                expect(w.entries("marketplaces")).toEqual([]);
            } finally {
                await git.close();
            }
        },
        TIMEOUT
    );
});
