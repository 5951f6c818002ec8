/**
 * Issue 39 end to end, through the built `north` a user runs: the kit's
 * marketplace (a real git repository) is added, alpha and beta installed
 * (installing runs none of their code), used in print mode against the fake
 * model (alpha's command, its hooks, beta's MCP tool), updated to a commit
 * that changes alpha's hook (refused without a yes, the approved copy still
 * runs; taken with --yes), disabled and removed. Needs `node scripts/build.mjs`.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
    anthropicToolResultTexts,
    type FakeLlmServer,
    type RecordedRequest,
    startFakeLlmServer,
} from "../kit/fake-llm-server";
import {
    alphaFiles,
    ECHO_PREFIX,
    isolatedNorthEnv,
    makeTestMarketplace,
    PLUGIN_MARKER_ENV,
    type TestMarketplace,
} from "../kit/plugin-marketplace";
import { type NorthRun, runNorth } from "../kit/run-north";

const TIMEOUT = 60_000;
const ECHO_TOOL = "mcp__plugin_beta_echo__echo";

let server: FakeLlmServer;
let root: string;
let market: TestMarketplace;
let env: NodeJS.ProcessEnv;
let project: string;
let marker: string;

beforeAll(async () => {
    server = await startFakeLlmServer();
    root = mkdtempSync(join(tmpdir(), "north-plugins-e2e-"));
    market = makeTestMarketplace(join(root, "markets"));
    project = join(root, "project");
    mkdirSync(project);
    writeFileSync(join(project, "notes.md"), "# notes\n");
    marker = join(root, "marker.txt");
    env = {
        ...isolatedNorthEnv(root),
        ANTHROPIC_API_KEY: "test-key",
        ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
        [PLUGIN_MARKER_ENV]: marker,
    };
    // Print mode runs an MCP tool only under an allow rule.
    writeFileSync(
        join(env.NORTH_CONFIG_DIR!, "config.json"),
        JSON.stringify({ permissions: { allow: [ECHO_TOOL] } })
    );
});
afterAll(async () => {
    await server?.close();
    if (root) rmSync(root, { recursive: true, force: true });
});

function north(...args: string[]): Promise<NorthRun> {
    return runNorth(args, { env, cwd: project });
}

function markerLines(): string[] {
    return existsSync(marker) ? readFileSync(marker, "utf8").split("\n").filter(Boolean) : [];
}

interface InstalledRecord {
    path: string;
    fingerprint: string;
    enabled: boolean;
    commit?: string;
}
function installed(): Record<string, InstalledRecord> {
    const file = join(env.NORTH_DATA_DIR!, "plugins", "installed.json");
    return existsSync(file)
        ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, InstalledRecord>)
        : {};
}

function bodyText(request: RecordedRequest | undefined): string {
    return JSON.stringify(request?.body ?? null);
}

/** The names of the tools a request offers the model. */
function toolNames(request: RecordedRequest | undefined): string[] {
    const tools = (request?.body as { tools?: Array<{ name: string }> } | undefined)?.tools;
    return (tools ?? []).map((t) => t.name);
}

function ok(run: NorthRun): NorthRun {
    expect(run.code, `exit ${run.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`).toBe(0);
    return run;
}

const alphaId = () => `alpha@${market.name}`;
const betaId = () => `beta@${market.name}`;

