/**
 * The approval requirement over the combinations of sources that matter
 * (issue 32, part 2): each row gives the call and the sources, and says
 * what must come of it: skip (by whom), forbidden, or a review with the
 * standing options it may offer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settleApproval } from "../../src/agent/approval-driver";
import {
    type ApprovalRequirement,
    type ApprovalSubject,
    type RequirementSources,
    type StandingOption,
    type WriteTarget,
    approvalRequirement,
} from "../../src/agent/approval-requirement";
import {
    type ApprovalRequest,
    type ApprovalSettings,
    createNoStandingApprovals,
} from "../../src/agent/approvals";
import { silentLogger } from "../../src/storage/logger";
import { resolveWritablePath } from "../../src/tools/path-guard";
import { PermissionRules } from "../../src/tools/permissions/rules";
import type { ShellApproval } from "../../src/tools/types";
import { type TempRepo, makeRepo } from "../tools/fixtures";

let repo: TempRepo;
beforeAll(async () => {
    repo = await makeRepo({ "src/a.ts": "export const a = 1;\n", ".north/settings.json": "{}\n" });
});
afterAll(async () => {
    await repo.cleanup();
});

type Rules = { allow?: string[]; deny?: string[]; ask?: string[] };

/** What a row sets besides the call: rules, standing switches, the mode, the hook. */
interface Row {
    rules?: Rules;
    settings?: Partial<ApprovalSettings>;
    hook?: RequirementSources["hook"];
    inMode?: boolean;
    planRequired?: boolean;
    acceptingEdits?: boolean;
}

function sourcesOf(row: Row, toolName: string): RequirementSources {
    const rules = new PermissionRules(
        { projectRoot: repo.root, home: "/nonexistent" },
        new Set(["Bash", "shell_run", "Edit", "edit_replace_exact", "WebFetch", "web_fetch"])
    );
    expect(rules.addSource({ source: "settings.json", permissions: row.rules ?? {} })).toEqual([]);
    const settings: ApprovalSettings = {
        ...createNoStandingApprovals(),
        permissionRules: rules,
        ...row.settings,
    };
    const aliases =
        toolName === "shell_run" ? ["Bash"] : toolName === "web_fetch" ? ["WebFetch"] : ["Edit"];
    return {
        settings,
        repoRoot: repo.root,
        inMode: row.inMode,
        planRequired: row.planRequired,
        hook: row.hook,
        byName: rules.forTool(toolName, aliases),
        editsMode: {
            accepting: () => row.acceptingEdits === true,
            acceptFromNowOn: () => {},
        },
    };
}

const command = (text: string): ShellApproval => ({
    summary: text,
    rememberKey: text,
    command: text,
    cwd: undefined,
});

function shell(text: string): ApprovalSubject {
    return { kind: "shell", toolName: "shell_run", approval: command(text) };
}

async function write(...paths: string[]): Promise<ApprovalSubject> {
    const targets: WriteTarget[] = [];
    for (const p of paths) {
        const safe = await resolveWritablePath(repo.root, p, { mustExist: false });
        if (!safe.ok) throw new Error(safe.error.message);
        const diff = { path: p, diff: "", linesAdded: 1, linesRemoved: 0, isNewFile: false };
        targets.push({ diff, safe: safe.data });
    }
    return { kind: "write", toolName: "edit_replace_exact", targets };
}

const fetch = (host: string): ApprovalSubject => ({
    kind: "shell",
    toolName: "web_fetch",
    approval: {
        summary: `https://${host}/`,
        rememberKey: `WebFetch(domain:${host})`,
        domain: host,
    },
});

const mcp: ApprovalSubject = {
    kind: "shell",
    toolName: "mcp__db__query",
    approval: { summary: "mcp__db__query", rememberKey: "mcp__db__query" },
};

/** What a row expects, in short: `skip:<by>`, `forbidden:<code>`, or `ask`. */
function outcome(requirement: ApprovalRequirement): string {
    if (requirement.kind === "skip") return `skip:${requirement.approvedBy}`;
    if (requirement.kind === "forbidden") return `forbidden:${requirement.code}`;
    return "ask";
}

/** The standing options a review offers, as `remember:grant@places`. */
function offered(requirement: ApprovalRequirement): string[] {
    if (requirement.kind !== "needs-approval") return [];
    return requirement.standingOptions.map((o: StandingOption) => {
        const places = o.keptIn === "session" ? "session" : o.keptIn.join("+");
        const menu = o.inMenu ? "" : " (not in menu)";
        return `${o.remember}:${o.grant.kind}@${places}${menu}`;
    });
}

const auto = { isShellAutoApproved: () => true };
const allowlisted = { isCommandAllowed: (c: string) => c === "npm test" };
const untrusted = { keepsLocalAnswers: () => false };

