import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomicSync } from "./conversations/io";
import type { ProjectTrust } from "./trust";

/** `.north/autoaccept.json`. */
export interface AutoAcceptSettings {
    editsAutoAccept: boolean;
    shellAutoApprove: boolean;
}

/** `.north/allowlist.json`: exact command strings, never patterns. */
export interface Allowlist {
    allowedCommands: string[];
}

function northDir(repoRoot: string): string {
    return join(repoRoot, ".north");
}

function readJson(path: string): unknown {
    try {
        return JSON.parse(readFileSync(path, "utf8"));
    } catch {
        return null; // missing or unreadable: no standing permission
    }
}

function writeJsonAtomic(path: string, value: unknown): void {
    mkdirSync(join(path, ".."), { recursive: true });
    // Project files may be committed: readable like any other file in the repo.
    writeFileAtomicSync(path, JSON.stringify(value, null, 2) + "\n", false, 0o644);
}

export function loadAutoAccept(repoRoot: string): AutoAcceptSettings {
    const raw = readJson(
        join(northDir(repoRoot), "autoaccept.json")
    ) as Partial<AutoAcceptSettings> | null;
    return {
        editsAutoAccept: raw?.editsAutoAccept === true,
        shellAutoApprove: raw?.shellAutoApprove === true,
    };
}

export function saveAutoAccept(repoRoot: string, change: Partial<AutoAcceptSettings>): void {
    writeJsonAtomic(join(northDir(repoRoot), "autoaccept.json"), {
        ...loadAutoAccept(repoRoot),
        ...change,
    });
}

export function loadAllowlist(repoRoot: string): string[] {
    const raw = readJson(join(northDir(repoRoot), "allowlist.json")) as Partial<Allowlist> | null;
    return Array.isArray(raw?.allowedCommands)
        ? raw.allowedCommands.filter((c): c is string => typeof c === "string")
        : [];
}

export function addToAllowlist(repoRoot: string, command: string): void {
    const current = loadAllowlist(repoRoot);
    if (current.includes(command)) return;
    writeJsonAtomic(join(northDir(repoRoot), "allowlist.json"), {
        allowedCommands: [...current, command],
    });
}

/**
 * The project's standing permissions, read fresh at each check so a change
 * made by another North process is honoured — but only while the project's
 * gated files are trusted (`trust`): an allowlist or auto-approval that a
 * repository ships, or that something rewrote behind North's back, grants
 * nothing. The user's own answers always hold for this session; they are
 * saved to the project only when it is trusted. Persisting failures are
 * swallowed: the decision still holds for this session.
 */
export function createProjectApprovalSettings(repoRoot: string, trust: ProjectTrust) {
    const sessionAllowed = new Set<string>();
    let sessionShellAuto = false;
    let sessionEditsAuto = false;
    const persist = (write: () => void): void => {
        try {
            trust.recordOwnWrite(write);
        } catch {
            // read-only project: the permission lasts for this session only
        }
    };
    const autoAccept = (): AutoAcceptSettings =>
        trust.isTrustedNow()
            ? loadAutoAccept(repoRoot)
            : { editsAutoAccept: false, shellAutoApprove: false };
    return {
        isShellAutoApproved: () => sessionShellAuto || autoAccept().shellAutoApprove,
        isCommandAllowed: (command: string) =>
            sessionAllowed.has(command) ||
            (trust.isTrustedNow() && loadAllowlist(repoRoot).includes(command)),
        allowCommand: (command: string) => {
            sessionAllowed.add(command);
            persist(() => addToAllowlist(repoRoot, command));
        },
        enableShellAutoApprove: () => {
            sessionShellAuto = true;
            persist(() => saveAutoAccept(repoRoot, { shellAutoApprove: true }));
        },
        isEditsAutoAccepted: () => sessionEditsAuto || autoAccept().editsAutoAccept,
        enableEditsAutoAccept: () => {
            sessionEditsAuto = true;
            persist(() => saveAutoAccept(repoRoot, { editsAutoAccept: true }));
        },
    };
}
