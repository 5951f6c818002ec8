import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { McpStdioServerSpec } from "../../../src/tools/mcp/config";
import {
    createMcpManager,
    type McpElicitation,
    type McpManager,
    type McpManagerOptions,
} from "../../../src/tools/mcp/manager";
import type { ToolResult } from "../../../src/tools/types";
import type { McpSamplingRequest } from "../../../src/tools/mcp/client-requests";
import { manualTimers } from "../../kit/manual-timers";

const FIXTURE = fileURLToPath(new URL("./fixtures/client-features-server.mjs", import.meta.url));
const ECHO_FIXTURE = fileURLToPath(new URL("./fixtures/fake-server.mjs", import.meta.url));
const managers: McpManager[] = [];

afterEach(async () => {
    await Promise.all(managers.splice(0).map((m) => m.close()));
});

function spec(name: string, script = FIXTURE): McpStdioServerSpec {
    return {
        name,
        scope: "user",
        source: "test",
        missingVars: [],
        transport: "stdio",
        command: process.execPath,
        args: [script],
        env: {},
    };
}

async function started(
    options: Partial<McpManagerOptions> = {},
    script = FIXTURE
): Promise<McpManager> {
    const m = createMcpManager([spec("feat", script)], {
        clientName: "north-test",
        version: "0.0.0",
        ...options,
    });
    managers.push(m);
    await m.settled();
    expect(m.status()[0]).toMatchObject({ state: "ready" });
    return m;
}

async function call(
    m: McpManager,
    name: string,
    input: Record<string, unknown> = {},
    signal = new AbortController().signal
): Promise<string> {
    const found = m.tools().find((t) => t.name === name);
    if (!found) throw new Error(`no tool ${name}`);
    const result: ToolResult = await found.execute(input, { repoRoot: process.cwd(), signal });
    if (!result.ok) throw new Error(`${name} failed: ${JSON.stringify(result)}`);
    return (result.data as { text: string }).text;
}

describe("MCP client features", () => {
    it("advertises roots and elicitation and answers roots/list with the project root", async () => {
        const root = realpathSync(mkdtempSync(join(tmpdir(), "north-roots-")));
        const m = await started({ cwd: root });
        const capabilities = JSON.parse(await call(m, "mcp__feat__capabilities")) as Record<
            string,
            unknown
        >;
        expect(capabilities).toHaveProperty("roots");
        expect(capabilities).toHaveProperty("elicitation");
        expect(capabilities).toHaveProperty("sampling");
        expect(JSON.parse(await call(m, "mcp__feat__roots"))).toEqual({
            roots: [{ uri: pathToFileURL(root).href, name: root.split("/").at(-1) }],
        });
    });

    it("refreshes the tool list on tools/list_changed before the call that caused it returns", async () => {
        const m = await started();
        let notified = 0;
        m.subscribe(() => notified++);
        expect(m.tools().map((t) => t.name)).not.toContain("mcp__feat__late");
        expect(await call(m, "mcp__feat__add_tool")).toBe("added");
        expect(m.tools().map((t) => t.name)).toContain("mcp__feat__late");
        expect(m.status()[0]!.tools).toContain("late");
        expect(notified).toBeGreaterThan(0);
        expect(await call(m, "mcp__feat__late")).toBe("pong");
    });

    it("declines every elicitation when nothing can ask the user (print mode)", async () => {
        const m = await started();
        expect(JSON.parse(await call(m, "mcp__feat__elicit"))).toEqual({ action: "decline" });
    });

    it("passes an elicitation to the front-end and returns the user's answer", async () => {
        const asked: McpElicitation[] = [];
        const m = await started({
            onElicitation: async (request) => {
                asked.push(request);
                return { action: "accept", content: { name: "Ada" } };
            },
        });
        expect(JSON.parse(await call(m, "mcp__feat__elicit"))).toEqual({
            action: "accept",
            content: { name: "Ada" },
        });
        expect(asked).toEqual([
            {
                server: "feat",
                message: "What is your name?",
                requestedSchema: {
                    type: "object",
                    properties: { name: { type: "string" } },
                    required: ["name"],
                },
            },
        ]);
    });

    it("makes 50 calls with one signal without a MaxListenersExceededWarning", async () => {
        const m = await started({}, ECHO_FIXTURE);
        const warnings: Error[] = [];
        const onWarning = (warning: Error): void => void warnings.push(warning);
        process.on("warning", onWarning);
        try {
            const signal = new AbortController().signal;
            for (let i = 0; i < 50; i++) {
                expect(await call(m, "mcp__feat__echo", { text: `n${i}` }, signal)).toBe(`n${i}`);
            }
            // Warnings are emitted on the next tick.
            await new Promise((resolve) => setImmediate(resolve));
        } finally {
            process.off("warning", onWarning);
        }
        expect(warnings.map((w) => w.name)).not.toContain("MaxListenersExceededWarning");
    });
});

