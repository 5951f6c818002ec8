/**
 * `!command` (issue 36, part 2): the user's command runs through the model's
 * `shell_run` and shell service without a review, the deny rules refuse it
 * naming the rule, its events read as a command's, and the model gets the
 * command, its output's head and tail and how it ended as the user's message.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createNoStandingApprovals } from "../../src/agent/approvals";
import { Conversation } from "../../src/agent/conversation";
import type { EngineEvent } from "../../src/agent/events";
import { runUserShell } from "../../src/agent/user-shell";
import { BUILTIN_MODELS } from "../../src/providers/catalogue";
import { silentLogger } from "../../src/storage/logger";
import { createToolRegistry } from "../../src/tools/index";
import { PermissionRules } from "../../src/tools/permissions/rules";
import { createShellRunTool } from "../../src/tools/shell-run";
import { createShellService } from "../../src/tools/shell-service";
import { type TempRepo, makeRepo } from "../tools/fixtures";

const sonnet = BUILTIN_MODELS.find((m) => m.alias === "sonnet-4")!;

let repo: TempRepo;
let shell: ReturnType<typeof createShellService>;
beforeEach(async () => {
    repo = await makeRepo({ "keep.txt": "keep\n" });
    shell = createShellService(repo.root);
});
afterEach(async () => {
    shell.dispose();
    await repo.cleanup();
});

function depsWith(deny: string[] = []) {
    const events: EngineEvent[] = [];
    const emit = (event: EngineEvent): void => void events.push(event);
    const rules = new PermissionRules(
        { projectRoot: repo.root, home: "/nonexistent" },
        new Set(["Bash", "shell_run"])
    );
    expect(rules.addSource({ source: "settings.json", permissions: { deny } })).toEqual([]);
    const conversation = new Conversation({ model: sonnet, emit });
    return {
        events,
        conversation,
        deps: {
            conversation,
            tools: createToolRegistry([createShellRunTool(shell)]),
            settings: { ...createNoStandingApprovals(), permissionRules: rules },
            repoRoot: repo.root,
            emit,
            logger: silentLogger,
        },
    };
}

describe("runUserShell", () => {
    it("runs without a review and adds the command, its output and exit code as the user's", async () => {
        const { deps, events, conversation } = depsWith();
        const reply = await runUserShell(
            "echo one; echo two >&2; exit 3",
            new AbortController().signal,
            deps
        );
        expect(reply).toEqual({ message: "exit code 3", exitCode: 3 });
        expect(events.map((e) => e.type)).toEqual(
            expect.arrayContaining(["tool_call_start", "tool_call", "tool_result"])
        );
        expect(events.some((e) => e.type === "approval_request")).toBe(false);
        const message = conversation.messages.at(-1)!;
        expect(message.role).toBe("user");
        expect(message.content).toContain("$ echo one; echo two >&2; exit 3");
        expect(message.content).toContain("one\ntwo");
        expect(message.content).toContain("[exit code 3]");
    });

    it("keeps the head and tail of a long output, as a shell_run digest does", async () => {
        const { deps, conversation } = depsWith();
        await runUserShell("seq 1 5000", new AbortController().signal, deps);
        const text = conversation.messages.at(-1)!.content as string;
        expect(text).toContain("\n1\n");
        expect(text).toContain("5000");
        expect(text).toMatch(/\d+ lines of output omitted/);
        expect(text).not.toContain("\n2500\n");
    });

    it("a Bash deny rule refuses it, naming the rule; nothing runs and nothing is added", async () => {
        const { deps, events, conversation } = depsWith(["Bash(rm:*)"]);
        const reply = await runUserShell("rm keep.txt", new AbortController().signal, deps);
        expect(reply.isError).toBe(true);
        expect(reply.message).toContain("denied by the permission rule Bash(rm:*) (settings.json)");
        expect(events).toEqual([]);
        expect(conversation.messages).toEqual([]);
        expect(readFileSync(join(repo.root, "keep.txt"), "utf8")).toBe("keep\n");
    });

    it("the provider keys are not in its environment", async () => {
        const { deps, conversation } = depsWith();
        const previous = process.env.ANTHROPIC_API_KEY;
        process.env.ANTHROPIC_API_KEY = "secret-key-value";
        try {
            await runUserShell(
                "echo key=${ANTHROPIC_API_KEY:-none}",
                new AbortController().signal,
                deps
            );
        } finally {
            if (previous === undefined) delete process.env.ANTHROPIC_API_KEY;
            else process.env.ANTHROPIC_API_KEY = previous;
        }
        expect(conversation.messages.at(-1)!.content).toContain("key=none");
    });
});
