/**
 * A prefix rule removed from the personal store by another North session
 * stops allowing in this one before its next check (audit finding 11).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { withPermissionRules } from "../../src/cli/permission-wiring";
import { createProjectApprovalSettings } from "../../src/storage/project-settings";
import { createPersonalApprovalStore } from "../../src/storage/standing-approvals";
import type { ProjectTrust } from "../../src/storage/trust";
import { PermissionRules } from "../../src/tools/permissions/rules";

let repo: string;
let data: string;
beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), "north-sync-repo-"));
    data = mkdtempSync(join(tmpdir(), "north-sync-data-"));
});
afterEach(() => {
    rmSync(repo, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
});

const trusted: ProjectTrust = { isTrustedNow: () => true, recordOwnWrite: () => true };

function openSession() {
    const project = createProjectApprovalSettings(repo, trusted, {
        layers: [],
        personal: createPersonalApprovalStore(data, repo),
    });
    const rules = new PermissionRules({ projectRoot: repo, home: data }, new Set(["Bash"]));
    const settings = withPermissionRules(project, {
        rules,
        warnings: [],
        notes: [],
        fileKinds: new Map(),
    });
    return { project, settings };
}

const personalRules = ({ settings }: ReturnType<typeof openSession>) =>
    settings
        .permissionRules!.list()
        .filter((rule) => rule.kind === "allow")
        .map((rule) => rule.text);

it("follows the personal file's allow rules when another session changed it", () => {
    createPersonalApprovalStore(data, repo).add({ allowRule: "Bash(touch:*)" });
    const first = openSession();
    const second = openSession();
    expect(personalRules(second)).toEqual(["Bash(touch:*)"]);

    expect(first.project.removePersonalRule("Bash(touch:*)").ok).toBe(true);
    first.settings.allowCommandPattern!("ls:*");
    second.settings.refreshStanding!();
    expect(personalRules(second)).toEqual(["Bash(ls:*)"]);
});
