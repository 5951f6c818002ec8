/**
 * Whether shell commands run in the OS sandbox, and how loose it is. The user
 * decides the shape (`sandbox: true` or `{ enabled, network, writable }` in
 * their config); `--sandbox` turns it on for one run; a project may turn it
 * on or take the network away, never turn it off or widen it, so a cloned
 * repository cannot loosen the user's sandbox.
 */
import { isAbsolute, join, normalize } from "node:path";

/** The `sandbox` setting as a settings file holds it (validated by the settings schema). */
export type SandboxSetting =
    | boolean
    | {
          /** Default true: writing the object is asking for the sandbox. */
          enabled?: boolean;
          /** Default false: no network at all, 127.0.0.1 included. */
          network?: boolean;
          /** Extra writable folders (absolute or `~/…`), user settings only. */
          writable?: string[];
      };

/** A sandbox in force: everything outside the project, its temp dir and `writable` is read-only. */
export interface SandboxPolicy {
    network: boolean;
    /** Absolute extra writable folders. */
    writable: string[];
}

/** One settings layer's value, with the file it came from (for messages). */
export interface SandboxSettingSource {
    value: SandboxSetting;
    file: string;
}

export interface SandboxInputs {
    /** The user's setting (the last user layer that sets it). */
    user?: SandboxSettingSource;
    /** Project and local layers that set it, lowest precedence first (trusted projects only). */
    project: readonly SandboxSettingSource[];
    /** `--sandbox` was given. */
    flag: boolean;
    home: string;
}

function enabledOf(value: SandboxSetting): boolean {
    return typeof value === "boolean" ? value : value.enabled !== false;
}

/** `~/x` under `home`; other relative paths are refused (whose cwd would they be relative to?). */
function absoluteFolder(entry: string, home: string): string | null {
    if (entry === "~") return home;
    if (entry.startsWith("~/")) return normalize(join(home, entry.slice(2)));
    return isAbsolute(entry) ? normalize(entry) : null;
}

/** Whether the flag or the user's own setting asks for the sandbox (before any project is read). */
export function userAsksForSandbox(flag: boolean, user: SandboxSetting | undefined): boolean {
    return flag || (user !== undefined && enabledOf(user));
}

/** The policy in force (null: commands run unsandboxed) and what was ignored, said once at start. */
export function resolveSandboxPolicy(inputs: SandboxInputs): {
    policy: SandboxPolicy | null;
    warnings: string[];
} {
    const warnings: string[] = [];
    const user = inputs.user?.value;
    let enabled = inputs.flag || (user !== undefined && enabledOf(user));
    let network = typeof user === "object" && user.network === true;
    const writable: string[] = [];
    if (typeof user === "object") {
        for (const entry of user.writable ?? []) {
            const folder = absoluteFolder(entry, inputs.home);
            if (folder === null) {
                warnings.push(
                    `${inputs.user!.file}: sandbox.writable "${entry}" must be an absolute path or start with ~/; ignored`
                );
            } else if (folder === "/") {
                warnings.push(
                    `${inputs.user!.file}: sandbox.writable "/" would make the sandbox pointless; ignored`
                );
            } else if (!writable.includes(folder)) writable.push(folder);
        }
    }
    for (const { value, file } of inputs.project) {
        const loosens: string[] = [];
        if (!enabledOf(value)) loosens.push("turn it off");
        if (typeof value === "object") {
            if (value.network === true) loosens.push("allow the network");
            if ((value.writable ?? []).length > 0) loosens.push("add writable folders");
            if (value.network === false) network = false;
        }
        if (enabledOf(value)) enabled = true;
        if (loosens.length > 0) {
            warnings.push(
                `${file}: a project may turn the sandbox on, not ${loosens.join(" or ")}; ` +
                    `that part is ignored (set it in ~/.config/north/config.json)`
            );
        }
    }
    return { policy: enabled ? { network, writable } : null, warnings };
}

/** What the sandbox allows, in a few words (reviews, the status line, the tool's description). */
export function describeSandbox(policy: SandboxPolicy): string {
    const net = policy.network ? "network allowed" : "no network";
    const extra = policy.writable.map((dir) => `, ${dir}`).join("");
    return `writes only in the project and $TMPDIR${extra}; ${net}`;
}
