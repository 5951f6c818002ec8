import type { ClientWorkspace } from "../tools/client-workspace";
import type { AnyToolDefinition } from "../tools/types";
import { OutputCache } from "../agent/digest";
import { createBuiltinTools } from "../tools/index";
import { createToolRegistry } from "../tools/registry";
import type { CommandSandbox } from "../tools/sandbox/command-sandbox";
import { type ShellServiceOptions, createShellService } from "../tools/shell-service";
import { proxiedRequest, proxyFor } from "../providers/proxy";
import type { ProxyRouter } from "../tools/web-fetch-http";
import type { LanguageService } from "../tools/lsp/types";
import { dataDir } from "../storage/paths";
import { join } from "node:path";

export interface ToolsetOptions {
    /** Variables kept from commands (provider keys), see `secretEnvNames`. */
    hiddenEnv?: readonly string[];
    /** Commands run in this OS sandbox (`--sandbox`, the `sandbox` setting). */
    sandbox?: CommandSandbox;
    /** Commands' base environment; default `process.env`. */
    env?: NodeJS.ProcessEnv;
    /** The user's `webFetch.allowPrivateNetwork`: web_fetch may reach loopback and private hosts. */
    webFetchAllowPrivateNetwork?: boolean;
    /** The session's language servers (a trusted project's): the lsp tools are offered when some binary was found. */
    languages?: LanguageService;
    /** An editor's files and terminals (ACP): read, write and run through them (tools/client-workspace.ts). */
    workspace?: ClientWorkspace;
    /** Running background processes at most (`processes.max`); default 8. */
    maxProcesses?: number;
    /** Starts background programs instead of North's own spawn (an editor's terminals). */
    startProcessIo?: ShellServiceOptions["startProcessIo"];
}

/** web_fetch goes through the same HTTPS_PROXY / NO_PROXY reading as the providers. */
const webFetchProxy: ProxyRouter = (target, headers) => {
    const found = proxyFor(target, process.env);
    if (!found.ok) throw new Error(found.error);
    return found.proxy ? proxiedRequest(target, found.proxy, headers) : undefined;
};

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
        env: options.env,
        terminals: options.workspace?.terminals,
        maxProcesses: options.maxProcesses,
        spillDir: join(dataDir(), "processes"),
        startProcessIo: options.startProcessIo,
    });
    const registry = createToolRegistry([
        ...createBuiltinTools({
            expandOutput: (id) => outputs.get(id),
            shell,
            webFetch: {
                allowPrivateNetwork: options.webFetchAllowPrivateNetwork === true,
                proxy: webFetchProxy,
            },
            languages: options.languages,
            files: options.workspace?.files,
        }),
        ...extraTools,
    ]);
    return {
        registry,
        outputs,
        /** The conversation's background processes (the engine forwards their events). */
        processes: shell.processes,
        dispose: () => shell.dispose(),
    };
}
