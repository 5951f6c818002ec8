import { spawn } from "node:child_process";
import {
    existsSync,
    lstatSync,
    mkdirSync,
    mkdtempSync,
    readFileSync,
    readdirSync,
    realpathSync,
    rmSync,
    symlinkSync,
    writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createProjectApprovalSettings } from "../../src/storage/project-settings";
import { createPersonalApprovalStore } from "../../src/storage/standing-approvals";
import type { ProjectTrust } from "../../src/storage/trust";

let repo: string;
let data: string;
beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), "north-standing-repo-"));
    data = mkdtempSync(join(tmpdir(), "north-standing-data-"));
});
afterEach(() => {
    rmSync(repo, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
});

const trusted: ProjectTrust = {
    isTrustedNow: () => true,
    recordOwnWrite: (write) => {
        write();
        return true;
    },
};
const untrusted: ProjectTrust = { isTrustedNow: () => false, recordOwnWrite: () => false };
const approvalsFile = () => join(data, "approvals.json");
const localFile = () => join(repo, ".north", "settings.local.json");
const readJson = (path: string): unknown => JSON.parse(readFileSync(path, "utf8"));

describe("the personal store (~/.north/approvals.json)", () => {
    it("keeps answers by the project's real path; another path to the same project sees them", () => {
        const link = join(data, "link-to-repo");
        symlinkSync(repo, link);
        createPersonalApprovalStore(data, link).add({ allowCommand: "npm test" });
        createPersonalApprovalStore(data, repo).add({ allowRule: "Bash(npm run:*)" });
        expect(createPersonalApprovalStore(data, repo).read()).toEqual({
            allowedCommands: ["npm test"],
            allowRules: ["Bash(npm run:*)"],
            switches: [],
            migrated: [],
        });
        expect(readJson(approvalsFile())).toEqual({
            version: 1,
            projects: {
                [realpathSync(repo)]: {
                    allowedCommands: ["npm test"],
                    allow: ["Bash(npm run:*)"],
                },
            },
        });
        // Another project's answers are its own.
        const other = mkdtempSync(join(tmpdir(), "north-standing-other-"));
        try {
            expect(createPersonalApprovalStore(data, other).read()).toEqual({
                allowedCommands: [],
                allowRules: [],
                switches: [],
                migrated: [],
            });
        } finally {
            rmSync(other, { recursive: true, force: true });
        }
    });

    it("a broken file is never overwritten: reading and saving say so, and nothing is lost", () => {
        writeFileSync(approvalsFile(), '{"projects": {');
        const store = createPersonalApprovalStore(data, repo);
        expect(() => store.read()).toThrow(/approvals\.json is not valid JSON .*left as is/);
        expect(() => store.add({ allowCommand: "make" })).toThrow(/left as is/);
        expect(readFileSync(approvalsFile(), "utf8")).toBe('{"projects": {');
        // The session still holds the answer, and the user hears why it was not kept.
        const warnings: string[] = [];
        const settings = createProjectApprovalSettings(repo, trusted, {
            layers: [],
            personal: store,
            warn: (w) => warnings.push(w),
        });
        settings.allowCommand("make");
        expect(settings.isCommandAllowed("make")).toBe(true);
        expect(warnings).toHaveLength(2);
        expect(warnings[0]).toMatch(/^your standing approvals were not loaded: .*left as is/);
        expect(warnings[1]).toMatch(/^this answer holds for this session only: .*left as is/);
        expect(readFileSync(approvalsFile(), "utf8")).toBe('{"projects": {');
    });

    it("removing one keeps every other key and project as written", () => {
        writeFileSync(
            approvalsFile(),
            JSON.stringify({
                version: 1,
                note: "mine",
                projects: {
                    "/elsewhere": { allowedCommands: ["ls"] },
                    [realpathSync(repo)]: { allowedCommands: ["make", "npm test"], extra: 1 },
                },
            })
        );
        const store = createPersonalApprovalStore(data, repo);
        expect(store.remove({ allowCommand: "make" })).toBe(true);
        expect(store.remove({ allowCommand: "make" })).toBe(false);
        expect(readJson(approvalsFile())).toEqual({
            version: 1,
            note: "mine",
            projects: {
                "/elsewhere": { allowedCommands: ["ls"] },
                [realpathSync(repo)]: { allowedCommands: ["npm test"], extra: 1 },
            },
        });
        // Atomic and locked: no temp or lock file is left next to it.
        expect(readdirSync(data)).toEqual(["approvals.json"]);
    });

    /** Runs test/storage/fixtures/approval-writer.ts: `count` commands named `prefix N`. */
    const runWriter = (prefix: string, count: number) =>
        new Promise<number | null>((resolve) => {
            const child = spawn(
                process.execPath,
                [
                    "--import",
                    "tsx",
                    join(import.meta.dirname, "fixtures", "approval-writer.ts"),
                    data,
                    repo,
                    prefix,
                    String(count),
                ],
                { stdio: "inherit" }
            );
            child.on("close", resolve);
        });

    it("two processes saving 100 answers each at once lose none", async () => {
        expect(await Promise.all([runWriter("a", 100), runWriter("b", 100)])).toEqual([0, 0]);
        const saved = createPersonalApprovalStore(data, repo).read().allowedCommands;
        expect(saved).toHaveLength(200);
        expect(new Set(saved).size).toBe(200);
    }, 60_000);
});

describe("where an answer is kept", () => {
    it("personal by default: the data folder, and no file at all in the repository", () => {
        const settings = createProjectApprovalSettings(repo, trusted, {
            layers: [],
            personal: createPersonalApprovalStore(data, repo),
        });
        settings.allowCommand("npm test");
        expect(settings.keepAllowRule("Bash(npm run:*)")).toBe(approvalsFile());
        expect(readdirSync(repo)).toEqual([]);
        expect(createPersonalApprovalStore(data, repo).read()).toEqual({
            allowedCommands: ["npm test"],
            allowRules: ["Bash(npm run:*)"],
            switches: [],
            migrated: [],
        });
    });

    it("personal answers hold without the repository's trust; local ones need it", () => {
        createPersonalApprovalStore(data, repo).add({ allowCommand: "npm test" });
        const settings = createProjectApprovalSettings(repo, untrusted, {
            layers: [],
            personal: createPersonalApprovalStore(data, repo),
        });
        expect(settings.isCommandAllowed("npm test")).toBe(true);
        const warnings: string[] = [];
        const local = createProjectApprovalSettings(repo, untrusted, {
            layers: [],
            warn: (w) => warnings.push(w),
        });
        local.allowCommand("make", "local");
        expect(local.isCommandAllowed("make")).toBe(true);
        expect(existsSync(join(repo, ".north"))).toBe(false);
        expect(warnings[0]).toContain("the project is not trusted");
    });

    it("the local scope writes settings.local.json (and no .gitignore), keeping its other keys", () => {
        mkdirSync(join(repo, ".north"));
        writeFileSync(localFile(), JSON.stringify({ model: "sonnet" }));
        const settings = createProjectApprovalSettings(repo, trusted, {
            layers: [],
            personal: createPersonalApprovalStore(data, repo),
        });
        settings.allowCommand("make", "local");
        expect(settings.keepAllowRule("Bash(npm run:*)", "local")).toBe(localFile());
        expect(readJson(localFile())).toEqual({
            model: "sonnet",
            allowedCommands: ["make"],
            permissions: { allow: ["Bash(npm run:*)"] },
        });
        expect(existsSync(join(repo, ".north", ".gitignore"))).toBe(false);
        expect(existsSync(approvalsFile())).toBe(false);
    });
});

describe("removing a standing approval", () => {
    it("from settings.local.json: the file keeps its other keys and the session asks again at once", () => {
        mkdirSync(join(repo, ".north"));
        writeFileSync(
            localFile(),
            JSON.stringify({
                model: "sonnet",
                allowedCommands: ["make", "ls"],
                editsAutoAccept: true,
            })
        );
        const layers = [
            {
                kind: "local" as const,
                path: localFile(),
                settings: { allowedCommands: ["make", "ls"], editsAutoAccept: true },
            },
        ];
        const settings = createProjectApprovalSettings(repo, trusted, { layers });
        expect(settings.isCommandAllowed("make")).toBe(true);
        expect(settings.isEditsAutoAccepted()).toBe(true);
        const entries = settings.entries();
        expect(entries.map((e) => [e.text, e.source])).toEqual([
            ["every edit", localFile()],
            ["Bash(make)", localFile()],
            ["Bash(ls)", localFile()],
        ]);
        expect(entries[1]!.remove!().ok).toBe(true);
        expect(entries[0]!.remove!().ok).toBe(true);
        expect(settings.isCommandAllowed("make")).toBe(false);
        expect(settings.isCommandAllowed("ls")).toBe(true);
        expect(settings.isEditsAutoAccepted()).toBe(false);
        expect(readJson(localFile())).toEqual({ model: "sonnet", allowedCommands: ["ls"] });
    });

    it("a file of the repository's is not rewritten: the entry says to edit it", () => {
        const path = join(repo, ".north", "settings.json");
        const layers = [{ kind: "project" as const, path, settings: { shellAutoApprove: true } }];
        const settings = createProjectApprovalSettings(repo, trusted, { layers });
        expect(settings.isShellAutoApproved()).toBe(true);
        const [entry] = settings.entries();
        expect(entry).toMatchObject({
            text: "every command",
            source: path,
            note: "shellAutoApprove",
        });
        expect(entry!.remove).toBeUndefined();
        expect(entry!.fixed).toBe(
            ".north/settings.json belongs to the repository (it may be committed): edit it to remove this"
        );
    });

    it("this session's 'every command' is listed and removed", () => {
        const settings = createProjectApprovalSettings(repo, trusted, { layers: [] });
        settings.approveAllCommandsForSession();
        expect(settings.isShellAutoApproved()).toBe(true);
        const [entry] = settings.entries();
        expect(entry).toMatchObject({ text: "every command", source: "this session" });
        entry!.remove!();
        expect(settings.isShellAutoApproved()).toBe(false);
        expect(settings.entries()).toEqual([]);
    });
});

describe("symlinked files", () => {
    it("a linked user file is written through to its target and stays a link", () => {
        const target = join(data, "dotfiles-approvals.json");
        writeFileSync(target, JSON.stringify({ version: 1, projects: {} }));
        symlinkSync(target, approvalsFile());
        createPersonalApprovalStore(data, repo).add({ allowCommand: "make" });
        expect(lstatSync(approvalsFile()).isSymbolicLink()).toBe(true);
        expect(readJson(target)).toEqual({
            version: 1,
            projects: { [realpathSync(repo)]: { allowedCommands: ["make"] } },
        });
    });

    it("a project's settings.local.json leading out of the project is refused, never followed", () => {
        const outside = join(data, "bashrc");
        writeFileSync(outside, "echo hi\n");
        mkdirSync(join(repo, ".north"));
        symlinkSync(outside, localFile());
        const warnings: string[] = [];
        const settings = createProjectApprovalSettings(repo, trusted, {
            layers: [],
            warn: (w) => warnings.push(w),
        });
        settings.allowCommand("make", "local");
        expect(readFileSync(outside, "utf8")).toBe("echo hi\n");
        expect(warnings).toEqual([
            expect.stringMatching(
                /^this answer holds for this session only: .*settings\.local\.json leads through a symbolic link to .*bashrc, outside the project/
            ),
        ]);
        expect(settings.isCommandAllowed("make")).toBe(true);
    });
});

describe("two North sessions on one project (audit finding 11)", () => {
    const session = () =>
        createProjectApprovalSettings(repo, trusted, {
            layers: [],
            personal: createPersonalApprovalStore(data, repo),
        });

    it("a removal in one session's /permissions reaches the other before its next check", () => {
        const first = session();
        first.allowCommand("npm test");
        first.allowCommand("mcp__srv__tool");
        const second = session();
        expect(second.isCommandAllowed("npm test")).toBe(true);
        expect(second.refreshPersonal()).toBe(false); // nothing changed: no read

        const entry = first.entries().find((e) => e.text === "Bash(npm test)");
        expect(entry?.remove?.().ok).toBe(true);
        expect(second.refreshPersonal()).toBe(true);
        expect(second.isCommandAllowed("npm test")).toBe(false);
        expect(second.isCommandAllowed("mcp__srv__tool")).toBe(true);
    });

    it("lists an MCP tool's standing answer by the tool's name, not as a command", () => {
        const settings = session();
        settings.allowCommand("mcp__srv__tool");
        settings.allowCommand("npm test");
        expect(settings.entries().map((e) => e.text)).toEqual(["mcp__srv__tool", "Bash(npm test)"]);
    });
});
