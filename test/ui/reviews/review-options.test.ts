/**
 * The one review menu's options per request kind (issue 31, part 1): option 1
 * grants the least, a standing option says what it grants and where it is
 * kept, the last is always the refusal; no letter answers anything.
 */
import { describe, expect, it } from "vitest";
import { editStandingOptions, shellStandingOptions } from "../../../src/agent/approval-requirement";
import type { ApprovalRequest } from "../../../src/agent/approvals";
import {
    approvalOptions,
    INITIAL_MENU_STATE,
    MAX_REFUSAL_REASON_CHARS,
    menuKey,
    type MenuOption,
    trustOptions,
} from "../../../src/ui/reviews/review-options";

const base = { id: "r1", toolCallId: "c1", input: {}, summary: "s" };
const request = (extra: Partial<ApprovalRequest>): ApprovalRequest => ({
    kind: "shell",
    toolName: "shell_run",
    ...base,
    ...extra,
});
/** A command's request with what its requirement offers ("always" kept personal or, trusted, local). */
const command = (text: string, prefix: string | null = null, localScope = true): ApprovalRequest =>
    request({
        command: text,
        standingOptions: shellStandingOptions(
            { command: text, rememberKey: text },
            prefix,
            localScope
        ),
    });
const labels = <T>(options: MenuOption<T>[], scope: "personal" | "local" = "personal") =>
    options.map((o) => o.label(scope));

