/**
 * Plugin command names without a session: full names always, bare names
 * only when free, every hidden name a collision, the registry updated when
 * plugins change, and editors over ACP offered the full names.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readPluginAgentDefinitions } from "../../src/project/agent-definitions";
import { availableCommands } from "../../src/cli/acp/slash-commands";
import { createCustomCommands } from "../../src/commands/custom-commands";
import { BUILTIN_COMMANDS } from "../../src/commands/index";
import { createCommandRegistry } from "../../src/commands/registry";
import type { CustomCommand } from "../../src/project/custom-commands";

function command(name: string, plugin?: string, scope: "user" | "project" = "user"): CustomCommand {
    return {
        name,
        description: `${name} text`,
        body: `${name} body`,
        file: `/x/${name}.md`,
        scope,
        ...(plugin ? { plugin } : {}),
    };
}

describe("plugin command names", () => {
    it("keeps built-ins and own commands first; the first plugin takes a free bare name", () => {
        const registry = createCommandRegistry(BUILTIN_COMMANDS);
        const customs = createCustomCommands(registry);
        customs.add([
            command("alpha:greet", "alpha@m"),
            command("alpha:review", "alpha@m"),
            command("gamma:greet", "gamma@m"),
            command("deploy", undefined, "project"),
            command("gamma:deploy", "gamma@m"),
        ]);
        expect(registry.get("greet")?.name).toBe("alpha:greet");
        expect(registry.get("review")?.name).toBe("review");
        expect(registry.get("deploy")?.name).toBe("deploy");
        expect(registry.get("gamma:greet")?.plugin).toBe("gamma@m");
        expect(registry.collisions()).toEqual([
            "/review: the built-in /review runs; the plugin's is /alpha:review",
            "/greet: alpha:greet and gamma:greet — /greet runs alpha:greet; use the full names",
            "/deploy: /deploy (project command /x/deploy.md) runs; the plugin's is /gamma:deploy",
        ]);

        // alpha disabled: its commands leave, gamma's /greet becomes reachable bare.
        customs.setPluginCommands([command("gamma:greet", "gamma@m")]);
        expect(registry.get("alpha:greet")).toBeUndefined();
        expect(registry.get("greet")?.name).toBe("gamma:greet");
        expect(registry.collisions()).toEqual([]);
    });

    it("offers editors the plugin commands by their full names", () => {
        const names = availableCommands({
            skills: [],
            customCommands: [command("alpha:greet", "alpha@m")],
        }).map((c) => c.name);
        expect(names).toContain("alpha:greet");
        expect(names).not.toContain("greet");
    });
});

describe("a plugin's agent definition", () => {
    it("is named plugin:agent, expands the plugin's variables, and ignores hooks, mcpServers and permissionMode", async () => {
        const root = mkdtempSync(join(tmpdir(), "north-plugin-agent-"));
        try {
            mkdirSync(join(root, "agents"));
            const file = join(root, "agents", "helper.md");
            writeFileSync(
                file,
                "---\nname: helper\ndescription: Helps\npermissionMode: bypassPermissions\nmcpServers: x\nhooks: y\n---\nScripts are in ${CLAUDE_PLUGIN_ROOT}/bin.\n"
            );
            const found = await readPluginAgentDefinitions(
                { id: "alpha@m", root, agents: [{ name: "alpha:helper", file }] },
                (text) => text.replaceAll("${CLAUDE_PLUGIN_ROOT}", root)
            );
            expect(found.agents.map((a) => [a.name, a.plugin, a.prompt])).toEqual([
                ["alpha:helper", "alpha@m", `Scripts are in ${root}/bin.`],
            ]);
            expect(found.warnings).toEqual([
                `${file}: "hooks" is ignored in a plugin's agent (plugin alpha@m)`,
                `${file}: "mcpServers" is ignored in a plugin's agent (plugin alpha@m)`,
                `${file}: "permissionMode" is ignored in a plugin's agent (plugin alpha@m)`,
            ]);
        } finally {
            rmSync(root, { recursive: true, force: true });
        }
    });
});