describe("the approval requirement of a command", () => {
    const rows: Array<[string, string, Row, string]> = [
        [
            "a deny pattern beats a hook's allow",
            "rm -rf build",
            { rules: { deny: ["Bash(rm:*)"] }, hook: { permission: { decision: "allow" } } },
            "forbidden:denied",
        ],
        [
            "a deny rule on the name beats a hook's allow",
            "ls",
            { rules: { deny: ["Bash"] }, hook: { permission: { decision: "allow" } } },
            "forbidden:denied",
        ],
        [
            "a hook's block beats an allow rule",
            "ls",
            { rules: { allow: ["Bash(ls)"] }, hook: { block: { reason: "no" } } },
            "forbidden:denied",
        ],
        [
            "an ask rule forces the review even with auto-approval",
            "npm test",
            { rules: { ask: ["Bash(npm test:*)"] }, settings: auto },
            "ask",
        ],
        [
            "a hook's ask forces the review of an allowlisted command",
            "npm test",
            { settings: allowlisted, hook: { permission: { decision: "ask" } } },
            "ask",
        ],
        [
            "a hook's allow skips",
            "make",
            { hook: { permission: { decision: "allow" } } },
            "skip:hook",
        ],
        ["auto-approval skips", "make", { settings: auto }, "skip:auto"],
        [
            "an allow rule skips",
            "npm test",
            { rules: { allow: ["Bash(npm test:*)"] } },
            "skip:rule",
        ],
        ["the exact allowlist skips", "npm test", { settings: allowlisted }, "skip:allowlist"],
        ["nothing allows it: reviewed", "make", {}, "ask"],
        [
            "plan mode forbids it, whatever allows it",
            "make",
            { planRequired: true, settings: auto },
            "forbidden:plan_required",
        ],
        [
            "ask mode's tool list forbids it",
            "make",
            { inMode: false, settings: auto },
            "forbidden:denied",
        ],
    ];
    it.each(rows)("%s", async (_name, text, row, expected) => {
        expect(outcome(await approvalRequirement(shell(text), sourcesOf(row, "shell_run")))).toBe(
            expected
        );
    });

    it("offers the exact command and its prefix, personal or local, and every command only off the menu", async () => {
        const requirement = await approvalRequirement(
            shell("npm test -- --run"),
            sourcesOf({}, "shell_run")
        );
        expect(offered(requirement)).toEqual([
            "exact:exact@personal+local",
            "prefix:prefix@personal+local",
            "all:every-command@session (not in menu)",
        ]);
    });

    it("offers no local place while the project is untrusted", async () => {
        const requirement = await approvalRequirement(
            shell("npm test -- --run"),
            sourcesOf({ settings: untrusted }, "shell_run")
        );
        expect(offered(requirement).slice(0, 2)).toEqual([
            "exact:exact@personal",
            "prefix:prefix@personal",
        ]);
    });

    it("a command writing git's internals or protected configuration offers no standing option, and says why", async () => {
        for (const text of ["echo x >> .git/config", "echo {} > .north/settings.json"]) {
            const requirement = await approvalRequirement(shell(text), sourcesOf({}, "shell_run"));
            expect(outcome(requirement)).toBe("ask");
            expect(offered(requirement)).toEqual([]);
            expect(requirement.kind === "needs-approval" && requirement.noStanding).toMatch(
                /writes (\.git\/config|\.north\/settings\.json)/
            );
        }
    });

    it("names the ask rule that forced the review", async () => {
        const requirement = await approvalRequirement(
            shell("npm test"),
            sourcesOf({ rules: { ask: ["Bash(npm test:*)"] }, settings: auto }, "shell_run")
        );
        expect(requirement).toMatchObject({
            kind: "needs-approval",
            askRule: "`npm test` matches the ask rule Bash(npm test:*)",
        });
    });
});

describe("the approval requirement of a web fetch and an MCP call", () => {
    it("a domain's deny rule forbids, its allow rule skips, else the host is offered for the session", async () => {
        const denied = await approvalRequirement(
            fetch("evil.dev"),
            sourcesOf(
                { rules: { deny: ["WebFetch(domain:evil.dev)"] }, settings: auto },
                "web_fetch"
            )
        );
        expect(outcome(denied)).toBe("forbidden:denied");
        const allowed = await approvalRequirement(
            fetch("docs.dev"),
            sourcesOf({ rules: { allow: ["WebFetch(domain:docs.dev)"] } }, "web_fetch")
        );
        expect(outcome(allowed)).toBe("skip:rule");
        const asked = await approvalRequirement(fetch("x.dev"), sourcesOf({}, "web_fetch"));
        expect(offered(asked)).toEqual([
            "exact:host@session",
            "all:every-command@session (not in menu)",
        ]);
    });

    it("an MCP tool is offered by its name", async () => {
        const requirement = await approvalRequirement(mcp, sourcesOf({}, "mcp__db__query"));
        expect(
            requirement.kind === "needs-approval" && requirement.standingOptions[0]?.grant
        ).toEqual({ kind: "exact", key: "mcp__db__query" });
    });
});

