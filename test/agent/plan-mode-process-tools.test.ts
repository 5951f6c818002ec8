/**
 * Plan mode before its plan is accepted: reading a background process's
 * output is research and runs; stopping one is a change and waits for the
 * plan, as commands do.
 */
import { describe, expect, it } from "vitest";
import { createNoStandingApprovals } from "../../src/agent/approvals";
import { executeToolCall } from "../../src/agent/tool-executor";
import { silentLogger } from "../../src/storage/logger";
import { createProcessReadTool } from "../../src/tools/process-read";
import { createProcessStopTool } from "../../src/tools/process-stop";
import { createToolRegistry } from "../../src/tools/registry";
import type { ShellService } from "../../src/tools/shell-service";
import { toolInput } from "../../src/tools/tool-input";
import { type AnyToolDefinition, toolOk } from "../../src/tools/types";

/** The real definitions' flags, with an execute that only records the call. */
function recorded(tool: AnyToolDefinition, ran: string[]): AnyToolDefinition {
    return {
        ...tool,
        input: toolInput((z) => z.object({ id: z.string() })),
        execute: async () => {
            ran.push(tool.name);
            return toolOk({});
        },
    };
}

function callInPlanMode(tool: AnyToolDefinition) {
    const registry = createToolRegistry([tool]);
    return executeToolCall(
        {
            type: "tool_call",
            id: "c1",
            name: tool.name,
            input: { id: "p1" },
            rawInput: '{"id":"p1"}',
        },
        new Set([tool.name]),
        new AbortController().signal,
        {
            tools: registry,
            approver: async () => ({ outcome: "approve" }),
            settings: createNoStandingApprovals(),
            repoRoot: "/nonexistent",
            logger: silentLogger,
            emit: () => {},
            planRequired: true,
        }
    );
}

describe("plan mode and the process tools", () => {
    const service = {} as ShellService;

    it("process_stop waits for the accepted plan", async () => {
        const ran: string[] = [];
        const result = await callInPlanMode(
            recorded(createProcessStopTool(service) as AnyToolDefinition, ran)
        );
        expect(result).toMatchObject({ ok: false, error: { code: "plan_required" } });
        expect(ran).toEqual([]);
    });

    it("process_read runs: it only reads output", async () => {
        const ran: string[] = [];
        const result = await callInPlanMode(
            recorded(createProcessReadTool(service) as AnyToolDefinition, ran)
        );
        expect(result).toMatchObject({ ok: true });
        expect(ran).toEqual(["process_read"]);
    });
});
