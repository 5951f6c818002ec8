import type { AnyToolDefinition } from "../tools/types";
import { OutputCache } from "../agent/digest";
import { createBuiltinTools } from "../tools/index";
import { createToolRegistry } from "../tools/registry";
import type { CommandSandbox } from "../tools/sandbox/command-sandbox";
import { createShellService } from "../tools/shell-service";

export interface ToolsetOptions {
    /** Variables kept from commands (provider keys), see `secretEnvNames`. */
    hiddenEnv?: readonly string[];
    /** Commands run in this OS sandbox (`--sandbox`, the `sandbox` setting). */
    sandbox?: CommandSandbox;
}

/** Every tool of one conversation, with the services they share and how to dispose of them. */
export function createConversationToolset(
    repoRoot: string,
    extraTools: AnyToolDefinition[] = [],
    options: ToolsetOptions = {}
) {
    const outputs = new OutputCache();
    const shell = createShellService(repoRoot, {
        hiddenEnv: options.hiddenEnv,
        sandbox: options.sandbox,
    });
    const registry = createToolRegistry([
        ...createBuiltinTools({ expandOutput: (id) => outputs.get(id), shell }),
        ...extraTools,
    ]);
    return {
        registry,
        outputs,
        dispose: () => shell.dispose(),
    };
}
