import { randomUUID } from "node:crypto";
import { existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { nodeFetch } from "../../../src/providers/node-fetch";
import {
    type McpServerSpec,
    type McpStdioServerSpec,
    parseMcpServers,
} from "../../../src/tools/mcp/config";
import {
    createMcpManager,
    type McpManager,
    type McpManagerOptions,
    type McpToolDefinition,
} from "../../../src/tools/mcp/manager";
import { createToolRegistry } from "../../../src/tools/registry";
import type { ToolResult } from "../../../src/tools/types";
import { startTestProxy } from "../../kit/test-proxy";
import { inputSchema } from "../../../src/tools/tool-input";

const FIXTURE = fileURLToPath(new URL("./fixtures/fake-server.mjs", import.meta.url));
const managers: McpManager[] = [];
const httpServers: HttpServer[] = [];

afterEach(async () => {
    await Promise.all(managers.splice(0).map((m) => m.close()));
    await Promise.all(
        httpServers.splice(0).map(
            (s) =>
                new Promise<void>((resolve) => {
                    s.closeAllConnections();
                    s.close(() => resolve());
                })
        )
    );
});

function stdio(
    name: string,
    mode = "normal",
    env: Record<string, string> = {}
): McpStdioServerSpec {
    return {
        name,
        scope: "project",
        source: "test",
        missingVars: [],
        transport: "stdio",
        command: process.execPath,
        args: [FIXTURE, mode],
        env,
    };
}

function manager(servers: McpServerSpec[], options: Partial<McpManagerOptions> = {}): McpManager {
    const m = createMcpManager(servers, { clientName: "north-test", version: "0.0.0", ...options });
    managers.push(m);
    return m;
}

function tool(m: McpManager, name: string): McpToolDefinition {
    const found = m.tools().find((t) => t.name === name);
    if (!found)
        throw new Error(
            `no tool ${name}; have ${m
                .tools()
                .map((t) => t.name)
                .join(", ")}`
        );
    return found;
}

function call(
    m: McpManager,
    name: string,
    input: Record<string, unknown> = {},
    signal = new AbortController().signal
): Promise<ToolResult> {
    return tool(m, name).execute(input, { repoRoot: process.cwd(), signal });
}

function isAlive(pid: number): boolean {
    try {
        process.kill(pid, 0);
        return true;
    } catch {
        return false;
    }
}

/** Resolves once `check` holds; generous, so a loaded machine only makes it slower. */
async function waitFor(check: () => boolean, ms = 15_000): Promise<void> {
    await vi.waitFor(() => expect(check()).toBe(true), { timeout: ms, interval: 25 });
}

describe("MCP manager over stdio", () => {
    it("starts in the background, lists and names tools, and calls them", async () => {
        const m = manager([stdio("fake")]);
        // Creation does not wait for the server.
        expect(m.status()[0]?.state).toBe("starting");
        expect(m.tools()).toEqual([]);
        await m.settled();
        const status = m.status()[0];
        expect(status?.state).toBe("ready");
        expect(status?.instructions).toBe("Use echo to test.");
        expect(status?.tools).toContain("echo");
        expect(status?.toolNames).toContain("mcp__fake__echo");
        expect(status?.toolNames).toContain("mcp__fake__weird_name_with_spaces");

        const echo = tool(m, "mcp__fake__echo");
        expect(echo.approvalPolicy).toBe("shell");
        expect(echo.readOnly).toBe(false);
        expect(echo.description).toBe("Echoes the text back.");
        expect(echo.inputJsonSchema).toMatchObject({
            type: "object",
            properties: { text: { type: "string" } },
            required: ["text"],
        });
        expect(inputSchema(echo.input).safeParse({ text: "x", extra: 1 }).success).toBe(true);

        const result = await call(m, "mcp__fake__echo", { text: "hi there" });
        expect(result).toEqual({
            ok: true,
            data: { server: "fake", tool: "echo", text: "hi there", truncated: false },
        });
    });

    it("works through the tool registry with the server's schema", async () => {
        const m = manager([stdio("fake")]);
        await m.settled();
        const registry = createToolRegistry(m.tools());
        const schema = registry.schemas().find((s) => s.name === "mcp__fake__echo");
        expect(schema?.inputSchema).toMatchObject({ required: ["text"] });
        const result = await registry.execute(
            "mcp__fake__echo",
            { text: "via registry" },
            { repoRoot: process.cwd(), signal: new AbortController().signal }
        );
        expect(result.ok && (result.data as { text: string }).text).toBe("via registry");
    });

    it("expands ${VAR} and ${VAR:-default} into the server's environment", async () => {
        const parsed = parseMcpServers(
            {
                fake: {
                    command: "${NODE_BIN}",
                    args: [FIXTURE],
                    env: { GREETING: "hello ${WHO}", OTHER: "${NOPE:-fallback}" },
                },
            },
            {
                scope: "project",
                source: ".mcp.json",
                env: { NODE_BIN: process.execPath, WHO: "world" },
            }
        );
        expect(parsed.warnings).toEqual([]);
        const m = manager(parsed.servers);
        await m.settled();
        const greeting = await call(m, "mcp__fake__env", { name: "GREETING" });
        const other = await call(m, "mcp__fake__env", { name: "OTHER" });
        expect(greeting.ok && (greeting.data as { text: string }).text).toBe("hello world");
        expect(other.ok && (other.data as { text: string }).text).toBe("fallback");
    });

    it("starts servers without provider keys unless their env entry passes one", async () => {
        const env = {
            ...process.env,
            ANTHROPIC_API_KEY: "sk-ant-hidden",
            OPENAI_API_KEY: "sk-oai-hidden",
            GATEWAY_KEY: "gw-hidden",
        };
        const m = createMcpManager(
            [stdio("plain"), stdio("explicit", "normal", { ANTHROPIC_API_KEY: "sk-ant-hidden" })],
            {
                clientName: "north-test",
                version: "0.0.0",
                env,
                hiddenEnv: ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GATEWAY_KEY"],
            }
        );
        managers.push(m);
        await m.settled();
        const text = (result: ToolResult) =>
            result.ok ? (result.data as { text: string }).text : result.error.message;
        const plain = text(await call(m, "mcp__plain__get-env"));
        expect(plain).toContain(`PATH=${process.env.PATH}`);
        expect(plain).not.toMatch(/hidden/);
        const explicit = text(await call(m, "mcp__explicit__get-env"));
        expect(explicit).toContain("ANTHROPIC_API_KEY=sk-ant-hidden");
        expect(explicit).not.toMatch(/sk-oai-hidden|gw-hidden/);
    });

    it("reports a missing command clearly while other servers work", async () => {
        const missing: McpServerSpec = {
            ...stdio("ghost"),
            command: "north-no-such-command-xyz",
            args: [],
        };
        const m = manager([missing, stdio("fake")]);
        await m.settled();
        const [ghost, fake] = m.status();
        expect(ghost?.state).toBe("failed");
        expect(ghost?.error).toContain("command not found: north-no-such-command-xyz");
        expect(fake?.state).toBe("ready");
        const result = await call(m, "mcp__fake__echo", { text: "still fine" });
        expect(result.ok).toBe(true);
    });

    it("reports a server that exits at start with its exit code and stderr", async () => {
        const m = manager([stdio("dies", "exit-at-start")]);
        await m.settled();
        const status = m.status()[0];
        expect(status?.state).toBe("failed");
        expect(status?.error).toContain("exited with code 3");
        expect(status?.error).toContain("fatal: missing API key");
    });

    it("tolerates non-protocol text on stdout", async () => {
        const m = manager([stdio("noisy", "noise")]);
        await m.settled();
        expect(m.status()[0]?.state).toBe("ready");
        const result = await call(m, "mcp__noisy__echo", { text: "ok" });
        expect(result.ok && (result.data as { text: string }).text).toBe("ok");
    });

    it("fails a server that never answers initialize, after the startup timeout", async () => {
        const m = manager([stdio("mute", "no-init")], { startupTimeoutMs: 300 });
        await m.settled();
        const status = m.status()[0];
        expect(status?.state).toBe("failed");
        expect(status?.error).toContain("did not complete the MCP handshake within 0.3 s");
    });

    it("turns a crash mid-call into an error result and a failed status", async () => {
        const m = manager([stdio("fake")]);
        await m.settled();
        const result = await call(m, "mcp__fake__crash");
        expect(result.ok).toBe(false);
        if (result.ok) return;
        expect(result.error.code).toBe("io_error");
        expect(result.error.message).toContain("stopped during the call to crash");
        expect(result.error.message).toContain("exited with code 7");
        expect(m.status()[0]?.state).toBe("failed");
        // The tools stay listed, and now explain instead of hanging.
        const after = await call(m, "mcp__fake__echo", { text: "x" });
        expect(!after.ok && after.error.message).toContain('MCP server "fake" is not available');
    });

    it("restarts a failed server", async () => {
        const m = manager([stdio("fake")]);
        await m.settled();
        await call(m, "mcp__fake__crash");
        await m.restart("fake");
        await m.settled();
        expect(m.status()[0]?.state).toBe("ready");
        expect((await call(m, "mcp__fake__echo", { text: "back" })).ok).toBe(true);
    });

    it("does not restart a project server once the project's files changed since trust", async () => {
        let trusted = true;
        const m = manager([stdio("fake")], { projectStillTrusted: () => trusted });
        await m.settled();
        trusted = false;
        await m.restart("fake");
        await m.settled();
        expect(m.status()[0]).toMatchObject({ state: "failed" });
        expect(m.status()[0]?.error).toContain("changed since you trusted it");
        const after = await call(m, "mcp__fake__echo", { text: "x" });
        expect(after.ok).toBe(false);
    });

    it("times out a slow call without failing the server", async () => {
        const m = manager([stdio("fake")], { timeoutMs: 300 });
        await m.settled();
        const started = Date.now();
        const result = await call(m, "mcp__fake__slow", { ms: 10_000 });
        expect(Date.now() - started).toBeLessThan(3000);
        expect(!result.ok && result.error.message).toContain("did not answer within 0.3 s");
        expect(m.status()[0]?.state).toBe("ready");
        expect((await call(m, "mcp__fake__echo", { text: "x" })).ok).toBe(true);
    });

    it("cancels a call when the signal aborts", async () => {
        const m = manager([stdio("fake")]);
        await m.settled();
        const controller = new AbortController();
        const startedFile = join(tmpdir(), `north-mcp-slow-${randomUUID()}`);
        const pending = call(m, "mcp__fake__slow", { ms: 10_000, startedFile }, controller.signal);
        // Cancelled once the server is working on the call.
        await waitFor(() => existsSync(startedFile));
        rmSync(startedFile);
        controller.abort();
        const result = await pending;
        expect(!result.ok && result.error.code).toBe("cancelled");
    });

    it("caps a 5 MB result at the size limit with a note", async () => {
        const m = manager([stdio("fake")]);
        await m.settled();
        const result = await call(m, "mcp__fake__big", { bytes: 5 * 1024 * 1024 });
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        const data = result.data as { text: string; truncated: boolean };
        expect(data.truncated).toBe(true);
        expect(Buffer.byteLength(data.text)).toBeLessThan(101 * 1024);
        expect(data.text).toContain("only the first 100.0 KB is shown");
    });

    it("turns isError results into tool errors and renders mixed content", async () => {
        const m = manager([stdio("fake")]);
        await m.settled();
        const error = await call(m, "mcp__fake__error");
        expect(!error.ok && error.error.message).toContain("reported an error: database is locked");
        const mixed = await call(m, "mcp__fake__mixed");
        expect(mixed.ok).toBe(true);
        const text = mixed.ok ? (mixed.data as { text: string }).text : "";
        expect(text).toContain("hello");
        expect(text).toContain("[image: image/png, 2.9 KB; not shown to the model]");
        expect(text).toContain("[resource file:///a.txt]\nA text");
        expect(text).toContain("[resource file:///b.bin: application/octet-stream, 3 B;");
    });

    it("close kills the server and what it spawned", async () => {
        const m = manager([stdio("fake")]);
        await m.settled();
        const spawned = await call(m, "mcp__fake__spawn_child");
        const childPid = Number(spawned.ok ? (spawned.data as { text: string }).text : NaN);
        expect(isAlive(childPid)).toBe(true);
        await m.close();
        await waitFor(() => !isAlive(childPid));
        expect(m.status()[0]?.state).toBe("stopped");
        expect(m.tools()).toEqual([]);
    });

    it("notifies subscribers as servers become ready", async () => {
        const m = manager([stdio("fake")]);
        let calls = 0;
        const unsubscribe = m.subscribe(() => calls++);
        await m.settled();
        expect(calls).toBeGreaterThan(0);
        unsubscribe();
    });
});

async function startHttpServer(): Promise<{ url: string; seenAuth: string[] }> {
    const seenAuth: string[] = [];
    const mcp = new Server(
        { name: "http-fake", version: "1.0.0" },
        { capabilities: { tools: {} } }
    );
    mcp.setRequestHandler(ListToolsRequestSchema, async () => ({
        tools: [
            {
                name: "add",
                description: "Adds two numbers.",
                inputSchema: {
                    type: "object",
                    properties: { a: { type: "number" }, b: { type: "number" } },
                },
            },
        ],
    }));
    mcp.setRequestHandler(CallToolRequestSchema, async (request) => {
        const { a, b } = (request.params.arguments ?? {}) as { a: number; b: number };
        return { content: [{ type: "text", text: String(a + b) }] };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
    await mcp.connect(transport);
    const http = createServer((req, res) => {
        seenAuth.push(String(req.headers.authorization ?? ""));
        void transport.handleRequest(req, res);
    });
    httpServers.push(http);
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    const { port } = http.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}/mcp`, seenAuth };
}

describe("MCP manager over streamable HTTP", () => {
    it("connects, lists, calls, and sends expanded headers", async () => {
        const { url, seenAuth } = await startHttpServer();
        const parsed = parseMcpServers(
            { remote: { type: "http", url, headers: { Authorization: "Bearer ${TOKEN}" } } },
            { scope: "user", source: "config", env: { TOKEN: "s3cret" } }
        );
        const m = manager(parsed.servers);
        await m.settled();
        expect(m.status()[0]).toMatchObject({ state: "ready", transport: "http", tools: ["add"] });
        const result = await call(m, "mcp__remote__add", { a: 2, b: 40 });
        expect(result.ok && (result.data as { text: string }).text).toBe("42");
        expect(seenAuth).toContain("Bearer s3cret");
    });

    it("goes through HTTP_PROXY with North's fetch", async () => {
        const { url } = await startHttpServer();
        const proxy = await startTestProxy();
        vi.stubEnv("HTTP_PROXY", proxy.url);
        vi.stubEnv("NO_PROXY", "");
        try {
            const parsed = parseMcpServers(
                { remote: { type: "http", url } },
                { scope: "user", source: "config", env: {} }
            );
            const m = manager(parsed.servers, { fetch: nodeFetch });
            await m.settled();
            expect(m.status()[0]).toMatchObject({ state: "ready", tools: ["add"] });
            const result = await call(m, "mcp__remote__add", { a: 1, b: 2 });
            expect(result.ok && (result.data as { text: string }).text).toBe("3");
            expect(proxy.seen.length).toBeGreaterThanOrEqual(2);
            expect(proxy.seen.every((line) => line.endsWith(` ${url}`))).toBe(true);
            await m.close();
        } finally {
            vi.unstubAllEnvs();
            await proxy.close();
        }
    });

    it("fails clearly when nothing listens", async () => {
        const m = manager(
            [
                {
                    name: "down",
                    scope: "user",
                    source: "config",
                    missingVars: [],
                    transport: "http",
                    url: "http://127.0.0.1:9/mcp",
                    headers: {},
                },
            ],
            { startupTimeoutMs: 2000 }
        );
        await m.settled();
        expect(m.status()[0]?.state).toBe("failed");
        expect(m.status()[0]?.error).toMatch(/ECONNREFUSED|fetch failed/);
    });
});
