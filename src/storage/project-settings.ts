/**
 * The standing approvals of one session and where they are kept:
 *
 * - the user's "don't ask again" answers: personal by default (the data
 *   folder, `standing-approvals.ts`, held without the repository's trust), or
 *   `.north/settings.local.json` when the user picks that scope (kept out of
 *   git through `.git/info/exclude`; written and counted only while the
 *   project is trusted);
 * - what the project's files set by hand (`allowedCommands`, `editsAutoAccept`,
 *   `shellAutoApprove` of `.north/settings.json` and the local file),
 *   honoured only while trusted; the older `.north/autoaccept.json` and
 *   `.north/allowlist.json` are moved once into the personal store
 *   (legacy-approvals.ts) and not read otherwise;
 * - answers for this session only ("every command", or a save that failed).
 *
 * Each can be listed with its file and removed (`/permissions`): from its file
 * (locked, atomic, other keys kept) and from the session at once.
 */
import { lstatSync, mkdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import {
    type JsonObject,
    addToList,
    editJsonObject,
    isJsonObject,
    removeFromList,
} from "./json-object-file";
import { LOCAL_SETTINGS_FILE, type SettingsLayer, parseProjectLayers } from "./settings/load";
import { migrateLegacyApprovals } from "./legacy-approvals";
import type { ApprovalSwitch, PersonalApprovalStore, StandingAnswer } from "./standing-approvals";
import { type ProjectTrust, readProjectConfig } from "./trust";
import { writeConfigFileAtomicSync } from "../util/atomic-write";
import { readRegularTextSync } from "../util/read-regular-file";

export const THIS_SESSION = "this session";

/** Removes a standing answer from the personal store (if any), then from this session. */
function removePersonal(
    store: PersonalApprovalStore | undefined,
    answer: StandingAnswer,
    forget: () => void
): { ok: boolean; message: string } {
    try {
        store?.remove(answer);
    } catch (error) {
        return { ok: false, message: `Not removed: ${(error as Error).message}` };
    }
    forget();
    return { ok: true, message: `Removed from ${store?.path ?? THIS_SESSION}.` };
}

/** Something a settings file holds that `/permissions` can remove. */
export type SettingsFileItem =
    | { allowCommand: string }
    | { rule: { kind: "allow" | "deny" | "ask"; text: string } }
    | { flag: "shellAutoApprove" | "editsAutoAccept" };

function removeItem(settings: JsonObject, item: SettingsFileItem): boolean {
    if ("allowCommand" in item)
        return removeFromList(settings, "allowedCommands", item.allowCommand);
    if ("rule" in item) {
        const permissions = settings.permissions;
        return (
            isJsonObject(permissions) && removeFromList(permissions, item.rule.kind, item.rule.text)
        );
    }
    if (!(item.flag in settings)) return false;
    delete settings[item.flag];
    return true;
}

/**
 * Removes `item` from the settings file at `path`, keeping its other keys;
 * false when absent. A project's file (`projectRoot`) must not lead out of it.
 */
export function removeFromSettingsFile(
    path: string,
    item: SettingsFileItem,
    projectRoot?: string
): boolean {
    return editJsonObject(path, (settings) => removeItem(settings, item), {
        newFileMode: 0o644,
        insideRoot: projectRoot,
    });
}

/** The line of `.git/info/exclude` that keeps the local settings file out of git. */
export const LOCAL_EXCLUDE_LINE = `/${LOCAL_SETTINGS_FILE}`;

/**
 * Keeps the local settings file out of git without a file in the work tree:
 * adds it to `.git/info/exclude` (neither tracked nor in the work tree) once,
 * atomically. Only for a repository whose `.git` is a real folder; anything
 * else (no repository, a linked worktree's `.git` file, a link) is left alone.
 */
function excludeLocalFile(repoRoot: string): void {
    const gitDir = join(repoRoot, ".git");
    try {
        if (!lstatSync(gitDir).isDirectory()) return;
    } catch {
        return;
    }
    const infoDir = join(gitDir, "info");
    mkdirSync(infoDir, { recursive: true });
    const path = join(infoDir, "exclude");
    let text = "";
    try {
        text = readRegularTextSync(path);
    } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    const names = [LOCAL_EXCLUDE_LINE, LOCAL_SETTINGS_FILE];
    if (text.split(/\r?\n/).some((line) => names.includes(line.trim()))) return;
    const prefix = text === "" || text.endsWith("\n") ? text : `${text}\n`;
    writeConfigFileAtomicSync(path, `${prefix}${LOCAL_EXCLUDE_LINE}\n`, {
        mode: 0o644,
        within: gitDir,
    });
}

/**
 * Saves `answer` in `.north/settings.local.json`, keeping every other key of
 * the file as written, and keeps it out of git (`.git/info/exclude`). Locked and atomic; a broken
 * file is left alone and the error says so. Throws when it cannot save.
 */
export function saveLocalAnswer(repoRoot: string, answer: ChatAnswer): void {
    const path = join(repoRoot, LOCAL_SETTINGS_FILE);
    editJsonObject(
        path,
        (settings) => {
            if ("allowCommand" in answer)
                return addToList(settings, "allowedCommands", answer.allowCommand);
            const permissions = isJsonObject(settings.permissions) ? settings.permissions : {};
            if (!addToList(permissions, "allow", answer.allowRule)) return false;
            settings.permissions = permissions;
            return true;
        },
        { newFileMode: 0o644, insideRoot: repoRoot }
    );
    excludeLocalFile(repoRoot);
}

/**
 * Sets `key` of `.north/settings.local.json` (the user's own output style),
 * keeping every other key, and keeps the file out of git. Locked and atomic;
 * a broken file is left alone. Throws when it cannot save.
 */
export function saveLocalSetting(repoRoot: string, key: string, value: unknown): void {
    editJsonObject(
        join(repoRoot, LOCAL_SETTINGS_FILE),
        (settings) => {
            if (settings[key] === value) return false;
            settings[key] = value;
            return true;
        },
        { newFileMode: 0o644, insideRoot: repoRoot }
    );
    excludeLocalFile(repoRoot);
}

/** A "don't ask again" given in the chat: an exact command, or a `Bash(...)` allow rule. */
type ChatAnswer = { allowCommand: string } | { allowRule: string };

/** A standing approval besides permission rules, as `/permissions` lists it. */
export interface StandingEntry {
    /** `Bash(npm test)` (exact), `every command`, `every edit`. */
    text: string;
    /** The file that holds it, or "this session". */
    source: string;
    inForce: boolean;
    note?: string;
    /** Removes it from its file and the session; returns what happened. */
    remove?: () => { ok: boolean; message: string };
    /** Why North does not remove it (a file of the repository's). */
    fixed?: string;
}

export interface ProjectApprovalOptions {
    /** The project's layers as loaded at start (trusted); read now when absent. */
    layers?: readonly SettingsLayer[];
    /** Where personal answers are kept; absent: they hold for this session only. */
    personal?: PersonalApprovalStore;
    /** A failed save or an unreadable personal file; the answer still holds for this session. */
    warn?: (message: string) => void;
}

type FlagName = ApprovalSwitch;

/** Where an answer is kept (agent/approvals.ts `AnswerScope`; storage cannot import it). */
type AnswerScope = "personal" | "local";

/** How /permissions names an exact standing answer: an MCP tool by its name, a command as `Bash(...)`. */
function exactEntryText(key: string): string {
    return /^mcp__\S+$/.test(key) ? key : `Bash(${key})`;
}

/** The session's standing approvals (see the file's comment). */
export function createProjectApprovalSettings(
    repoRoot: string,
    trust: ProjectTrust,
    options: ProjectApprovalOptions = {}
) {
    const warn = options.warn ?? (() => {});
    const layers =
        options.layers ?? parseProjectLayers(repoRoot, readProjectConfig(repoRoot).files).layers;
    const fileLayers = layers.filter((l) => l.kind !== "user");
    const localPath = join(repoRoot, LOCAL_SETTINGS_FILE);
    const trusted = (): boolean => trust.isTrustedNow();

    /** Exact commands of the project's files, by file. */
    const fileCommands = fileLayers.map((layer) => ({
        path: layer.path,
        commands: new Set(layer.settings.allowedCommands ?? []),
    }));
    /** Auto-approvals set by hand, by file, in precedence order (the last one setting a key wins). */
    const fileFlags = fileLayers.map((layer) => ({
        path: layer.path,
        flags: new Map<FlagName, boolean>(
            (["shellAutoApprove", "editsAutoAccept"] as const).flatMap((k) =>
                layer.settings[k] === undefined ? [] : [[k, layer.settings[k] === true] as const]
            )
        ),
    }));
    let personal = {
        allowedCommands: new Set<string>(),
        allowRules: [] as string[],
        switches: new Set<FlagName>(),
    };
    /** A switch is on in the personal store (the user's own), or set by the project's files while trusted. */
    const flagOn = (key: FlagName): boolean => {
        if (personal.switches.has(key)) return true;
        let on = false;
        for (const { flags } of fileFlags) on = flags.get(key) ?? on;
        return on && trusted();
    };
    /** The personal file as last read (another North session may change it): size, mtime, inode. */
    const personalStamp = (): string => {
        if (!options.personal) return "";
        try {
            const stat = statSync(options.personal.path);
            return `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
        } catch {
            return "absent";
        }
    };
    let readStamp = "";
    const loadPersonal = (): void => {
        if (!options.personal) return;
        readStamp = personalStamp();
        try {
            const read = options.personal.read();
            personal = {
                allowedCommands: new Set(read.allowedCommands),
                allowRules: read.allowRules,
                switches: new Set(read.switches),
            };
        } catch (error) {
            warn(`your standing approvals were not loaded: ${(error as Error).message}`);
        }
    };
    if (options.personal) {
        migrateLegacyApprovals({
            repoRoot,
            isTrustedNow: trusted,
            personal: options.personal,
            warn,
        });
    }
    loadPersonal();
    const sessionCommands = new Set<string>();
    let sessionAllCommands = false;

    /** Keeps `answer` where `scope` says; returns the file, or null when it holds for this session only. */
    const keep = (answer: ChatAnswer, scope: AnswerScope = "personal"): string | null => {
        try {
            if (scope === "local") {
                if (trust.recordOwnWrite(() => saveLocalAnswer(repoRoot, answer))) return localPath;
                warn(
                    `this answer holds for this session only: the project is not trusted, so ${LOCAL_SETTINGS_FILE} was not written`
                );
                return null;
            }
            if (!options.personal) return null;
            options.personal.add(answer);
            return options.personal.path;
        } catch (error) {
            warn(`this answer holds for this session only: ${(error as Error).message}`);
            return null;
        }
    };

    /** Removes `item` from the local settings file, as North's own write under trust. */
    const removeFromLocalFile = (item: SettingsFileItem): { ok: boolean; message: string } => {
        try {
            const written = trust.recordOwnWrite(() => {
                removeFromSettingsFile(localPath, item, repoRoot);
            });
            if (!written) {
                return {
                    ok: false,
                    message: `The project is not trusted now, so North does not write ${localPath}; edit it to remove this.`,
                };
            }
            return { ok: true, message: `Removed from ${localPath}.` };
        } catch (error) {
            return { ok: false, message: `Not removed: ${(error as Error).message}` };
        }
    };
    /** Removes `item` from a file of the project's: the local one only; the others are the repository's. */
    const removeFromProjectFile = (
        path: string,
        item: SettingsFileItem,
        fromSession: () => void
    ): StandingEntry["remove"] =>
        path === localPath
            ? () => {
                  const removed = removeFromLocalFile(item);
                  if (removed.ok) fromSession();
                  return removed;
              }
            : undefined;
    const repositoryFile = (path: string): string =>
        `${relative(repoRoot, path)} belongs to the repository (it may be committed): edit it to remove this`;

    return {
        isShellAutoApproved: () => sessionAllCommands || flagOn("shellAutoApprove"),
        isEditsAutoAccepted: () => flagOn("editsAutoAccept"),
        /** The local scope can keep an answer now (North writes the project's file only under trust). */
        keepsLocalAnswers: trusted,
        isCommandAllowed: (command: string) =>
            sessionCommands.has(command) ||
            personal.allowedCommands.has(command) ||
            (fileCommands.some((f) => f.commands.has(command)) && trusted()),
        allowCommand: (command: string, scope?: AnswerScope) => {
            const where = keep({ allowCommand: command }, scope);
            if (where === options.personal?.path) personal.allowedCommands.add(command);
            else if (where === localPath) {
                const local = fileCommands.find((f) => f.path === localPath);
                if (local) local.commands.add(command);
                else fileCommands.push({ path: localPath, commands: new Set([command]) });
            } else sessionCommands.add(command);
        },
        approveAllCommandsForSession: () => {
            sessionAllCommands = true;
        },
        /**
         * Reads the personal file again when it changed since (a removal in
         * another session's /permissions); true when it was read. One stat when not.
         */
        refreshPersonal: (): boolean => {
            if (!options.personal || personalStamp() === readStamp) return false;
            loadPersonal();
            return true;
        },
        /** The personal allow rules, to join the session's permission rules. */
        personalAllowRules: (): { rules: readonly string[]; source: string } => ({
            rules: personal.allowRules,
            source: options.personal?.path ?? THIS_SESSION,
        }),
        /**
         * Keeps a permission rule the user chose ("always" with a prefix);
         * returns the file it went to, or "this session".
         */
        keepAllowRule: (rule: string, scope?: AnswerScope): string =>
            keep({ allowRule: rule }, scope) ?? THIS_SESSION,
        /** The local settings file's path; North writes it only under trust. */
        localPath,
        removeFromLocalFile,
        /** Removes an allow rule kept in the personal file; the caller drops it from the session's rules. */
        removePersonalRule: (rule: string): { ok: boolean; message: string } => {
            if (!options.personal) return { ok: false, message: "No personal file is in use." };
            try {
                options.personal.remove({ allowRule: rule });
                return { ok: true, message: `Removed from ${options.personal.path}.` };
            } catch (error) {
                return { ok: false, message: `Not removed: ${(error as Error).message}` };
            }
        },
        /** Exact commands and auto-approvals, with their files, for `/permissions`. */
        entries(): StandingEntry[] {
            const entries: StandingEntry[] = [];
            for (const { path, flags } of fileFlags) {
                for (const [flag, on] of flags) {
                    if (!on) continue;
                    const what = flag === "shellAutoApprove" ? "every command" : "every edit";
                    entries.push({
                        text: what,
                        source: path,
                        inForce: trusted(),
                        note: flag,
                        remove: removeFromProjectFile(path, { flag }, () => flags.delete(flag)),
                        fixed: path === localPath ? undefined : repositoryFile(path),
                    });
                }
            }
            for (const { path, commands } of fileCommands) {
                for (const command of commands) {
                    entries.push({
                        text: exactEntryText(command),
                        source: path,
                        inForce: trusted(),
                        note: "exact",
                        remove: removeFromProjectFile(path, { allowCommand: command }, () =>
                            commands.delete(command)
                        ),
                        fixed: path === localPath ? undefined : repositoryFile(path),
                    });
                }
            }
            const store = options.personal;
            for (const flag of personal.switches) {
                entries.push({
                    text: flag === "shellAutoApprove" ? "every command" : "every edit",
                    source: store?.path ?? THIS_SESSION,
                    inForce: true,
                    note: flag,
                    remove: () =>
                        removePersonal(store, { on: flag }, () => personal.switches.delete(flag)),
                });
            }
            for (const command of personal.allowedCommands) {
                entries.push({
                    text: exactEntryText(command),
                    source: store?.path ?? THIS_SESSION,
                    inForce: true,
                    note: "exact",
                    remove: () =>
                        removePersonal(store, { allowCommand: command }, () =>
                            personal.allowedCommands.delete(command)
                        ),
                });
            }
            for (const command of sessionCommands) {
                entries.push({
                    text: exactEntryText(command),
                    source: THIS_SESSION,
                    inForce: true,
                    note: "exact",
                    remove: () => {
                        sessionCommands.delete(command);
                        return { ok: true, message: "Removed from this session." };
                    },
                });
            }
            if (sessionAllCommands) {
                entries.push({
                    text: "every command",
                    source: THIS_SESSION,
                    inForce: true,
                    remove: () => {
                        sessionAllCommands = false;
                        return { ok: true, message: "Commands are asked again." };
                    },
                });
            }
            return entries;
        },
    };
}

export type ProjectApprovals = ReturnType<typeof createProjectApprovalSettings>;
