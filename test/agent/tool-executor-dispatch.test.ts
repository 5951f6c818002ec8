/**
 * The executor looks a called tool up once and hands the definition on; a
 * runner without that entry point (a wrapper that gates calls by name) is
 * still called by name, so its gate holds.
 */
import { describe, expect, it } from "vitest";
import { createNoStandingApprovals } from "../../src/agent/approvals";
import { type ToolRunner, executeToolCall } from "../../src/agent/tool-executor";
import type { ToolCallBlock } from "../../src/providers/types";
import { silentLogger } from "../../src/storage/logger";
import { createToolRegistry } from "../../src/tools/registry";
import { toolInput } from "../../src/tools/tool-input";
import { type AnyToolDefinition, type ToolDefinition, toolOk } from "../../src/tools/types";

const echo: ToolDefinition<{ text: string }, { text: string }> = {
    name: "echo",
    description: "Echoes.",
    input: toolInput((z) => z.object({ text: z.string() })),
    approvalPolicy: "none",
    readOnly: true,
    execute: async (input) => toolOk({ text: input.text }),
};

function run(tools: ToolRunner) {
    const block: ToolCallBlock = {
        type: "tool_call",
        id: "c1",
        name: "echo",
        input: { text: "hi" },
        rawInput: '{"text":"hi"}',
    };
    return executeToolCall(block, new Set(["echo"]), new AbortController().signal, {
        tools,
        approver: async () => ({ outcome: "approve" }),
        settings: createNoStandingApprovals(),
        repoRoot: "/nonexistent",
        logger: silentLogger,
        emit: () => {},
    });
}

describe("tool dispatch", () => {
    it("runs the listed definition through the registry without a second lookup by name", async () => {
        const registry = createToolRegistry([echo as AnyToolDefinition]);
        const byName: string[] = [];
        const given: AnyToolDefinition[] = [];
        const result = await run({
            list: () => registry.list(),
            schemas: (filter) => registry.schemas(filter),
            execute: (name, input, ctx) => {
                byName.push(name);
                return registry.execute(name, input, ctx);
            },
            executeDefinition: (tool, input, ctx) => {
                given.push(tool);
                return registry.executeDefinition(tool, input, ctx);
            },
        });
        expect(result).toEqual({ ok: true, data: { text: "hi" } });
        expect(given).toEqual([registry.get("echo")]);
        expect(byName).toEqual([]);
    });

    it("calls a runner without the entry point by name, so a wrapper's refusal stands", async () => {
        const registry = createToolRegistry([echo as AnyToolDefinition]);
        const result = await run({
            list: () => registry.list(),
            schemas: (filter) => registry.schemas(filter),
            execute: async (name) => ({
                ok: false,
                error: { code: "unknown_tool", message: `${name} is not available here` },
            }),
        });
        expect(result).toEqual({
            ok: false,
            error: { code: "unknown_tool", message: "echo is not available here" },
        });
    });
});
