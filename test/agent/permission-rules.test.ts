/**
 * The executor obeys the permission rules: deny beats every approval (auto,
 * a session "always", a hook's allow), ask forces the review even under
 * auto-approval, and Edit rules judge every file of a write.
 */
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ApprovalRequest, ApprovalSettings, Approver } from "../../src/agent/approvals";
import { createNoStandingApprovals } from "../../src/agent/approvals";
import { type ToolExecutorDeps, executeToolCall } from "../../src/agent/tool-executor";
import { reviewPreparedWrite } from "../../src/agent/write-review";
import type { ToolCallBlock } from "../../src/providers/types";
import { silentLogger } from "../../src/storage/logger";
import { PermissionRules } from "../../src/tools/permissions/rules";
import { createEditTools, createToolRegistry } from "../../src/tools/index";
import { createShellRunTool } from "../../src/tools/shell-run";
import { createShellService } from "../../src/tools/shell-service";
import type { AnyToolDefinition, PreparedWrite, ToolResult } from "../../src/tools/types";
import { toolOk } from "../../src/tools/types";
import { type TempRepo, makeRepo } from "../tools/fixtures";

let repo: TempRepo;
let shell: ReturnType<typeof createShellService>;
beforeEach(async () => {
    repo = await makeRepo({ "src/a.ts": "export const a = 1;\n", "docs/b.md": "old\n" });
    shell = createShellService(repo.root);
});
afterEach(async () => {
    shell.dispose();
    await repo.cleanup();
});

function rulesOf(permissions: { allow?: string[]; deny?: string[]; ask?: string[] }) {
    const rules = new PermissionRules(
        { projectRoot: repo.root, home: "/nonexistent" },
        new Set(["Bash", "shell_run", "Edit", "edit_replace_exact"])
    );
    expect(rules.addSource({ source: "settings.json", permissions })).toEqual([]);
    return rules;
}

function settingsWith(
    rules: PermissionRules,
    extra: Partial<ApprovalSettings> = {}
): ApprovalSettings {
    return { ...createNoStandingApprovals(), permissionRules: rules, ...extra };
}

function recordingApprover(): Approver & { asked: ApprovalRequest[] } {
    const asked: ApprovalRequest[] = [];
    const approver: Approver = async (request) => {
        asked.push(request);
        return { outcome: "approve" };
    };
    return Object.assign(approver, { asked });
}

let callId = 0;
function call(
    name: string,
    input: Record<string, unknown>,
    deps: Partial<ToolExecutorDeps> & Pick<ToolExecutorDeps, "approver" | "settings">
): Promise<ToolResult> {
    const tools = createToolRegistry([
        ...createEditTools(),
        createShellRunTool(shell) as AnyToolDefinition,
    ]);
    const block: ToolCallBlock = {
        type: "tool_call",
        id: `c${++callId}`,
        name,
        input,
        rawInput: JSON.stringify(input),
    };
    return executeToolCall(
        block,
        new Set(tools.list().map((t) => t.name)),
        new AbortController().signal,
        { tools, repoRoot: repo.root, logger: silentLogger, emit: () => {}, ...deps }
    );
}

const touch = { command: "touch ran.txt" };
const ran = () => existsSync(path.join(repo.root, "ran.txt"));

describe("shell commands under the rules", () => {
    it("a deny holds under auto-approval, a session 'always' and a hook's allow", async () => {
        const approver = recordingApprover();
        const settings = settingsWith(rulesOf({ deny: ["Bash(touch ran.txt)"] }), {
            isShellAutoApproved: () => true,
            isCommandAllowed: () => true,
        });
        const result = await call("shell_run", touch, {
            approver,
            settings,
            preToolUse: async () => ({ permission: { decision: "allow" } }),
        });
        expect(result.ok).toBe(false);
        expect(JSON.stringify(result)).toContain("Bash(touch ran.txt) (settings.json)");
        expect(approver.asked).toEqual([]);
        expect(ran()).toBe(false);
    });

    it("a bare tool-name deny refuses every call of that tool, by name or alias", async () => {
        for (const rule of ["shell_run", "Bash"]) {
            const approver = recordingApprover();
            const result = await call("shell_run", touch, {
                approver,
                settings: settingsWith(rulesOf({ deny: [rule] }), {
                    isShellAutoApproved: () => true,
                }),
            });
            expect(JSON.stringify(result)).toContain(`denied by the permission rule ${rule}`);
            expect(ran()).toBe(false);
        }
    });

    it("an ask rule shows the review even under auto-approval, naming the rule", async () => {
        const approver = recordingApprover();
        const result = await call("shell_run", touch, {
            approver,
            settings: settingsWith(rulesOf({ ask: ["Bash(touch ran.txt)"] }), {
                isShellAutoApproved: () => true,
            }),
        });
        expect(result.ok).toBe(true);
        expect(approver.asked).toHaveLength(1);
        expect(approver.asked[0]!.askRule).toBeDefined();
        expect(ran()).toBe(true);
    });

    it("an allow rule runs the command without a review; a prefix choice is remembered", async () => {
        const approver = recordingApprover();
        const result = await call("shell_run", touch, {
            approver,
            settings: settingsWith(rulesOf({ allow: ["Bash(touch ran.txt)"] })),
        });
        expect(result.ok).toBe(true);
        expect(approver.asked).toEqual([]);

        const remembered: string[] = [];
        const prefixApprover: Approver = async (request) => {
            expect(request.standingOptions?.map((o) => o.grant)).toContainEqual({
                kind: "prefix",
                pattern: "touch:*",
            });
            return { outcome: "approve", remember: "prefix" };
        };
        await call(
            "shell_run",
            { command: "touch other.txt" },
            {
                approver: prefixApprover,
                settings: settingsWith(rulesOf({}), {
                    allowCommandPattern: (pattern) => remembered.push(pattern),
                }),
            }
        );
        expect(remembered).toEqual(["touch:*"]);
    });
});

