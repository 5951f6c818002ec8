import { userConfigPath } from "../../storage/settings/plain-load";
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
                // The file North reads here, NORTH_CONFIG_DIR and XDG_CONFIG_HOME included.
                message: `No MCP servers. Add them to .mcp.json (project) or mcpServers in ${userConfigPath()}.`,
            };
        }
        const lines = servers.map((s) => {
            const head = `${s.name}: ${s.state}${s.error ? ` (${s.error})` : ""}`;
            return s.tools.length > 0 ? `${head}\n  ${s.tools.join(", ")}` : head;
        });
        return { message: lines.join("\n") };
    },
};