describe("MCP sampling", () => {
    const answering = (asked: McpSamplingRequest[]): Partial<McpManagerOptions> => ({
        onSampling: async (request) => {
            asked.push(request);
            return { text: "sampled text", model: "fake:model", stopReason: "endTurn" };
        },
    });

    it("runs an approved request and returns the assistant's text, model and stop reason", async () => {
        const asked: McpSamplingRequest[] = [];
        const m = await started(answering(asked));
        const result = JSON.parse(
            await call(m, "mcp__feat__sample", { prompt: "Summarise", systemPrompt: "Be brief" })
        ) as Record<string, unknown>;
        expect(result).toMatchObject({
            role: "assistant",
            content: { type: "text", text: "sampled text" },
            model: "fake:model",
            stopReason: "endTurn",
        });
        expect(asked).toEqual([
            {
                server: "feat",
                systemPrompt: "Be brief",
                messages: [{ role: "user", text: "Summarise" }],
                maxTokens: 100,
            },
        ]);
    });

    it("caps a huge maxTokens and says what was asked", async () => {
        const asked: McpSamplingRequest[] = [];
        const m = await started(answering(asked));
        await call(m, "mcp__feat__sample", { maxTokens: 1_000_000_000 });
        expect(asked[0]).toMatchObject({ maxTokens: 4096, requestedMaxTokens: 1_000_000_000 });
    });

    it("refuses empty messages and image content without asking the user", async () => {
        const asked: McpSamplingRequest[] = [];
        const m = await started(answering(asked));
        expect(await call(m, "mcp__feat__sample", { empty: true })).toBe(
            "sampling failed: MCP error -32602: North declined the sampling request: the sampling request has no messages"
        );
        expect(await call(m, "mcp__feat__sample", { image: true })).toBe(
            "sampling failed: MCP error -32602: North declined the sampling request: message 1 holds image content; North samples text only"
        );
        expect(asked).toEqual([]);
    });

    it("passes the user's denial back to the server as an error", async () => {
        const m = await started({
            onSampling: async () => {
                throw new Error("the user denied the sampling request");
            },
        });
        expect(await call(m, "mcp__feat__sample")).toBe(
            "sampling failed: MCP error -1: the user denied the sampling request"
        );
    });

    it("declines every sampling request when nothing can ask the user (print mode)", async () => {
        const m = await started();
        expect(await call(m, "mcp__feat__sample")).toMatch(
            /^sampling failed: MCP error -1: North declined the sampling request: only the chat can ask/
        );
    });
});

describe("MCP elicitation forms", () => {
    it("declines a nested schema with its reason, without asking the user", async () => {
        let asked = 0;
        const m = await started({
            onElicitation: async () => {
                asked++;
                return { action: "decline" };
            },
        });
        expect(await call(m, "mcp__feat__elicit_nested")).toBe(
            'elicitation failed: MCP error -32602: North declined the elicitation: field "address" is of type "object"; ' +
                "North's form takes only text, numbers, yes/no and single choices"
        );
        expect(asked).toBe(0);
    });

    it("closes the question when the server cancels it", async () => {
        let aborted = false;
        const m = await started({
            onElicitation: (_request, signal) =>
                new Promise((resolve) => {
                    signal.addEventListener("abort", () => {
                        aborted = true;
                        resolve({ action: "cancel" });
                    });
                }),
        });
        expect(await call(m, "mcp__feat__elicit_form", { timeoutMs: 200 })).toMatch(
            /^elicitation failed: MCP error -32001: Request timed out/
        );
        await expect.poll(() => aborted, { timeout: 10_000 }).toBe(true);
    });
});

describe("an MCP call's time limit", () => {
    it("stops counting while the user answers the server's form or sampling request", async () => {
        const timers = manualTimers();
        const m = await started({
            timeoutMs: 1000,
            timers,
            // The user takes a minute over each question.
            onElicitation: async () => {
                timers.advance(60_000);
                return { action: "accept", content: { name: "web", replicas: 3 } };
            },
            onSampling: async () => {
                timers.advance(60_000);
                return { text: "teal", model: "fake:model", stopReason: "endTurn" };
            },
        });
        expect(JSON.parse(await call(m, "mcp__feat__elicit_form"))).toEqual({
            action: "accept",
            content: { name: "web", replicas: 3 },
        });
        expect(JSON.parse(await call(m, "mcp__feat__sample"))).toMatchObject({
            content: { text: "teal" },
        });
        expect(timers.pending()).toBe(0);
    });

    it("starts over on the server's progress, and past it cancels the call", async () => {
        const timers = manualTimers();
        const m = await started({ timeoutMs: 1000, timers });
        const tool = m.tools().find((t) => t.name === "mcp__feat__progress")!;
        let settled = false;
        const pending = tool
            .execute({}, { repoRoot: process.cwd(), signal: new AbortController().signal })
            .finally(() => (settled = true));
        // The limit was set once for the call and once more on the progress notification.
        await expect.poll(() => timers.armed, { timeout: 10_000 }).toBe(2);
        timers.advance(999);
        await new Promise((resolve) => setImmediate(resolve));
        expect(settled).toBe(false);
        timers.advance(1);
        const result = await pending;
        expect(!result.ok && result.error.message).toBe(
            'progress on the MCP server "feat" did not answer within 1 s; the call was cancelled. Try a smaller request or carry on without it.'
        );
        expect(m.status()[0]?.state).toBe("ready");
    });
});
