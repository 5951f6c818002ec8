import { describe, expect, it } from "vitest";
import { watchMcpFailures } from "../../../src/agent/host/mcp-failures";
import type { McpServerStatus } from "../../../src/tools/mcp/manager";

function server(name: string, state: McpServerStatus["state"], error?: string): McpServerStatus {
    return {
        name,
        transport: "stdio",
        scope: "user",
        state,
        ...(error ? { error } : {}),
        tools: [],
        toolNames: [],
    };
}

describe("MCP servers that fail", () => {
    it("are reported once per failure, again after a recovery, and say whether they ever ran", () => {
        let statuses = [server("docs", "starting"), server("db", "starting")];
        let changed = (): void => undefined;
        const warnings: string[] = [];
        watchMcpFailures(
            {
                status: () => statuses,
                subscribe: (listener) => {
                    changed = listener;
                    return () => undefined;
                },
            },
            {
                failed: (_name, text) => warnings.push(text),
                recovered: (name) => warnings.push(`recovered ${name}`),
            }
        );
        expect(warnings).toEqual([]);
        statuses = [server("docs", "failed", "connection refused"), server("db", "ready")];
        changed();
        changed();
        expect(warnings).toEqual([
            "MCP server docs failed to start: connection refused — /mcp for details",
        ]);
        statuses = [
            server("docs", "starting"),
            server("db", "failed", "the process exited (code 1)"),
        ];
        changed();
        statuses = [server("docs", "failed", "timed out after 30 s"), statuses[1]!];
        changed();
        expect(warnings.slice(1)).toEqual([
            "recovered docs",
            "MCP server db stopped: the process exited (code 1) — /mcp for details",
            "MCP server docs failed to start: timed out after 30 s — /mcp for details",
        ]);
    });
});
