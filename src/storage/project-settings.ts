/**
 * The project's standing permissions (settings/load.ts: `allowedCommands`,
 * `editsAutoAccept`, `shellAutoApprove` of the project and local layers) and
 * where the user's "always" answers are saved: `.north/settings.local.json`,
 * personal and git-ignored through `.north/.gitignore`. The older
 * `.north/autoaccept.json` and `.north/allowlist.json` are still read but
 * never written; they stay as they are.
 */
import { mkdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { writeConfigFileAtomicSync } from "../util/atomic-write";
import { withFileLock } from "./file-lock";
import {
    LOCAL_SETTINGS_FILE,
    type StandingApprovals,
    approvalsOf,
    mergeLayers,
    parseProjectLayers,
} from "./settings/load";
import { type ProjectTrust, readProjectConfig } from "./trust";
import { readRegularTextSync } from "../util/read-regular-file";

/** One "always" answer, as saved in the local settings file. */
export type ApprovalChoice =
    | { allowCommand: string }
    /** A permission rule for `permissions.allow`: `Bash(npm test:*)`. */
    | { allowRule: string }
    | { editsAutoAccept: true }
    | { shellAutoApprove: true };

function appendUnique(list: unknown, item: string): unknown[] | null {
    const current = Array.isArray(list) ? (list as unknown[]) : [];
    return current.includes(item) ? null : [...current, item];
}

function readObject(path: string): Record<string, unknown> {
    let text: string;
    try {
        text = readRegularTextSync(path);
    } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
        throw error;
    }
    if (text.trim() === "") return {};
    let json: unknown;
    try {
        json = JSON.parse(text);
    } catch (error) {
        throw new Error(
            `${path} is not valid JSON (${(error as Error).message}); it was left as is`
        );
    }
    if (typeof json !== "object" || json === null || Array.isArray(json)) {
        throw new Error(`${path} is not a JSON object; it was left as is`);
    }
    return json as Record<string, unknown>;
}

/** Keeps the personal file out of git: adds it to `.north/.gitignore` once. */
function ignoreLocalFile(northDir: string): void {
    const path = join(northDir, ".gitignore");
    const name = "settings.local.json";
    let text = "";
    try {
        text = readRegularTextSync(path);
    } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    if (text.split(/\r?\n/).some((line) => line.trim() === name || line.trim() === `/${name}`))
        return;
    const prefix = text === "" || text.endsWith("\n") ? text : `${text}\n`;
    writeConfigFileAtomicSync(path, `${prefix}${name}\n`, {
        mode: 0o644,
        within: dirname(northDir),
    });
}

/**
 * Saves `choice` in `.north/settings.local.json`, keeping every other key of
 * the file as written. Locked and atomic; a broken file is left alone and the
 * error says so. Throws when it cannot save.
 */
export function saveApprovalChoice(repoRoot: string, choice: ApprovalChoice): void {
    const path = join(repoRoot, LOCAL_SETTINGS_FILE);
    mkdirSync(dirname(path), { recursive: true });
    withFileLock(path, () => {
        const settings = readObject(path);
        if ("allowCommand" in choice) {
            const next = appendUnique(settings.allowedCommands, choice.allowCommand);
            if (next === null) return;
            settings.allowedCommands = next;
        } else if ("allowRule" in choice) {
            const permissions =
                typeof settings.permissions === "object" &&
                settings.permissions !== null &&
                !Array.isArray(settings.permissions)
                    ? (settings.permissions as Record<string, unknown>)
                    : {};
            const next = appendUnique(permissions.allow, choice.allowRule);
            if (next === null) return;
            settings.permissions = { ...permissions, allow: next };
        } else Object.assign(settings, choice);
        let mode = 0o644;
        try {
            mode = statSync(path).mode & 0o777;
        } catch {
            // new file: readable like any other file in the project
        }
        writeConfigFileAtomicSync(path, JSON.stringify(settings, null, 2) + "\n", {
            mode,
            within: repoRoot,
        });
    });
    ignoreLocalFile(dirname(path));
}

/** The standing approvals of the project's files as they are now (tests, one-off callers). */
export function readStandingApprovals(repoRoot: string): StandingApprovals {
    return approvalsOf(
        mergeLayers(parseProjectLayers(repoRoot, readProjectConfig(repoRoot).files).layers)
    );
}

/**
 * The project's standing permissions as loaded at start (`loaded`, read now
 * when not given), honoured only while the project's gated files are trusted
 * (`trust`): an allowlist or auto-approval that a repository ships, or that
 * something rewrote behind North's back, grants nothing. The user's own
 * answers always hold for this session; they are saved to the local settings
 * only when the project is trusted. A failed save is reported through `warn`;
 * the decision still holds for this session.
 */
export function createProjectApprovalSettings(
    repoRoot: string,
    trust: ProjectTrust,
    loaded: StandingApprovals = readStandingApprovals(repoRoot),
    warn: (message: string) => void = () => {}
) {
    const standing: StandingApprovals = {
        ...loaded,
        allowedCommands: [...loaded.allowedCommands],
    };
    const sessionAllowed = new Set<string>();
    let sessionShellAuto = false;
    let sessionEditsAuto = false;
    const persist = (choice: ApprovalChoice): boolean => {
        try {
            const saved = trust.recordOwnWrite(() => saveApprovalChoice(repoRoot, choice));
            if (!saved) return false;
            if ("allowCommand" in choice) standing.allowedCommands.push(choice.allowCommand);
            else if (!("allowRule" in choice)) Object.assign(standing, choice);
            return true;
        } catch (error) {
            warn(`this answer holds for this session only: ${(error as Error).message}`);
            return false;
        }
    };
    const trusted = (): boolean => trust.isTrustedNow();
    return {
        isShellAutoApproved: () => sessionShellAuto || (standing.shellAutoApprove && trusted()),
        isCommandAllowed: (command: string) =>
            sessionAllowed.has(command) ||
            (standing.allowedCommands.includes(command) && trusted()),
        allowCommand: (command: string) => {
            sessionAllowed.add(command);
            persist({ allowCommand: command });
        },
        /** Exact commands allowed by an "always" answer of this session. */
        sessionCommands: (): string[] => [...sessionAllowed],
        /**
         * Saves a permission rule the user chose ("always" with a prefix);
         * true when it reached the local settings file.
         */
        saveAllowRule: (rule: string): boolean => persist({ allowRule: rule }),
        enableShellAutoApprove: () => {
            sessionShellAuto = true;
            persist({ shellAutoApprove: true });
        },
        isEditsAutoAccepted: () => sessionEditsAuto || (standing.editsAutoAccept && trusted()),
        enableEditsAutoAccept: () => {
            sessionEditsAuto = true;
            persist({ editsAutoAccept: true });
        },
    };
}
