import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
    expandEnvVars,
    loadProjectMcpConfig,
    mcpServerFingerprint,
    mergeMcpServers,
    parseMcpServers,
} from "../../../src/tools/mcp/config";
import { mcpResultToText, truncateUtf8 } from "../../../src/tools/mcp/content";
import { describeMcpCall, mcpToolName } from "../../../src/tools/mcp/names";

const dirs: string[] = [];
afterEach(async () => {
    for (const dir of dirs.splice(0)) await fs.rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
    const dir = await fs.mkdtemp(path.join(tmpdir(), "north-mcp-"));
    dirs.push(dir);
    return dir;
}

describe("expandEnvVars", () => {
    it("expands set variables, defaults, and reports missing ones", () => {
        const env = { A: "1", EMPTY: "" };
        expect(expandEnvVars("${A}-${B:-two}-${EMPTY:-d}", env)).toEqual({
            value: "1-two-d",
            missing: [],
        });
        expect(expandEnvVars("x${MISSING}y$A", env)).toEqual({
            value: "xy$A",
            missing: ["MISSING"],
        });
        expect(expandEnvVars("${B:-}", env)).toEqual({ value: "", missing: [] });
    });
});

describe("parseMcpServers", () => {
    it("accepts Claude Code's stdio and http shapes", () => {
        const { servers, warnings } = parseMcpServers(
            {
                local: { command: "npx", args: ["-y", "pkg", 3], env: { KEY: "${KEY}" } },
                typed: { type: "stdio", command: "srv" },
                remote: { type: "http", url: "https://x.test/mcp", headers: { H: "${KEY}" } },
                bare: { url: "https://y.test/mcp" },
            },
            { scope: "project", source: ".mcp.json", env: { KEY: "k" } }
        );
        expect(warnings).toEqual([]);
        expect(servers.map((s) => [s.name, s.transport])).toEqual([
            ["local", "stdio"],
            ["typed", "stdio"],
            ["remote", "http"],
            ["bare", "http"],
        ]);
        expect(servers[0]).toMatchObject({ args: ["-y", "pkg", "3"], env: { KEY: "k" } });
        expect(servers[2]).toMatchObject({ headers: { H: "k" } });
    });

    it("skips bad entries with a warning each and keeps the rest", () => {
        const { servers, warnings } = parseMcpServers(
            {
                noCommand: { args: [] },
                sse: { type: "sse" },
                badUrl: { type: "http", url: "not a url" },
                weird: { type: "grpc" },
                badEnv: { command: "x", env: { A: { nested: true } } },
                ok: { command: "x" },
                off: { command: "y", disabled: true },
            },
            { scope: "user", source: "config.json", env: {} }
        );
        expect(servers.map((s) => s.name)).toEqual(["ok"]);
        expect(warnings).toHaveLength(5);
        expect(warnings.join("\n")).toContain(
            'MCP server "sse" skipped: an sse server needs a "url" string'
        );
        expect(warnings.join("\n")).toContain('MCP server "noCommand" skipped');
    });

    it("warns about unset variables but keeps the server", () => {
        const { servers, warnings } = parseMcpServers(
            { gh: { command: "gh-mcp", env: { TOKEN: "${GITHUB_TOKEN}" } } },
            { scope: "project", source: ".mcp.json", env: {} }
        );
        expect(servers[0]?.missingVars).toEqual(["GITHUB_TOKEN"]);
        expect(warnings[0]).toContain("GITHUB_TOKEN");
    });
});

describe("loadProjectMcpConfig", () => {
    it("reads .mcp.json, treats a missing file as empty, and warns on invalid JSON", async () => {
        const dir = await tempDir();
        expect(await loadProjectMcpConfig(dir, {})).toEqual({ servers: [], warnings: [] });
        await fs.writeFile(path.join(dir, ".mcp.json"), '{"mcpServers": {"a": {"command": "x"}}}');
        const loaded = await loadProjectMcpConfig(dir, {});
        expect(loaded.servers[0]).toMatchObject({ name: "a", scope: "project" });
        await fs.writeFile(path.join(dir, ".mcp.json"), "{ not json");
        const broken = await loadProjectMcpConfig(dir, {});
        expect(broken.servers).toEqual([]);
        expect(broken.warnings[0]).toContain("invalid JSON");
    });
});

describe("mergeMcpServers and fingerprints", () => {
    it("lets the first list win and reports the shadowed entry", () => {
        const project = parseMcpServers(
            { a: { command: "p" } },
            { scope: "project", source: "P", env: {} }
        );
        const user = parseMcpServers(
            { a: { command: "u" }, b: { command: "u" } },
            { scope: "user", source: "U", env: {} }
        );
        const merged = mergeMcpServers(project, user);
        expect(merged.servers.map((s) => `${s.name}:${s.source}`)).toEqual(["a:P", "b:U"]);
        expect(merged.warnings[0]).toContain('"a" from U is shadowed by the one in P');
        const [a, b] = merged.servers;
        if (!a || !b) throw new Error("missing");
        expect(mcpServerFingerprint(a)).toBe(mcpServerFingerprint({ ...a }));
        expect(mcpServerFingerprint(a)).not.toBe(mcpServerFingerprint({ ...a, name: "b" }));
    });
});

describe("tool names", () => {
    it("sanitises, caps at 64 characters and separates clashes", () => {
        expect(mcpToolName("git hub", "create.issue")).toBe("mcp__git_hub__create_issue");
        const long = mcpToolName("server", "t".repeat(100));
        expect(long.length).toBe(64);
        expect(long).toMatch(/^mcp__server__t+_[0-9a-f]{8}$/);
        const taken = new Set(["mcp__a_b__x"]);
        const second = mcpToolName("a.b", "x", taken);
        expect(second).not.toBe("mcp__a_b__x");
        expect(second).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
        expect(describeMcpCall("mcp__a__b", { q: "x".repeat(500) }).length).toBe(200);
    });
});

describe("mcpResultToText", () => {
    it("falls back to structured content and cuts on a character boundary", () => {
        expect(mcpResultToText({ content: [], structuredContent: { n: 1 } }).text).toBe(
            '{\n  "n": 1\n}'
        );
        expect(truncateUtf8("ééé", 3)).toBe("é");
        const cut = mcpResultToText({ content: [{ type: "text", text: "é".repeat(100) }] }, 11);
        expect(cut.truncated).toBe(true);
        expect(cut.totalBytes).toBe(200);
        expect(cut.text.startsWith("ééééé\n[North:")).toBe(true);
    });
});
