/**
 * The permission rules of one session, from every settings layer: the
 * user's, the project's and the local file's `permissions`, merged by
 * concatenation with each rule's file kept. A project's allow rules count
 * only while the project is trusted; its deny and ask rules only take
 * permissions away, so they hold even in an untrusted project.
 */
import { homedir } from "node:os";
import type { ApprovalSettings } from "../agent/approvals";
import { relative } from "node:path";
import type { PermissionEntry, PermissionListing } from "../agent/protocol";
import {
    type ProjectApprovals,
    THIS_SESSION,
    removeFromSettingsFile,
} from "../storage/project-settings";
import type { SettingsLayer } from "../storage/settings/load";
import { type PermissionRule, PermissionRules } from "../tools/permissions/rules";
import type { AnyToolDefinition } from "../tools/types";
import type { CommandPatternFlags } from "./command-pattern-flags";

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
    notes: string[];
    /** Each settings file's layer kind, to tell the user's files from the repository's. */
    fileKinds: Map<string, SettingsLayer["kind"]>;
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
    const notes: string[] = [];
    const fileKinds = new Map<string, SettingsLayer["kind"]>();
    for (const layer of [...input.layers, ...(input.untrustedProjectLayers ?? [])])
        fileKinds.set(layer.path, layer.kind);
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
    return { rules, warnings, notes, fileKinds };
}

/**
 * The session's standing approvals with the rules in force: the personal
 * allow rules join them, and "always" with a prefix adds a `Bash(...)` allow
 * rule kept where the answer's scope says (else for this session).
 */
export function withPermissionRules(
    project: ProjectApprovals,
    permissions: SessionPermissions
): ApprovalSettings {
    const personal = project.personalAllowRules();
    for (const rule of personal.rules) {
        const problem = permissions.rules.add("allow", rule, personal.source);
        if (problem !== null)
            permissions.warnings.push(
                `${personal.source}: ${rule}: ${problem}; this rule is ignored`
            );
    }
    /** The personal allow rules in force follow the file when another session changed it. */
    const refreshStanding = (): void => {
        if (!project.refreshPersonal()) return;
        const wanted = new Set(project.personalAllowRules().rules);
        for (const rule of permissions.rules.list()) {
            if (rule.source !== personal.source || rule.kind !== "allow") continue;
            if (!wanted.delete(rule.text)) permissions.rules.remove(rule);
        }
        for (const rule of wanted) permissions.rules.add("allow", rule, personal.source);
    };
    return {
        ...project,
        refreshStanding,
        permissionRules: permissions.rules,
        allowCommandPattern: (pattern, scope) => {
            const rule = `Bash(${pattern})`;
            permissions.rules.add("allow", rule, project.keepAllowRule(rule, scope));
        },
    };
}

type Removal = { ok: boolean; message: string };

/** One line of `/permissions` with how to remove it. */
interface CatalogEntry {
    entry: PermissionEntry;
    remove?: () => Removal;
}

/**
 * What `/permissions` lists (every rule and standing approval with its file,
 * deny then ask then allow, numbered from 1 in that order) and removes.
 */
export function createPermissionCatalog(
    permissions: SessionPermissions,
    project: ProjectApprovals,
    flagGrants: () => Array<{ text: string; flag: string }> = () => []
) {
    const personalSource = project.personalAllowRules().source;
    const ruleEntry = (rule: PermissionRule): CatalogEntry => {
        const entry: PermissionEntry = {
            kind: rule.kind,
            text: rule.text,
            source: rule.source,
            inForce: rule.active(),
            note: rule.target.type === "ignored" ? rule.target.note : undefined,
        };
        const item = { rule: { kind: rule.kind, text: rule.text } };
        const dropped = (removal: Removal): Removal => {
            if (removal.ok) permissions.rules.remove(rule);
            return removal;
        };
        const kind = permissions.fileKinds.get(rule.source);
        if (rule.source === THIS_SESSION)
            return {
                entry,
                remove: () => dropped({ ok: true, message: "Removed from this session." }),
            };
        if (rule.source === personalSource)
            return { entry, remove: () => dropped(project.removePersonalRule(rule.text)) };
        if (rule.source === project.localPath)
            return { entry, remove: () => dropped(project.removeFromLocalFile(item)) };
        if (kind === "user") {
            return {
                entry,
                remove: () => {
                    try {
                        removeFromSettingsFile(rule.source, item);
                        return dropped({ ok: true, message: `Removed from ${rule.source}.` });
                    } catch (error) {
                        return { ok: false, message: `Not removed: ${(error as Error).message}` };
                    }
                },
            };
        }
        entry.fixed =
            kind === "project"
                ? `${relative(permissions.rules.bases.projectRoot, rule.source)} belongs to the repository (it may be committed): edit it to remove this`
                : `given on the command line (${rule.source}): start North without it`;
        return { entry };
    };
    const catalog = (): CatalogEntry[] => {
        const all = [
            ...permissions.rules.list().map(ruleEntry),
            ...project.entries().map(({ remove, ...entry }): CatalogEntry => ({
                entry: { kind: "allow", ...entry },
                remove,
            })),
            ...flagGrants().map(({ text, flag }): CatalogEntry => ({
                entry: {
                    kind: "allow",
                    text,
                    source: flag,
                    inForce: true,
                    fixed: `given on the command line (${flag}): start North without it`,
                },
            })),
        ];
        return ["deny", "ask", "allow"].flatMap((kind) => all.filter((e) => e.entry.kind === kind));
    };
    return {
        list(): PermissionListing {
            const rules = catalog().map((e) => e.entry);
            const notes = [...permissions.notes];
            if (rules.some((r) => !r.inForce)) {
                notes.push(
                    "Entries marked (not in force) come from project files that are no longer trusted."
                );
            }
            return { rules, notes };
        },
        /** Removes entry `number` (1-based, as listed) from its file and the session. */
        remove(number: number): Removal {
            const found = catalog()[number - 1];
            if (!found) return { ok: false, message: `There is no entry ${number}.` };
            const { entry, remove } = found;
            if (!remove) return { ok: false, message: `${entry.text} stays: ${entry.fixed}.` };
            const removed = remove();
            return removed.ok
                ? { ok: true, message: `Removed ${entry.text}. ${removed.message}` }
                : removed;
        },
    };
}
