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

/** How long a run's first request waits for MCP servers to start. */
const MCP_STARTUP_WAIT_MS = 10_000;

/**
 * Gives MCP servers a bounded moment to start, so their tools are offered
 * from the first request (print mode's one prompt, an editor's first), and
 * says which failed or are not ready yet.
 */
export async function awaitMcpServers(
    mcp: McpManager,
    warn: (message: string) => void
): Promise<void> {
    await Promise.race([
        mcp.settled(),
        new Promise((resolve) => setTimeout(resolve, MCP_STARTUP_WAIT_MS).unref()),
    ]);
    for (const server of mcpReports(mcp)) {
        if (server.status === "failed") {
            warn(`MCP server "${server.name}" failed: ${server.error ?? "unknown error"}`);
        } else if (server.status === "pending") {
            warn(
                `MCP server "${server.name}" is not ready after ${MCP_STARTUP_WAIT_MS / 1000} s; its tools are not offered yet`
            );
        }
    }
}