describe("a marketplace's plugins, from add to remove", () => {
    it(
        "adds the marketplace and installs alpha and beta with --yes; nothing of theirs runs",
        async () => {
            ok(await north("plugin", "marketplace", "add", market.dir));
            const listed = ok(await north("plugin", "marketplace", "list"));
            expect(listed.stdout).toContain(market.name);

            const alpha = ok(await north("plugin", "install", alphaId(), "--yes"));
            // What it may run is shown before it is installed: the hook's command line.
            expect(alpha.stdout + alpha.stderr).toContain("mark.mjs");
            ok(await north("plugin", "install", betaId(), "--yes"));

            const records = installed();
            expect(Object.keys(records).sort()).toEqual([alphaId(), betaId()]);
            for (const record of Object.values(records)) {
                expect(record.enabled).toBe(true);
                expect(record.fingerprint).toMatch(/\S/);
                expect(existsSync(join(record.path, ".claude-plugin", "plugin.json"))).toBe(true);
                // A copy in North's data folder, not the marketplace's own files.
                expect(record.path.startsWith(join(env.NORTH_DATA_DIR!, "plugins"))).toBe(true);
            }
            expect(markerLines()).toEqual([]);

            const list = ok(await north("plugin", "list"));
            expect(list.stdout).toContain(alphaId());
            expect(list.stdout).toContain(betaId());
        },
        TIMEOUT
    );

    it(
        "/alpha:greet sends its prompt; alpha's hooks run from the installed copy; beta's MCP tool answers the model",
        async () => {
            const before = server.requests.length;
            server.enqueue(
                { toolCalls: [{ id: "toolu_1", name: ECHO_TOOL, input: { text: "ping" } }] },
                { text: "Hello, bob!" }
            );
            const run = ok(await north("-p", "/alpha:greet bob"));
            expect(run.stdout).toContain("Hello, bob!");

            const first = server.requests[before];
            expect(bodyText(first)).toContain("Say a warm hello to bob");
            expect(toolNames(first)).toContain(ECHO_TOOL);
            const second = server.requests[before + 1]!;
            expect(anthropicToolResultTexts(second).join("\n")).toContain(`${ECHO_PREFIX}ping`);

            const alphaRoot = installed()[alphaId()]!.path;
            const betaRoot = installed()[betaId()]!.path;
            const lines = markerLines();
            expect(lines).toContain(`SessionStart ${alphaRoot}`);
            expect(lines).toContain(`PostToolUse ${alphaRoot}`);
            expect(lines).toContain(`McpStart ${betaRoot}`);
        },
        TIMEOUT
    );

    it(
        "an update that changes alpha's hook asks again: refused without a terminal or --yes, the approved copy still runs; --yes takes it",
        async () => {
            const approved = installed()[alphaId()]!;
            const hooks = JSON.parse(alphaFiles()["hooks/hooks.json"]!) as {
                hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>>;
            };
            hooks.hooks.SessionStart![0]!.hooks[0]!.command += "-v2";
            // A plugin with a version is updated when the version changes (Claude Code's rule).
            const manifest = JSON.parse(alphaFiles()[".claude-plugin/plugin.json"]!) as {
                version: string;
            };
            manifest.version = "1.1.0";
            market.change(
                "plugins/alpha/.claude-plugin/plugin.json",
                JSON.stringify(manifest, null, 4) + "\n"
            );
            market.change(
                "plugins/alpha/hooks/hooks.json",
                JSON.stringify(hooks, null, 4) + "\n",
                "alpha's SessionStart hook says v2"
            );
            ok(await north("plugin", "marketplace", "update"));

            const refused = await north("plugin", "update", alphaId());
            expect(refused.code).not.toBe(0);
            expect(refused.stdout + refused.stderr).toContain("--yes");
            expect(installed()[alphaId()]!.fingerprint).toBe(approved.fingerprint);
            expect(existsSync(approved.path)).toBe(true);

            rmSync(marker, { force: true });
            server.enqueue({ text: "Hi again." });
            ok(await north("-p", "/alpha:greet ann"));
            expect(markerLines()).toContain(`SessionStart ${approved.path}`);
            expect(markerLines().some((l) => l.startsWith("SessionStart-v2"))).toBe(false);

            const taken = ok(await north("plugin", "update", alphaId(), "--yes"));
            expect(taken.stdout + taken.stderr).toContain("-v2");
            const updated = installed()[alphaId()]!;
            expect(updated.fingerprint).not.toBe(approved.fingerprint);
            expect(updated.commit).toBe(market.commit());

            rmSync(marker, { force: true });
            server.enqueue({ text: "Hi once more." });
            ok(await north("-p", "/alpha:greet cy"));
            expect(markerLines()).toContain(`SessionStart-v2 ${updated.path}`);
        },
        TIMEOUT
    );

    it(
        "disable: alpha's command is gone and beta's server does not start; enable brings them back",
        async () => {
            ok(await north("plugin", "disable", alphaId()));
            ok(await north("plugin", "disable", betaId()));
            expect(installed()[alphaId()]!.enabled).toBe(false);

            rmSync(marker, { force: true });
            const before = server.requests.length;
            const gone = await north("-p", "/alpha:greet dee");
            expect(gone.code).not.toBe(0);
            expect(gone.stderr).toContain("/alpha:greet");
            expect(server.requests.length).toBe(before);

            server.enqueue({ text: "Plain answer." });
            ok(await north("-p", "what is in notes.md?"));
            expect(toolNames(server.requests.at(-1))).not.toContain(ECHO_TOOL);
            expect(toolNames(server.requests.at(-1))).toContain("read_file");
            expect(markerLines()).toEqual([]);

            ok(await north("plugin", "enable", alphaId()));
            expect(installed()[alphaId()]!.enabled).toBe(true);
        },
        TIMEOUT
    );

    it(
        "remove: the installed copies and the plugins' data folders are gone",
        async () => {
            const records = installed();
            const dataDirs = [alphaId(), betaId()].map((id) =>
                join(env.NORTH_DATA_DIR!, "plugins", "data", id.replace(/[^A-Za-z0-9_-]/g, "-"))
            );
            // A plugin's data folder exists once something used it; make sure there is one to remove.
            for (const dir of dataDirs) mkdirSync(dir, { recursive: true });

            ok(await north("plugin", "remove", alphaId()));
            ok(await north("plugin", "remove", betaId()));
            expect(installed()).toEqual({});
            for (const record of Object.values(records))
                expect(existsSync(record.path)).toBe(false);
            for (const dir of dataDirs) expect(existsSync(dir)).toBe(false);

            const list = ok(await north("plugin", "list"));
            expect(list.stdout).not.toContain(alphaId());
        },
        TIMEOUT
    );
});
