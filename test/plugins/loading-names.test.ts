/**
 * Plugin command names without a session: full names always, bare names
 * only when free, every hidden name a collision, the registry updated when
 * plugins change, and editors over ACP offered the full names.
 */
import { describe, expect, it } from "vitest";
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
