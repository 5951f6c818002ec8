/**
 * Approvals in the editor (issue 34, part 4): each review becomes a
 * permission question whose options are the consent menu's, a standing
 * option's name says what it grants and where it is kept, and every answer
 * maps to the decision the chat would make; cancelled or unknown answers
 * approve nothing. The trust question lists what would run.
 */
import { describe, expect, it } from "vitest";
import { editStandingOptions, shellStandingOptions } from "../../src/agent/approval-requirement";
import type { ApprovalRequest } from "../../src/agent/approvals";
import { permissionQuestion, trustQuestion } from "../../src/cli/acp/permissions";
import type { TrustInventory } from "../../src/cli/project-trust";
import { invalidOf } from "../kit/acp-schema";

const base = { id: "r1", toolCallId: "c1", input: {}, summary: "s" };

function command(text: string, prefix: string | null, localScope: boolean): ApprovalRequest {
    return {
        ...base,
        kind: "shell",
        toolName: "shell_run",
        command: text,
        standingOptions: shellStandingOptions(
            { command: text, rememberKey: text },
            prefix,
            localScope
        ),
    };
}

/** Each option as the editor draws it, and the decision choosing it yields. */
function table(request: ApprovalRequest) {
    const question = permissionQuestion(request);
    expect(invalidOf("PermissionOption", question.options)).toEqual([]);
    return question.options.map((option) => ({
        id: option.optionId,
        kind: option.kind,
        name: option.name,
        decision: question.answer({ outcome: "selected", optionId: option.optionId }),
    }));
}

describe("permission questions", () => {
    it("a command in a trusted project: once, always (personal and local, each naming its place) for the command and its prefix, no", () => {
        const rows = table(command("npm test -- --run", "npm test:*", true));
        expect(rows.map((r) => [r.id, r.kind, r.name])).toEqual([
            ["allow-once", "allow_once", "Yes, run it once"],
            [
                "allow-always-exact",
                "allow_always",
                "Yes, and don't ask again for `npm test -- --run` in this project (kept in ~/.north for you)",
            ],
            [
                "allow-always-exact-local",
                "allow_always",
                "Yes, and don't ask again for `npm test -- --run` in this project (kept in .north/settings.local.json)",
            ],
            [
                "allow-always-prefix",
                "allow_always",
                "Yes, and don't ask again for commands starting `npm test` in this project (kept in ~/.north for you)",
            ],
            [
                "allow-always-prefix-local",
                "allow_always",
                "Yes, and don't ask again for commands starting `npm test` in this project (kept in .north/settings.local.json)",
            ],
            [
                "reject-once",
                "reject_once",
                "No, and tell North what to do instead in your next message",
            ],
        ]);
        expect(rows.map((r) => r.decision)).toEqual([
            { outcome: "approve" },
            { outcome: "approve", remember: "exact", scope: "personal" },
            { outcome: "approve", remember: "exact", scope: "local" },
            { outcome: "approve", remember: "prefix", scope: "personal" },
            { outcome: "approve", remember: "prefix", scope: "local" },
            {
                outcome: "deny",
                reason: "the user denied this command. They answered in their editor, which sends no reason: their next message may say why or what to do instead.",
            },
        ]);
    });

    it("an untrusted project keeps answers personal only; no option approves every command, none rejects always", () => {
        const rows = table(command("make", null, false));
        expect(rows.map((r) => r.id)).toEqual(["allow-once", "allow-always-exact", "reject-once"]);
        expect(rows[1]?.name).toContain("(kept in ~/.north for you)");
        expect(rows.some((r) => JSON.stringify(r.decision).includes('"all"'))).toBe(false);
        expect(rows.some((r) => r.kind === "reject_always")).toBe(false);
    });

    it("a command with no standing answer offered: once or no", () => {
        const rows = table({
            ...base,
            kind: "shell",
            toolName: "shell_run",
            command: "git push",
            noStanding: "always reviewed",
        });
        expect(rows.map((r) => r.kind)).toEqual(["allow_once", "reject_once"]);
    });

    it("an edit: make it, accept all edits this session (the mode), no", () => {
        const rows = table({
            ...base,
            kind: "write",
            toolName: "edit_replace_exact",
            standingOptions: editStandingOptions(false),
        });
        expect(rows.map((r) => [r.kind, r.name])).toEqual([
            ["allow_once", "Yes, make this edit"],
            [
                "allow_always",
                "Yes, and accept all edits this session (the mode switches to accept edits)",
            ],
            ["reject_once", "No, and tell North what to do instead in your next message"],
        ]);
        expect(rows[1]?.decision).toEqual({ outcome: "approve", remember: "all" });
        expect(rows[2]?.decision).toMatchObject({
            outcome: "deny",
            reason: expect.stringContaining("the user rejected this edit; nothing was written"),
        });
    });

    it("a protected edit offers nothing standing", () => {
        const rows = table({
            ...base,
            kind: "write",
            toolName: "edit_replace_exact",
            standingOptions: editStandingOptions(true),
        });
        expect(rows.map((r) => r.kind)).toEqual(["allow_once", "reject_once"]);
    });

    it("a web fetch's standing answer is its host for this session", () => {
        const rows = table({
            ...base,
            kind: "shell",
            toolName: "web_fetch",
            domain: "docs.example.com",
            standingOptions: shellStandingOptions(
                { domain: "docs.example.com", rememberKey: "WebFetch(domain:docs.example.com)" },
                null,
                true
            ),
        });
        expect(rows.map((r) => r.name)).toEqual([
            "Yes, fetch it once",
            "Yes, and don't ask again for `docs.example.com` in this session",
            "No, and tell North what to do instead in your next message",
        ]);
    });

    it("a plan: start on it, or keep planning (the model is told the reason may follow)", () => {
        const rows = table({ ...base, kind: "plan", toolName: "propose_plan", plan: "1. do it" });
        expect(rows.map((r) => [r.id, r.kind, r.name])).toEqual([
            ["allow-once", "allow_once", "Yes, start on this plan"],
            ["reject-once", "reject_once", "No, keep planning"],
        ]);
        expect(rows[0]?.decision).toEqual({ outcome: "approve" });
        expect(rows[1]?.decision).toMatchObject({
            outcome: "deny",
            reason: expect.stringContaining("next message"),
        });
    });

    it("a cancelled prompt, or an option never offered, approves nothing", () => {
        const question = permissionQuestion(command("npm test", "npm test:*", true));
        expect(question.answer({ outcome: "cancelled" })).toMatchObject({ outcome: "deny" });
        expect(
            question.answer({ outcome: "selected", optionId: "allow-always-all" })
        ).toMatchObject({ outcome: "deny" });
        expect(question.answer({ outcome: "selected", optionId: "" })).toMatchObject({
            outcome: "deny",
        });
    });
});

