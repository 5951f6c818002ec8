import { describe, expect, it } from "vitest";
import type { ApprovalRequest, Approver } from "../../src/agent/approvals";
import { AgentSession } from "../../src/agent/session";
import { BUILTIN_MODELS } from "../../src/providers/catalogue";
import type { AnyToolDefinition } from "../../src/tools/types";
import { ScriptedProvider, type ScriptedReply, call, text } from "../kit/scripted-provider";
import { toolInput } from "../../src/tools/tool-input";

const sonnet = BUILTIN_MODELS.find((m) => m.alias === "sonnet-4")!;

function setup(replies: ScriptedReply[], approver: Approver) {
    const provider = new ScriptedProvider(replies);
    const ran: string[] = [];
    const shell: AnyToolDefinition = {
        name: "shell_run",
        description: "run",
        input: toolInput((z) => z.object({ command: z.string() })),
        approvalPolicy: "shell",
        readOnly: false,
        execute: async (input: { command: string }) => {
            ran.push(input.command);
            return { ok: true, data: { exitCode: 0 } };
        },
    };
    const session = new AgentSession({
        sessionId: "plan01",
        repoRoot: "/repo",
        model: sonnet,
        providerFor: async () => provider,
        tools: {
            list: () => [shell],
            schemas: (f) =>
                [shell]
                    .filter((t) => !f || f(t))
                    .map((t) => ({ name: t.name, description: "", inputSchema: {} })),
            execute: async (name, input, ctx) => shell.execute(input, ctx),
        },
        approver,
    });
    return { session, provider, ran };
}

const lastResult = (provider: ScriptedProvider, i: number) =>
    JSON.stringify(provider.requests[i]!.messages.at(-1));

describe("plan mode", () => {
    it("refuses commands until a plan is accepted, and sends rejection feedback back", async () => {
        const asked: ApprovalRequest[] = [];
        const approver: Approver = async (request) => {
            asked.push(request);
            if (request.kind === "plan") {
                return asked.filter((r) => r.kind === "plan").length === 1
                    ? { outcome: "deny", reason: "also run the linter" }
                    : { outcome: "approve" };
            }
            return { outcome: "approve" };
        };
        const { session, provider, ran } = setup(
            [
                { blocks: [call("t1", "shell_run", { command: "npm test" })] },
                { blocks: [call("p1", "propose_plan", { plan: "1. run tests" })] },
                { blocks: [call("p2", "propose_plan", { plan: "1. run tests\n2. run lint" })] },
                { blocks: [call("t2", "shell_run", { command: "npm test" })] },
                { blocks: [text("done")] },
            ],
            approver
        );
        const result = await session.run("fix it", { mode: "plan" });
        expect(result.subtype).toBe("success");
        expect(provider.requests[0]!.tools.map((t) => t.name)).toEqual([
            "shell_run",
            "propose_plan",
        ]);
        expect(lastResult(provider, 1)).toContain("PLAN_REQUIRED");
        expect(lastResult(provider, 2)).toContain("also run the linter");
        expect(lastResult(provider, 3)).toContain("accepted");
        expect(asked.map((r) => r.kind)).toEqual(["plan", "plan", "shell"]);
        expect(asked[1]!.plan).toContain("run lint");
        expect(ran).toEqual(["npm test"]);
    });

    it("with no one to review (print mode), ends with the plan as the result and runs nothing", async () => {
        const { session, ran } = setup(
            [
                {
                    blocks: [
                        text("Here is my plan."),
                        call("p1", "propose_plan", { plan: "# Plan\n1. edit a.ts" }),
                        call("t1", "shell_run", { command: "rm -rf x" }),
                    ],
                },
            ],
            async () => ({ outcome: "approve" })
        );
        const result = await session.run("plan it", { mode: "plan", planOnly: true });
        expect(result.subtype).toBe("success");
        expect(result.text).toBe("# Plan\n1. edit a.ts");
        expect(ran).toEqual([]);
        // every call is answered, so the conversation can continue
        const answered = JSON.stringify(session.messages.at(-1));
        expect(answered).toContain("p1");
        expect(answered).toContain("t1");
    });
});
