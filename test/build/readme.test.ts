import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { estimatePromptTokens } from "../../src/agent/tokens";
import { HELP_TEXT } from "../../src/cli/args";
import type { ToolSchema } from "../../src/providers/types";
import { SETTINGS_KEYS } from "../../src/storage/settings/schema";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome, runNorth } from "../kit/run-north";

// The README's claims that can be checked mechanically: every setting, flag and variable is
// documented, links lead somewhere, and the local-model overhead it quotes is what is sent.
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const README = readFileSync(join(ROOT, "README.md"), "utf8");

/** The text under a heading, up to the next heading of the same or a higher level. */
function section(heading: string): string {
    const lines = README.split("\n");
    const start = lines.findIndex((line) => line.replace(/^#+\s*/, "") === heading);
    if (start < 0) throw new Error(`README has no "${heading}" heading`);
    const level = /^#+/.exec(lines[start]!)![0].length;
    const end = lines.findIndex(
        (line, i) => i > start && /^#+\s/.test(line) && /^#+/.exec(line)![0].length <= level
    );
    return lines.slice(start + 1, end < 0 ? undefined : end).join("\n");
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
    return heading
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, "")
        .replace(/\s/g, "-");
}

describe("the README", () => {
    it("lists every settings key in the configuration reference", () => {
        const reference = section("Configuration reference");
        const rows = reference
            .split("\n")
            .map((line) => /^\|\s*`([^`]+)`\s*\|/.exec(line)?.[1])
            .filter((key): key is string => key !== undefined);
        expect(rows.sort()).toEqual(Object.keys(SETTINGS_KEYS).sort());
    });

    it("documents every long flag of `north --help`", () => {
        const flags = [...HELP_TEXT.matchAll(/(?<![\w-])--[a-z][a-zA-Z-]*/g)].map((m) => m[0]);
        expect(flags.length).toBeGreaterThan(10);
        const documented = (flag: string) =>
            new RegExp(`(?<![\\w-])${flag}(?![\\w-])`).test(README);
        const missing = [...new Set(flags)].filter((flag) => !documented(flag));
        expect(missing).toEqual([]);
    });

    it("documents every environment variable of `north --help`", () => {
        const environment = HELP_TEXT.slice(HELP_TEXT.indexOf("Environment:"));
        const variables = [...environment.matchAll(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/g)].map(
            (m) => m[0]
        );
        expect(variables).toContain("ANTHROPIC_API_KEY");
        expect([...new Set(variables)].filter((v) => !README.includes(`\`${v}\``))).toEqual([]);
    });

    it("links only to files that exist and headings that exist", () => {
        const anchors = new Set(
            README.split("\n")
                .filter((line) => /^#+\s/.test(line))
                .map((line) => anchorOf(line.replace(/^#+\s*/, "")))
        );
        const links = [...README.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
        expect(links.length).toBeGreaterThan(5);
        for (const link of links) {
            if (/^https?:/.test(link)) continue;
            if (link.startsWith("#")) expect(anchors, link).toContain(link.slice(1));
            else expect(existsSync(join(ROOT, link)), link).toBe(true);
        }
    });
});

describe("the README's editor set-ups (ACP)", () => {
    const setups = section("Setting up your editor");
    const blocks = (language: string) =>
        [...setups.matchAll(new RegExp("```" + language + "\\n([\\s\\S]*?)```", "g"))].map(
            (m) => m[1]!
        );

    it("start `north acp` in each JSON configuration (Zed, JetBrains)", () => {
        const json = blocks("json");
        expect(json).toHaveLength(2);
        for (const text of json) {
            const config = JSON.parse(text) as {
                agent_servers: Record<string, { command: string; args: string[] }>;
            };
            expect(config.agent_servers.North).toMatchObject({ command: "north", args: ["acp"] });
        }
    });

    it("start `north acp` from Neovim and Emacs too", () => {
        expect(blocks("lua").join("")).toContain('commands = { default = { "north", "acp" } }');
        const elisp = blocks("elisp").join("");
        expect(elisp).toContain(':command "north"');
        expect(elisp).toContain(':command-params \'("acp")');
    });

    it("names every option `north --help` lists for `north acp`", () => {
        const usage = HELP_TEXT.slice(
            HELP_TEXT.indexOf("north acp"),
            HELP_TEXT.indexOf("Options:")
        );
        const options = [...usage.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0]);
        expect(options).toContain("--trust");
        const editor = section("In your editor (ACP)");
        expect(options.filter((option) => !editor.includes(`\`${option}\``))).toEqual([]);
    });
});

describe("the README's local-model overhead", () => {
    let server: FakeLlmServer;
    beforeAll(async () => {
        if (!existsSync(join(ROOT, "dist", "cli.js"))) {
            throw new Error("dist/ is missing: run `node scripts/build.mjs` before this test");
        }
        server = await startFakeLlmServer();
    });
    afterAll(async () => {
        await server?.close();
    });

    /** North's own estimate of the first request's system prompt and tools, as sent. */
    async function firstRequestTokens(mode: string): Promise<number> {
        const { env, home } = isolatedHome();
        const repo = join(home, "repo");
        mkdirSync(repo);
        mkdirSync(env.NORTH_CONFIG_DIR!, { recursive: true });
        const config = {
            providers: { local: { api: "openai-chat", baseUrl: server.openaiBaseUrl } },
        };
        writeFileSync(join(env.NORTH_CONFIG_DIR!, "config.json"), JSON.stringify(config));
        try {
            server.enqueue({ text: "ok" });
            const result = await runNorth(
                ["-p", "hi", "--model", "local:coder", "--mode", mode, "--path", repo],
                { env, cwd: repo }
            );
            expect(result.stderr).toBe("");
            expect(result.code).toBe(0);
            const body = server.requests.at(-1)!.body as {
                messages: Array<{ role: string; content: string }>;
                tools: Array<{
                    function: {
                        name: string;
                        description?: string;
                        parameters: ToolSchema["inputSchema"];
                    };
                }>;
            };
            const system = body.messages
                .filter((m) => m.role === "system")
                .map((m) => m.content)
                .join("");
            const tools: ToolSchema[] = body.tools.map(({ function: f }) => ({
                name: f.name,
                description: f.description ?? "",
                inputSchema: f.parameters,
            }));
            return estimatePromptTokens(system, [], tools).total;
        } finally {
            rmSync(home, { recursive: true, force: true });
        }
    }

    it("quotes the fixed tokens per request that North actually sends, within 15 %", async () => {
        const claim = /about\s+([\d,]+)\s+tokens in agent mode and\s+([\d,]+)\s+in ask mode/.exec(
            section("Local models")
        );
        expect(claim).not.toBeNull();
        const [agentClaim, askClaim] = [claim![1]!, claim![2]!].map((n) =>
            Number(n.replace(/,/g, ""))
        );
        const agent = await firstRequestTokens("agent");
        const ask = await firstRequestTokens("ask");
        expect(Math.abs(agent - agentClaim!) / agent, `agent mode sends ~${agent}`).toBeLessThan(
            0.15
        );
        expect(Math.abs(ask - askClaim!) / ask, `ask mode sends ~${ask}`).toBeLessThan(0.15);
    }, 60_000);
});
