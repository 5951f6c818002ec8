import type { ApprovalRequest, ApprovalSettings, Approver } from "../agent/approvals";
import { denyAll } from "../agent/approvals";

export interface PrintPermissionFlags {
    /** `--allow-edits`: apply every edit without review. */
    allowEdits: boolean;
    /** `--allow-config-edits`: with `--allow-edits`, also protected configuration files. */
    allowConfigEdits: boolean;
    /** `--allow-shell`: run every command. */
    allowShell: boolean;
    /**
     * `--allowed-command CMD` (repeatable): these exact strings run; as
     * patterns (`npm test:*`) they are allow rules of the session already.
     */
    allowedCommands: string[];
}

/**
 * Print mode cannot ask, so its permissions are the flags plus what the project
 * already allows (its settings' standing approvals, once trusted). Nothing
 * is ever added to the project's settings from print mode. Protected
 * configuration needs both edit flags: nothing the project ships grants it.
 */
export function createPrintApprovalSettings(
    flags: PrintPermissionFlags,
    project: ApprovalSettings
): ApprovalSettings {
    return {
        isShellAutoApproved: () => flags.allowShell || project.isShellAutoApproved(),
        isCommandAllowed: (command) =>
            flags.allowedCommands.includes(command) || project.isCommandAllowed(command),
        allowCommand: () => {},
        approveAllCommandsForSession: () => {},
        isEditsAutoAccepted: () => flags.allowEdits || project.isEditsAutoAccepted(),
        areProtectedEditsAllowed: () => flags.allowEdits && flags.allowConfigEdits,
        flagGrants: () => [
            ...(flags.allowShell ? [{ text: "every command", flag: "--allow-shell" }] : []),
            ...(flags.allowEdits ? [{ text: "every edit", flag: "--allow-edits" }] : []),
            ...(flags.allowEdits && flags.allowConfigEdits
                ? [{ text: "edits of protected configuration", flag: "--allow-config-edits" }]
                : []),
        ],
        permissionRules: project.permissionRules,
    };
}

function denialFor(request: ApprovalRequest): string {
    if (request.askRule !== undefined) {
        const what =
            request.kind === "shell"
                ? `\`${request.command ?? request.summary}\``
                : request.summary;
        return `${what} needs the user's approval because of the permission rule ${request.askRule}, and print mode cannot ask, so it was not done. Tell the user what you wanted to do and why.`;
    }
    if (request.kind === "shell" && request.domain !== undefined) {
        return `print mode cannot ask before fetching from the web, so ${request.summary} was not fetched. The user can allow the site with the rule "WebFetch(domain:${request.domain})" in permissions.allow, or allow every command and fetch with --allow-shell; tell them what you wanted to read and why.`;
    }
    if (request.kind === "shell") {
        return `print mode cannot ask before running commands, so \`${request.command ?? ""}\` was not run. The user can allow it with --allowed-command "${request.command ?? ""}" or allow every command with --allow-shell; tell them what you wanted to run and why.`;
    }
    const guarded = request.protectedPaths ?? [];
    if (guarded.length > 0) {
        return `${guarded.join(", ")} ${guarded.length === 1 ? "is" : "are"} protected configuration (it can make North or other tools run commands or approve actions), and print mode writes it only with --allow-edits --allow-config-edits, so nothing was written (${request.summary}). Tell the user what you would change and why.`;
    }
    return `print mode cannot ask before editing files, so nothing was written (${request.summary}). The user can allow edits with --allow-edits; tell them what you would change.`;
}

export const printModeApprover: Approver = denyAll(denialFor);