describe("commands that write files under the Edit rules", () => {
    it("a redirection into a denied path is refused under auto-approval, naming the Edit rule", async () => {
        const result = await call(
            "shell_run",
            { command: "echo hacked > src/a.ts" },
            {
                approver: recordingApprover(),
                settings: settingsWith(rulesOf({ deny: ["Edit(src/**)"] }), {
                    isShellAutoApproved: () => true,
                }),
            }
        );
        expect(JSON.stringify(result)).toContain("Edit(src/**) (settings.json)");
        expect(await fs.readFile(path.join(repo.root, "src/a.ts"), "utf8")).toBe(
            "export const a = 1;\n"
        );
    });

    it("a redirection after a `cd` names the Edit rule over the path it really writes", async () => {
        const result = await call(
            "shell_run",
            { command: "cd src && echo hacked > a.ts" },
            {
                approver: recordingApprover(),
                settings: settingsWith(rulesOf({ deny: ["Edit(src/**)"] }), {
                    isShellAutoApproved: () => true,
                }),
            }
        );
        expect(result.ok).toBe(false);
        expect(JSON.stringify(result)).toContain(
            "is denied by the permission rule Edit(src/**) (settings.json)"
        );
        expect(await fs.readFile(path.join(repo.root, "src/a.ts"), "utf8")).toBe(
            "export const a = 1;\n"
        );
    });

    it("a redirection into git's internals is reviewed under every allowance, also through a symlink", async () => {
        await fs.mkdir(path.join(repo.root, ".git", "hooks"), { recursive: true });
        await fs.symlink("../.git/hooks", path.join(repo.root, "src", "hooks"));
        // An ordinary file written the same way: unasked.
        const plain = recordingApprover();
        await call(
            "shell_run",
            { command: "cat src/a.ts > docs/copy.ts" },
            {
                approver: plain,
                settings: settingsWith(rulesOf({ allow: ["Bash(cat:*)"] }), {
                    isEditsAutoAccepted: () => true,
                }),
            }
        );
        expect(plain.asked).toEqual([]);
        expect(await fs.readFile(path.join(repo.root, "docs/copy.ts"), "utf8")).toContain("a = 1");
        for (const command of [
            "cat src/a.ts >> .git/config",
            "cat src/a.ts > src/hooks/pre-commit",
            "cd src && echo x > hooks/post-checkout",
        ]) {
            const approver = recordingApprover();
            await call(
                "shell_run",
                { command },
                {
                    approver,
                    settings: settingsWith(
                        rulesOf({
                            allow: ["Bash(cat:*)", "Bash(echo:*)", "Bash(cd:*)", "Edit(**)"],
                        }),
                        { isEditsAutoAccepted: () => true }
                    ),
                }
            );
            expect(approver.asked, command).toHaveLength(1);
        }
    });

    it("a redirection through a symlink is judged where it leads: a deny rule there refuses it", async () => {
        await fs.symlink("../docs/b.md", path.join(repo.root, "src", "notes.md"));
        const approver = recordingApprover();
        const result = await call(
            "shell_run",
            { command: "echo x > src/notes.md" },
            {
                approver,
                settings: settingsWith(
                    rulesOf({ allow: ["Bash(echo:*)"], deny: ["Edit(docs/**)"] }),
                    {
                        isEditsAutoAccepted: () => true,
                    }
                ),
            }
        );
        expect(JSON.stringify(result)).toContain(
            "is denied by the permission rule Edit(docs/**) (settings.json)"
        );
        expect(approver.asked).toEqual([]);
        expect(await fs.readFile(path.join(repo.root, "docs/b.md"), "utf8")).toBe("old\n");
    });

    it("a command only known when it runs names the first deny rule as written, with its file", async () => {
        const approver = recordingApprover();
        const result = await call(
            "shell_run",
            { command: '"$CMD" ran.txt' },
            {
                approver,
                settings: settingsWith(rulesOf({ deny: ["Bash( rm:* )", "Bash(touch:*)"] }), {
                    isShellAutoApproved: () => true,
                }),
            }
        );
        expect(JSON.stringify(result)).toContain(
            "is denied by the permission rule Bash( rm:* ) (settings.json)"
        );
        expect(approver.asked).toEqual([]);
    });
});

