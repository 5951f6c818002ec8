import type { CommandDefinition } from "../types";

export const mcpCommand: CommandDefinition = {
    name: "mcp",
    description: "List MCP servers, their state and tools",
    usage: "/mcp",
    maxPositional: 0,
    async execute(ctx) {
        const servers = ctx.mcpServers();
        if (servers.length === 0) {
            return {
                message:
                    "No MCP servers. Add them to .mcp.json (project) or mcpServers in ~/.config/north/config.json.",
            };
        }
        const lines = servers.map((s) => {
            const head = `${s.name}: ${s.state}${s.error ? ` (${s.error})` : ""}`;
            return s.tools.length > 0 ? `${head}\n  ${s.tools.join(", ")}` : head;
        });
        return { message: lines.join("\n") };
    },
};