describe("review menu options", () => {
    it("a command: once, this exact command, its prefix, no; the standing ones say where they are kept", () => {
        const options = approvalOptions(command("npm test -- --run", "npm test:*"));
        expect(labels(options)).toEqual([
            "Yes, run it once",
            "Yes, and don't ask again for `npm test -- --run` in this project (kept in ~/.north for you)",
            "Yes, and don't ask again for commands starting `npm test` in this project (kept in ~/.north for you)",
            "No, and tell North what to do instead",
        ]);
        expect(labels(options, "local")[1]).toContain("(kept in .north/settings.local.json)");
        expect(options.map((o) => o.answer("local"))).toEqual([
            { outcome: "approve" },
            { outcome: "approve", remember: "exact", scope: "local" },
            { outcome: "approve", remember: "prefix", scope: "local" },
            { outcome: "deny", reason: "the user denied this command" },
        ]);
        // No option approves every command.
        expect(options.some((o) => JSON.stringify(o.answer("personal")).includes('"all"'))).toBe(
            false
        );
    });

    it("a command that writes protected files or is always reviewed: once or no, nothing standing", () => {
        // The requirement offers nothing standing for them (approval-requirement.ts).
        for (const extra of [
            { noStanding: "`>> .git/config` writes .git/config" },
            { protectedPaths: [".git/config"] },
        ]) {
            const options = approvalOptions(
                request({
                    command: "echo '[core]' >> .git/config",
                    standingOptions: [],
                    ...extra,
                })
            );
            expect(labels(options)).toEqual([
                "Yes, run it once",
                "No, and tell North what to do instead",
            ]);
            expect(options.some((o) => o.standing)).toBe(false);
        }
    });

    it("an untrusted project's local file is not offered: Tab does nothing and the answer stays personal", () => {
        const options = approvalOptions(command("npm test", "npm test:*", false));
        for (const index of [1, 2]) {
            const state = { ...INITIAL_MENU_STATE, selected: index };
            const tabbed = menuKey(options, state, "\t", { tab: true }).state;
            expect(tabbed.scope).toBe("personal");
            expect(options[index]!.standing).toBeFalsy();
            expect(options[index]!.label(tabbed.scope)).toContain("(kept in ~/.north for you)");
            expect(options[index]!.answer("local")).toMatchObject({ scope: "personal" });
        }
        const mcp = approvalOptions(
            request({
                toolName: "mcp__srv__tool",
                standingOptions: shellStandingOptions(
                    { rememberKey: "mcp__srv__tool" },
                    null,
                    false
                ),
            })
        );
        expect(mcp[1]!.standing).toBeFalsy();
    });

    it("lists exactly the standing options the request offers, no more (the menu derives none itself)", () => {
        const [, prefix] = shellStandingOptions(
            { command: "npm test -- --run", rememberKey: "npm test -- --run" },
            "npm test:*",
            true
        );
        const options = approvalOptions(
            request({ command: "npm test -- --run", standingOptions: [prefix!] })
        );
        expect(labels(options)).toEqual([
            "Yes, run it once",
            "Yes, and don't ask again for commands starting `npm test` in this project (kept in ~/.north for you)",
            "No, and tell North what to do instead",
        ]);
        expect(labels(approvalOptions(request({ command: "npm test" })))).toEqual([
            "Yes, run it once",
            "No, and tell North what to do instead",
        ]);
    });

    it("names a long or multi-line command by reference (the review shows it whole above)", () => {
        for (const text of [`echo ${"x".repeat(80)}`, "cd a\nnpm test"]) {
            expect(approvalOptions(command(text))[1]!.label("personal")).toBe(
                "Yes, and don't ask again for this exact command in this project (kept in ~/.north for you)"
            );
        }
    });

    it("an MCP call, a web fetch, an edit and protected configuration", () => {
        const mcp = request({
            toolName: "mcp__db__query",
            standingOptions: shellStandingOptions({ rememberKey: "mcp__db__query" }, null, true),
        });
        expect(labels(approvalOptions(mcp))).toEqual([
            "Yes, call it once",
            "Yes, and don't ask again for `mcp__db__query` in this project (kept in ~/.north for you)",
            "No, and tell North what to do instead",
        ]);
        expect(
            labels(
                approvalOptions(
                    request({
                        command: "https://x.dev/a",
                        domain: "x.dev",
                        standingOptions: shellStandingOptions(
                            { domain: "x.dev", rememberKey: "WebFetch(domain:x.dev)" },
                            null,
                            true
                        ),
                    })
                )
            )
        ).toEqual([
            "Yes, fetch it once",
            "Yes, and don't ask again for `x.dev` in this session",
            "No, and tell North what to do instead",
        ]);
        const edit = approvalOptions(
            request({
                kind: "write",
                toolName: "edit_replace_exact",
                standingOptions: editStandingOptions(false),
            })
        );
        expect(edit[1]!.answer("personal")).toEqual({ outcome: "approve", remember: "all" });
        expect(edit[1]!.label("personal")).toContain("(Shift+Tab to switch back)");
        const guarded = approvalOptions(
            request({
                kind: "write",
                toolName: "edit_replace_exact",
                protectedPaths: [".mcp.json"],
                standingOptions: editStandingOptions(true),
            })
        );
        expect(labels(guarded)).toEqual([
            "Yes, make this edit",
            "No, and tell North what to do instead",
        ]);
        expect(labels(trustOptions())).toEqual([
            "Yes, trust this project",
            "No, start without its configuration (asks again next time)",
        ]);
    });

    it("keeps the reason one bounded line of text, and Tab changes the scope only on a standing option", () => {
        const options = approvalOptions(command("ls"));
        let state = menuKey(options, INITIAL_MENU_STATE, "", { escape: true }).state;
        state = menuKey(options, state, "a\nb\x07c", {}).state;
        expect(state.reason).toBe("a bc");
        state = menuKey(options, state, "z".repeat(MAX_REFUSAL_REASON_CHARS), {}).state;
        expect(state.reason).toHaveLength(MAX_REFUSAL_REASON_CHARS);
        expect(menuKey(options, INITIAL_MENU_STATE, "", { tab: true }).state.scope).toBe(
            "personal"
        );
        const onStanding = menuKey(options, INITIAL_MENU_STATE, "", { downArrow: true }).state;
        expect(menuKey(options, onStanding, "", { tab: true }).state.scope).toBe("local");
        for (const letter of ["r", "a", "y", "d", "n", "p"]) {
            expect(menuKey(options, INITIAL_MENU_STATE, letter, {})).toEqual({
                state: INITIAL_MENU_STATE,
            });
        }
        // A digit past the last option does nothing.
        expect(menuKey(options, INITIAL_MENU_STATE, "9", {}).answer).toBeUndefined();
    });
});