describe("the trust question", () => {
    const inventory: TrustInventory = {
        repoRoot: "/work/project",
        items: [
            {
                kind: "hook",
                source: ".north/settings.json",
                text: "PreToolUse Bash: ./scripts/check.sh",
            },
            { kind: "mcp", source: ".mcp.json", text: "db: runs npx db-server" },
            { kind: "approval", source: ".north/settings.json", text: "allowedCommands: npm test" },
        ],
    };

    it("is a call of its own listing every item, with trust once, trust and remember, or skip", () => {
        const question = trustQuestion(inventory);
        expect(invalidOf("ToolCallUpdate", [question.toolCall])).toEqual([]);
        expect(invalidOf("PermissionOption", question.options)).toEqual([]);
        expect(question.toolCall).toMatchObject({
            toolCallId: expect.stringMatching(/^north-trust-/),
            title: "Trust this project's configuration",
            kind: "other",
        });
        const content = question.toolCall.content?.[0];
        const text =
            content?.type === "content" && content.content.type === "text"
                ? content.content.text
                : "";
        expect(text).toContain(
            "1 MCP server (.mcp.json), 1 hook (.north/settings.json), 1 standing approval (.north/settings.json)"
        );
        for (const item of inventory.items) expect(text).toContain(item.text);
        expect(question.options.map((o) => [o.optionId, o.kind, o.name])).toEqual([
            ["trust-once", "allow_once", "Trust for this session"],
            ["trust", "allow_always", "Trust and remember (until these files change)"],
            ["untrusted", "reject_once", "Don't trust: skip its configuration"],
        ]);
    });

    it("each answer is a trust decision; cancelled or unknown is untrusted", () => {
        const question = trustQuestion(inventory);
        const pick = (optionId: string) => question.answer({ outcome: "selected", optionId });
        expect([pick("trust-once"), pick("trust"), pick("untrusted"), pick("bogus")]).toEqual([
            "trust-once",
            "trust",
            "untrusted",
            "untrusted",
        ]);
        expect(question.answer({ outcome: "cancelled" })).toBe("untrusted");
    });
});
