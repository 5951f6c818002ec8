/**
 * Input typed into a running program is reviewed like a command (issue 35,
 * part 3): the review shows the program's command line and exactly what is
 * typed; an allow rule (or "always") on the program's command line skips
 * it; deny rules judge the program, and the typed text when the program is
 * a shell. Each case goes through process_send's own approval and the one
 * approval requirement the engine computes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
    type ApprovalRequirement,
    approvalRequirement,
} from "../../../src/agent/approval-requirement";
import { type ApprovalSettings, createNoStandingApprovals } from "../../../src/agent/approvals";
import { createProcessSendTool } from "../../../src/tools/process-send";
import type { ProcessInfo } from "../../../src/tools/processes/types";
import { PermissionRules } from "../../../src/tools/permissions/rules";
import type { ShellService } from "../../../src/tools/shell-service";
import { type TempRepo, makeRepo } from "../fixtures";

let repo: TempRepo;
beforeAll(async () => {
    repo = await makeRepo({ "README.md": "x\n" });
});
afterAll(async () => {
    await repo.cleanup();
});

function serviceWith(command: string): ShellService {
    const info: ProcessInfo = {
        id: "p1",
        command,
        cwd: repo.root,
        tty: true,
        sandboxed: false,
        state: "running",
        startedAt: 0,
        outputBytes: 0,
        origin: "call-1",
    };
    return {
        run: () => Promise.reject(new Error("not in this test")),
        cwd: repo.root,
        dispose: () => undefined,
        processes: {
            get: (id: string) => (id === "p1" ? info : undefined),
        } as ShellService["processes"],
    };
}

async function requirementOf(
    program: string,
    input: { text?: string; keys?: string[] },
    rules: { allow?: string[]; deny?: string[]; ask?: string[] } = {},
    settings: Partial<ApprovalSettings> = {}
): Promise<ApprovalRequirement> {
    const tool = createProcessSendTool(serviceWith(program));
    const permissionRules = new PermissionRules(
        { projectRoot: repo.root, home: "/nonexistent" },
        new Set(["Bash", "shell_run", "process_send"])
    );
    expect(permissionRules.addSource({ source: "settings.json", permissions: rules })).toEqual([]);
    return approvalRequirement(
        { kind: "shell", toolName: tool.name, approval: tool.approval!({ id: "p1", ...input }) },
        {
            settings: { ...createNoStandingApprovals(), permissionRules, ...settings },
            repoRoot: repo.root,
            byName: permissionRules.forTool(tool.name, tool.hookAliases ?? []),
        }
    );
}

describe("process_send's review", () => {
    it("shows the program's command line and exactly what is typed", () => {
        const tool = createProcessSendTool(serviceWith("python3 -i"));
        const approval = tool.approval!({ id: "p1", text: "print(1)\n", keys: ["ctrl+d"] });
        expect(approval).toMatchObject({
            command: "python3 -i",
            rememberKey: "python3 -i",
            cwd: repo.root,
            typed: { text: "print(1)\n" },
        });
        expect(approval.summary).toBe('Type into p1 `python3 -i`: "print(1)\\n" <ctrl+d>');
        const secret = tool.approval!({ id: "p1", askUser: true });
        expect(secret.summary).toContain("typed by the user, not shown");
        expect(secret.typed?.text).toBe("");
    });

    it("asks by default, offering to always allow the program's command line only", async () => {
        const required = await requirementOf("python3 -i", { text: "1+1\n" });
        expect(required.kind).toBe("needs-approval");
        if (required.kind !== "needs-approval") return;
        expect(required.standingOptions.map((o) => o.grant)).toEqual([
            { kind: "exact", key: "python3 -i", command: "python3 -i" },
            { kind: "every-command" },
        ]);
    });

    it("skips the review under an allow rule on the program, or --allow-shell, or a standing approval", async () => {
        expect(
            await requirementOf("python3 -i", { text: "1+1\n" }, { allow: ["Bash(python3:*)"] })
        ).toEqual({
            kind: "skip",
            approvedBy: "rule",
        });
        expect(
            await requirementOf(
                "python3 -i",
                { text: "1\n" },
                {},
                { isShellAutoApproved: () => true }
            )
        ).toEqual({ kind: "skip", approvedBy: "auto" });
        expect(
            await requirementOf(
                "python3 -i",
                { text: "1\n" },
                {},
                { isCommandAllowed: (c) => c === "python3 -i" }
            )
        ).toEqual({ kind: "skip", approvedBy: "allowlist" });
    });

    it("refuses what deny rules forbid: the program, and text typed into any program", async () => {
        const program = await requirementOf(
            "python3 -i",
            { text: "1\n" },
            { deny: ["Bash(python3:*)"] }
        );
        expect(program).toMatchObject({ kind: "forbidden", code: "denied" });
        const typed = await requirementOf(
            "bash",
            { text: "rm -rf /\n" },
            { deny: ["Bash(rm:*)"], allow: ["Bash(bash)"] }
        );
        expect(typed).toMatchObject({ kind: "forbidden", code: "denied" });
        if (typed.kind === "forbidden") expect(typed.reason).toContain("Bash(rm:*)");
        // Any program may run what it is typed: deny rules judge the text whatever the program.
        for (const program of ["python3 -i", "ssh build-host", "docker exec -it web sh"]) {
            const typedIn = await requirementOf(
                program,
                { text: "rm -rf /\n" },
                { deny: ["Bash(rm:*)"], allow: [`Bash(${program.split(" ")[0]}:*)`] }
            );
            expect(typedIn, program).toMatchObject({ kind: "forbidden", code: "denied" });
        }
        // Text no rule names is the program's input: an allow rule on the program covers it.
        const harmless = await requirementOf(
            "python3 -i",
            { text: "print(1)\n" },
            { deny: ["Bash(rm:*)"], allow: ["Bash(python3:*)"] }
        );
        expect(harmless).toEqual({ kind: "skip", approvedBy: "rule" });
        // Allow rules do not reach the typed text: the program's command line is what they judge.
        const allowedText = await requirementOf(
            "bash",
            { text: "ls\n" },
            { allow: ["Bash(ls:*)"] }
        );
        expect(allowedText.kind).toBe("needs-approval");
    });
});
