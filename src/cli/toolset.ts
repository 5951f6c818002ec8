import type { AnyToolDefinition } from "../tools/types";
import { OutputCache } from "../agent/digest";
import { createExpandOutputTool } from "../tools/expand-output";
import { createEditTools, createReadTools } from "../tools/index";
import { createToolRegistry } from "../tools/registry";
import { createShellRunTool } from "../tools/shell-run";
import { createShellService } from "../tools/shell-service";

export interface ToolsetOptions {
    /** Variables kept from commands (provider keys), see `secretEnvNames`. */
    hiddenEnv?: readonly string[];
}

/** Every tool of one conversation, with the services they share and how to dispose of them. */
export function createConversationToolset(
    repoRoot: string,
    extraTools: AnyToolDefinition[] = [],
    options: ToolsetOptions = {}
) {
    const outputs = new OutputCache();
    const shell = createShellService(repoRoot, { hiddenEnv: options.hiddenEnv });
    const registry = createToolRegistry([
        ...createReadTools(),
        createExpandOutputTool((id) => outputs.get(id)),
        ...createEditTools(),
        createShellRunTool(shell),
        ...extraTools,
    ]);
    return {
        registry,
        outputs,
        dispose: () => shell.dispose(),
    };
}
