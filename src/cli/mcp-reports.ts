/** The MCP servers' states in stream-json's `init` line and print mode's warnings. */
import type { McpServerReport } from "../headless/print-mode";
import type { McpManager, McpServerState } from "../tools/mcp/manager";

const MCP_STATUS: Record<McpServerState, McpServerReport["status"]> = {
    ready: "connected",
    starting: "pending",
    failed: "failed",
    stopped: "stopped",
};

/** Each server's state, in Claude Code's words. */
export function mcpReports(mcp: McpManager): McpServerReport[] {
    return mcp.status().map((server) => ({
        name: server.name,
        status: MCP_STATUS[server.state],
        ...(server.error ? { error: server.error } : {}),
    }));
}
