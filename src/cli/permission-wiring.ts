/**
 * The permission rules of one session, from every settings layer: the
 * user's, the project's and the local file's `permissions`, merged by
 * concatenation with each rule's file kept. A project's allow rules count
 * only while the project is trusted; its deny and ask rules only take
 * permissions away, so they hold even in an untrusted project.
 */
import { homedir } from "node:os";
import type { ApprovalSettings } from "../agent/approvals";
import type { PermissionListing } from "../commands/types";
import type { createProjectApprovalSettings } from "../storage/project-settings";
import { LOCAL_SETTINGS_FILE, type SettingsLayer } from "../storage/settings/load";
import { PermissionRules } from "../tools/permissions/rules";
import type { AnyToolDefinition } from "../tools/types";
import type { CommandPatternFlags } from "./command-pattern-flags";
import { join } from "node:path";

export interface PermissionWiringInput {
    repoRoot: string;
    /** Every layer in force: the user's, then the project's when trusted. */
    layers: readonly SettingsLayer[];
    /** An untrusted project's layers: only their deny and ask rules count. */
    untrustedProjectLayers?: readonly SettingsLayer[];
    /** Live trust: a project's allow rules stop counting when it is lost. */
    isTrustedNow: () => boolean;
    tools: readonly AnyToolDefinition[];
    flags: CommandPatternFlags;
}

export interface SessionPermissions {
    rules: PermissionRules;
    warnings: string[];
    /** Exact commands of the older `allowedCommands` keys, with their files. */
    exactCommands: Array<{ command: string; source: string; active: () => boolean }>;
    notes: string[];
}

/** Tool names a bare rule may use: North's names, their Claude Code aliases, and Claude Code's own. */
function knownToolNames(tools: readonly AnyToolDefinition[]): Set<string> {
    const names = new Set(["Bash", "Read", "Edit", "Write", "MultiEdit", "Glob", "Grep", "LS"]);
    for (const tool of tools) {
        names.add(tool.name);
        for (const alias of tool.hookAliases ?? []) names.add(alias);
    }
    return names;
}

export function loadSessionPermissions(input: PermissionWiringInput): SessionPermissions {
    const rules = new PermissionRules(
        { projectRoot: input.repoRoot, home: homedir() },
        knownToolNames(input.tools)
    );
    const warnings: string[] = [];
    const exactCommands: SessionPermissions["exactCommands"] = [];
    const notes: string[] = [];
    for (const layer of input.layers) {
        const permissions = layer.settings.permissions;
        if (permissions) {
            warnings.push(
                ...rules.addSource({
                    source: layer.path,
                    permissions,
                    text: layer.text,
                    allowActive: layer.kind === "user" ? undefined : input.isTrustedNow,
                })
            );
        }
        for (const command of layer.settings.allowedCommands ?? []) {
            exactCommands.push({ command, source: layer.path, active: input.isTrustedNow });
        }
    }
    for (const pattern of input.flags.allow)
        rules.add("allow", `Bash(${pattern})`, "--allowed-command");
    for (const pattern of input.flags.deny)
        rules.add("deny", `Bash(${pattern})`, "--disallowed-command");
    let ignoredAllows = 0;
    for (const layer of input.untrustedProjectLayers ?? []) {
        const permissions = layer.settings.permissions;
        if (!permissions) continue;
        ignoredAllows += Array.isArray(permissions.allow) ? permissions.allow.length : 0;
        warnings.push(
            ...rules.addSource({
                source: layer.path,
                permissions: { deny: permissions.deny, ask: permissions.ask },
                text: layer.text,
            })
        );
    }
    if (ignoredAllows > 0) {
        notes.push(
            `${ignoredAllows} allow rule${ignoredAllows === 1 ? "" : "s"} of this project ${ignoredAllows === 1 ? "is" : "are"} ignored: the project is not trusted (its deny and ask rules apply).`
        );
    }
    return { rules, warnings, exactCommands, notes };
}

/**
 * The project's standing approvals with the rules in force: "always" with a
 * prefix adds a `Bash(...)` allow rule, saved in the local settings file when
 * it can be (else for this session).
 */
export function withPermissionRules(
    repoRoot: string,
    project: ReturnType<typeof createProjectApprovalSettings>,
    permissions: SessionPermissions
): ApprovalSettings {
    return {
        ...project,
        permissionRules: permissions.rules,
        allowCommandPattern: (pattern) => {
            const rule = `Bash(${pattern})`;
            const saved = project.saveAllowRule(rule);
            permissions.rules.add(
                "allow",
                rule,
                saved ? join(repoRoot, LOCAL_SETTINGS_FILE) : "this session"
            );
        },
    };
}

/** What `/permissions` lists: every rule with its source, and why some do not count. */
export function listPermissions(
    permissions: SessionPermissions,
    sessionCommands: () => readonly string[]
): PermissionListing {
    const rules: PermissionListing["rules"] = permissions.rules.list().map((rule) => ({
        kind: rule.kind,
        text: rule.text,
        source: rule.source,
        inForce: rule.active(),
        note: rule.target.type === "ignored" ? rule.target.note : undefined,
    }));
    for (const { command, source, active } of permissions.exactCommands) {
        rules.push({
            kind: "allow",
            text: `Bash(${command})`,
            source,
            inForce: active(),
            note: "exact",
        });
    }
    for (const command of sessionCommands()) {
        rules.push({
            kind: "allow",
            text: `Bash(${command})`,
            source: "this session",
            inForce: true,
            note: "exact",
        });
    }
    const notes = [...permissions.notes];
    if (rules.some((r) => !r.inForce)) {
        notes.push(
            "Rules marked (not in force) come from project files that are no longer trusted."
        );
    }
    return { rules, notes };
}
