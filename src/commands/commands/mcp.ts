import { userConfigPath } from "../../storage/settings/plain-load";
import { type CommandDefinition, result, submit } from "../types";

export const mcpCommand: CommandDefinition = {
    name: "mcp",
    description: "List MCP servers, their state and tools",
    usage: "/mcp",
    maxPositional: 0,
    plan: () =>
        submit({ type: "mcp_servers" }, (servers) => {
            if (servers.length === 0) {
                // The file North reads here, NORTH_CONFIG_DIR and XDG_CONFIG_HOME included.
                return result(
                    `No MCP servers. Add them to .mcp.json (project) or mcpServers in ${userConfigPath()}.`
                );
            }
            const lines = servers.map((s) => {
                const from = s.plugin !== undefined ? ` [plugin ${s.plugin}]` : "";
                const head = `${s.name}${from}: ${s.state}${s.error ? ` (${s.error})` : ""}`;
                return s.tools.length > 0 ? `${head}\n  ${s.tools.join(", ")}` : head;
            });
            return result(lines.join("\n"));
        }),
};
