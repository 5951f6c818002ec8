/**
 * Turns MCP servers that fail (at start: unreachable, timed out, crashed; or
 * later) into one warning each for the front-end, not only a status inside
 * `/mcp`. A server that recovers and fails again is reported again.
 */
import type { McpServerStatus } from "../../tools/mcp/manager";

export interface McpFailureSource {
    status(): McpServerStatus[];
    subscribe?(listener: () => void): () => void;
}

/** The warning for one failed server. */
export function mcpFailureText(server: McpServerStatus, wasReady: boolean): string {
    const what = wasReady ? "stopped" : "failed to start";
    return `MCP server ${server.name} ${what}: ${server.error ?? "no reason given"} — /mcp for details`;
}

export interface McpFailureListener {
    /** Once per failure, with the warning to show. */
    failed(name: string, text: string): void;
    /** The server runs or restarts: its failure is over. */
    recovered(name: string): void;
}

/** Reports each failure once; returns the unsubscribe. */
export function watchMcpFailures(
    source: McpFailureSource,
    listener: McpFailureListener
): () => void {
    const reported = new Set<string>();
    const ready = new Set<string>();
    const check = (): void => {
        for (const server of source.status()) {
            if (server.state === "ready") ready.add(server.name);
            if (server.state !== "failed") {
                // Running (again) or restarting: its next failure is news.
                if (reported.delete(server.name)) listener.recovered(server.name);
                continue;
            }
            if (reported.has(server.name)) continue;
            reported.add(server.name);
            listener.failed(server.name, mcpFailureText(server, ready.has(server.name)));
        }
    };
    const off = source.subscribe?.(check) ?? (() => undefined);
    check();
    return off;
}
