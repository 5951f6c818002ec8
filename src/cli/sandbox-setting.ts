/**
 * The session's sandbox from `--sandbox` and the `sandbox` setting of each
 * layer read (the project's only when trusted): the user's layer decides the
 * shape, a project's may only tighten it (tools/sandbox/policy.ts).
 */
import { homedir } from "node:os";
import type { SettingsLayer } from "../storage/settings/load";
import {
    type CommandSandbox,
    type CommandSandboxOptions,
    createCommandSandbox,
} from "../tools/sandbox/command-sandbox";
import { type SandboxSettingSource, resolveSandboxPolicy } from "../tools/sandbox/policy";

/**
 * The sandbox commands run in, or undefined when none was asked for. Problems go to `warn`.
 * `addedDirs` (`--add-dir`, the user's own flag) are writable inside, as they are to the tools.
 */
export function createSessionSandbox(
    layers: readonly SettingsLayer[],
    flag: boolean,
    warn: (message: string) => void,
    options: Omit<CommandSandboxOptions, "onUnavailable"> = {},
    addedDirs: readonly string[] = []
): CommandSandbox | undefined {
    let user: SandboxSettingSource | undefined;
    const project: SandboxSettingSource[] = [];
    for (const layer of layers) {
        const value = layer.settings.sandbox;
        if (value === undefined) continue;
        if (layer.kind === "user") user = { value, file: layer.path };
        else project.push({ value, file: layer.path });
    }
    const { policy, warnings } = resolveSandboxPolicy({
        user,
        project,
        flag,
        home: options.home ?? homedir(),
    });
    warnings.forEach((message) => warn(message));
    if (policy === null) return undefined;
    const writable = [...policy.writable, ...addedDirs.filter((d) => !policy.writable.includes(d))];
    return createCommandSandbox({ ...policy, writable }, { ...options, onUnavailable: warn });
}
