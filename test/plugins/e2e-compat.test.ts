/**
 * Two real public Claude Code plugins, installed through `north plugin` from
 * git marketplaces made of the committed fixtures, and every part of them
 * loaded by a session:
 *
 * - Render's plugin (github.com/render-oss/render-plugin-claude-code @
 *   da2a2491d3e5a5db83bb1f3cc68cb402371822fe, MIT; test/fixtures/plugins/render):
 *   commands, an agent, skills, a PostToolUse hook, an HTTP MCP server. Its
 *   own marketplace.json names it by `{source: "github"}`; the test's copy
 *   rewrites that entry's source to `"./"` (the repository root is the plugin),
 *   and points `.mcp.json`'s URL at a local server answering as the real one
 *   does without a sign-in (401), so nothing reaches the internet.
 * - `typescript-lsp` from Anthropic's official marketplace
 *   (github.com/anthropics/claude-plugins-official @ 340e33aef211d95769d252324854497af871dafe,
 *   Apache-2.0; test/fixtures/plugins/claude-plugins-official): no plugin.json,
 *   `strict: false`, the whole definition (an inline LSP server) in its entry.
 *
 * Needs `node scripts/build.mjs`.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { type LocalHttpServer, listenLocal } from "../kit/http-fake";
import { isolatedNorthEnv, testGit } from "../kit/plugin-marketplace";
import { type NorthRun, runNorth } from "../kit/run-north";

const TIMEOUT = 60_000;
const FIXTURES = fileURLToPath(new URL("../fixtures/plugins/", import.meta.url));
const RENDER = "render@render-plugin";
const TS_LSP = "typescript-lsp@claude-plugins-official";

let server: FakeLlmServer;
let mcp: LocalHttpServer;
let root: string;
let env: NodeJS.ProcessEnv;
let project: string;

function commitAll(dir: string): void {
    testGit(dir, "init", "-q");
    testGit(dir, "add", "-A");
    testGit(dir, "commit", "-q", "-m", "fixture");
}

function editJson(file: string, edit: (value: Record<string, unknown>) => void): void {
    const value = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    edit(value);
    writeFileSync(file, JSON.stringify(value, null, 2) + "\n");
}

beforeAll(async () => {
    server = await startFakeLlmServer();
    // What mcp.render.com answers a client that has not signed in.
    mcp = await listenLocal((_req, res) => {
        res.writeHead(401, { "WWW-Authenticate": 'Bearer realm="render"' });
        res.end();
    });
    root = mkdtempSync(join(tmpdir(), "north-plugins-compat-"));
    project = join(root, "project");
    cpSync(join(FIXTURES, "render"), join(root, "render"), { recursive: true });
    editJson(join(root, "render", ".claude-plugin", "marketplace.json"), (market) => {
        (market.plugins as Array<Record<string, unknown>>)[0]!.source = "./";
    });
    editJson(join(root, "render", ".mcp.json"), (config) => {
        const servers = config.mcpServers as Record<string, Record<string, unknown>>;
        servers.render!.url = `${mcp.url}/mcp`;
    });
    commitAll(join(root, "render"));
    cpSync(join(FIXTURES, "claude-plugins-official"), join(root, "official"), { recursive: true });
    commitAll(join(root, "official"));
    testGit(root, "init", "-q", "project");
    writeFileSync(join(project, "index.ts"), "export const answer = 42;\n");
    env = {
        ...isolatedNorthEnv(root),
        ANTHROPIC_API_KEY: "test-key",
        ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
    };
});
afterAll(async () => {
    await server?.close();
    await mcp?.close();
    if (root) rmSync(root, { recursive: true, force: true });
});

function north(...args: string[]): Promise<NorthRun> {
    return runNorth(args, { env, cwd: project });
}

function ok(run: NorthRun): NorthRun {
    expect(run.code, `exit ${run.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`).toBe(0);
    return run;
}

describe("two real public plugins", () => {
    it(
        "install, each showing every part it brings and every program it may run",
        async () => {
            ok(await north("plugin", "marketplace", "add", join(root, "render")));
            ok(await north("plugin", "marketplace", "add", join(root, "official")));

            const render = ok(await north("plugin", "install", RENDER, "--yes"));
            const shown = render.stdout + render.stderr;
            for (const part of [
                "/render:check-render-status",
                "/render:deploy-to-render",
                "render:render-assistant",
                "render:render-cli",
                "render:render-disks",
                "render:render-scaling",
                "hook PostToolUse [Edit|Write|MultiEdit]",
                "scripts/validate-render-yaml-hook.sh",
                `MCP server render: http ${mcp.url}/mcp`,
                '"oauth"',
            ]) {
                expect(shown).toContain(part);
            }

            const lsp = ok(await north("plugin", "install", TS_LSP, "--yes"));
            expect(lsp.stdout + lsp.stderr).toContain(
                "LSP server typescript: typescript-language-server --stdio"
            );

            const listed = JSON.parse(ok(await north("plugin", "list", "--json")).stdout) as Array<{
                id: string;
                enabled: boolean;
                entry?: Record<string, unknown>;
            }>;
            expect(listed.map((p) => [p.id, p.enabled])).toEqual([
                [RENDER, true],
                [TS_LSP, true],
            ]);
            // strict: false — the entry is the definition, kept with the record.
            expect(listed[1]!.entry?.lspServers).toBeDefined();
        },
        TIMEOUT
    );

    it(
        "a print session loads their commands (/help), skills (/skills) and agent; doctor lists both with their servers",
        async () => {
            const help = ok(await north("-p", "/help"));
            for (const name of ["/render:check-render-status", "/render:deploy-to-render"]) {
                expect(help.stdout).toContain(name);
            }
            expect(help.stdout).toContain("(plugin render@render-plugin)");
            const skills = ok(await north("-p", "/skills"));
            for (const name of [
                "render:render-cli",
                "render:render-disks",
                "render:render-scaling",
            ]) {
                expect(skills.stdout).toContain(name);
            }

            server.enqueue({ text: "Deploying is one command." });
            const before = server.requests.length;
            ok(await north("-p", "/render:deploy-to-render"));
            const body = JSON.stringify(server.requests[before]!.body);
            expect(body).toContain("render-assistant");
            // The command's text (after its frontmatter) is the prompt.
            expect(body).toContain("Follow the **render-deploy** skill to deploy this project.");

            const doctor = await north("doctor");
            const text = doctor.stdout + doctor.stderr;
            expect(text).toContain(RENDER);
            expect(text).toContain(TS_LSP);
            expect(text).toContain("typescript-language-server");
        },
        TIMEOUT
    );
});