describe("writes under the Edit rules", () => {
    const replace = { path: "src/a.ts", old_text: "a = 1", new_text: "a = 2" };
    const read = (rel: string) => fs.readFile(path.join(repo.root, rel), "utf8");

    it("a deny refuses the edit under auto-accept and a hook's allow; nothing is written", async () => {
        const approver = recordingApprover();
        const result = await call("edit_replace_exact", replace, {
            approver,
            settings: settingsWith(rulesOf({ deny: ["Edit(src/**)"] }), {
                isEditsAutoAccepted: () => true,
            }),
            preToolUse: async () => ({ permission: { decision: "allow" } }),
        });
        expect(JSON.stringify(result)).toContain("denied by the permission rule Edit(src/**)");
        expect(await read("src/a.ts")).toBe("export const a = 1;\n");
        expect(approver.asked).toEqual([]);
    });

    it("an ask rule asks even under auto-accept; an allow rule accepts unasked", async () => {
        const asker = recordingApprover();
        await call("edit_replace_exact", replace, {
            approver: asker,
            settings: settingsWith(rulesOf({ ask: ["Edit(./src/a.ts)"] }), {
                isEditsAutoAccepted: () => true,
            }),
        });
        expect(asker.asked).toHaveLength(1);
        expect(asker.asked[0]!.askRule).toContain("Edit(./src/a.ts)");

        const allower = recordingApprover();
        const result = await call(
            "edit_replace_exact",
            { path: "docs/b.md", old_text: "old", new_text: "new" },
            { approver: allower, settings: settingsWith(rulesOf({ allow: ["Edit(docs/**)"] })) }
        );
        expect(result.ok).toBe(true);
        expect(allower.asked).toEqual([]);
        expect(await read("docs/b.md")).toBe("new\n");
    });

    it("an allow rule covers a symlinked file only when where it leads is allowed too", async () => {
        await fs.symlink("../docs/b.md", path.join(repo.root, "src", "notes.md"));
        const asker = recordingApprover();
        await call(
            "edit_replace_exact",
            { path: "src/notes.md", old_text: "old", new_text: "new" },
            { approver: asker, settings: settingsWith(rulesOf({ allow: ["Edit(src/**)"] })) }
        );
        expect(asker.asked).toHaveLength(1);
        const allower = recordingApprover();
        await call(
            "edit_replace_exact",
            { path: "src/notes.md", old_text: "new", new_text: "newer" },
            {
                approver: allower,
                settings: settingsWith(rulesOf({ allow: ["Edit(src/**)", "Edit(docs/**)"] })),
            }
        );
        expect(allower.asked).toEqual([]);
        expect(await read("docs/b.md")).toBe("newer\n");
    });

    it("NORTH_FILE-style prepared writes obey the same deny rules and are discarded", async () => {
        let applied = false;
        let discarded = false;
        const change: PreparedWrite = {
            kind: "prepared_write",
            summary: "Creating src/new.ts",
            diffs: [
                { path: "src/new.ts", diff: "", linesAdded: 1, linesRemoved: 0, isNewFile: true },
            ],
            apply: async () => {
                applied = true;
                return toolOk({});
            },
            discard: async () => {
                discarded = true;
            },
        };
        const result = await reviewPreparedWrite(
            change,
            { toolName: "north_file", toolCallId: "n1", input: {} },
            new AbortController().signal,
            {
                approver: recordingApprover(),
                settings: settingsWith(rulesOf({ deny: ["Edit(src/**)"] }), {
                    isEditsAutoAccepted: () => true,
                }),
                logger: silentLogger,
                emit: () => {},
                repoRoot: repo.root,
            }
        );
        expect(result.ok).toBe(false);
        expect(applied).toBe(false);
        expect(discarded).toBe(true);
    });
});