describe("the approval requirement of an edit", () => {
    const rows: Array<[string, string, Row, string]> = [
        [
            "accept-edits mode skips an ordinary edit",
            "src/a.ts",
            { acceptingEdits: true },
            "skip:mode",
        ],
        [
            "accept-edits mode does not skip protected configuration",
            ".north/settings.json",
            { acceptingEdits: true },
            "ask",
        ],
        [
            "auto-accept and a hook's allow do not skip protected configuration",
            ".north/settings.json",
            {
                settings: { isEditsAutoAccepted: () => true },
                hook: { permission: { decision: "allow" } },
            },
            "ask",
        ],
        [
            "print mode's config flag skips protected configuration",
            ".north/settings.json",
            { settings: { areProtectedEditsAllowed: () => true } },
            "skip:flag",
        ],
        [
            "an Edit deny rule beats a hook's allow",
            "src/a.ts",
            { rules: { deny: ["Edit(src/**)"] }, hook: { permission: { decision: "allow" } } },
            "forbidden:denied",
        ],
        [
            "an Edit ask rule forces the review in accept-edits mode",
            "src/a.ts",
            { rules: { ask: ["Edit(src/**)"] }, acceptingEdits: true },
            "ask",
        ],
        [
            "an Edit allow rule skips",
            "src/a.ts",
            { rules: { allow: ["Edit(src/**)"] } },
            "skip:rule",
        ],
        [
            "the editsAutoAccept setting skips",
            "src/a.ts",
            { settings: { isEditsAutoAccepted: () => true } },
            "skip:auto",
        ],
        [
            "plan mode forbids an edit",
            "src/a.ts",
            { planRequired: true, acceptingEdits: true },
            "forbidden:plan_required",
        ],
        ["nothing accepts it: reviewed", "src/a.ts", {}, "ask"],
    ];
    it.each(rows)("%s", async (_name, file, row, expected) => {
        const requirement = await approvalRequirement(
            await write(file),
            sourcesOf(row, "edit_replace_exact")
        );
        expect(outcome(requirement)).toBe(expected);
    });

    it("offers all edits this session, but nothing standing for protected configuration", async () => {
        const plain = await approvalRequirement(
            await write("src/a.ts"),
            sourcesOf({}, "edit_replace_exact")
        );
        expect(offered(plain)).toEqual(["all:every-edit@session"]);
        const guarded = await approvalRequirement(
            await write("src/a.ts", ".north/settings.json"),
            sourcesOf({}, "edit_replace_exact")
        );
        expect(offered(guarded)).toEqual([]);
    });
});

describe("the approval driver", () => {
    const request = (): ApprovalRequest => ({
        id: "r1",
        kind: "shell",
        toolName: "shell_run",
        toolCallId: "c1",
        input: {},
        summary: "make",
        command: "make",
    });

    it("keeps only an option the requirement offered, at a place it offered", async () => {
        const kept: string[] = [];
        const sources = sourcesOf(
            {
                settings: {
                    ...untrusted,
                    allowCommand: (c, scope) => kept.push(`${c}@${scope}`),
                    allowCommandPattern: (p, scope) => kept.push(`${p}@${scope}`),
                },
            },
            "shell_run"
        );
        const requirement = await approvalRequirement(shell("make"), sources);
        // `make` has no prefix pattern: a "prefix" answer approves this call only.
        const deps = { ...sources, logger: silentLogger, emit: () => {} };
        const once = await settleApproval(
            requirement,
            request,
            "no",
            new AbortController().signal,
            {
                ...deps,
                approver: async () => ({ outcome: "approve", remember: "prefix", scope: "local" }),
            }
        );
        expect(once).toEqual({ run: true, approvedBy: "user" });
        expect(kept).toEqual([]);
        // "exact" was offered, but not the local place: nothing is kept.
        await settleApproval(requirement, request, "no", new AbortController().signal, {
            ...deps,
            approver: async () => ({ outcome: "approve", remember: "exact", scope: "local" }),
        });
        expect(kept).toEqual([]);
        // At a place it offered (or none named: the first), it is kept there.
        await settleApproval(requirement, request, "no", new AbortController().signal, {
            ...deps,
            approver: async () => ({ outcome: "approve", remember: "exact" }),
        });
        expect(kept).toEqual(["make@personal"]);
    });

    it("asks nobody for a skip or a forbidden call", async () => {
        let asked = 0;
        const deps = {
            ...sourcesOf({}, "shell_run"),
            logger: silentLogger,
            emit: () => {},
            approver: async () => {
                asked++;
                return { outcome: "approve" } as const;
            },
        };
        const signal = new AbortController().signal;
        const skipped = await settleApproval(
            { kind: "skip", approvedBy: "rule" },
            request,
            "no",
            signal,
            deps
        );
        expect(skipped).toEqual({ run: true, approvedBy: "rule" });
        const refused = await settleApproval(
            { kind: "forbidden", code: "denied", reason: "denied by a rule" },
            request,
            "no",
            signal,
            deps
        );
        expect(refused).toEqual({
            run: false,
            refusal: { ok: false, error: { code: "denied", message: "denied by a rule" } },
        });
        expect(asked).toBe(0);
    });
});
