/**
 * Through a whole run (the real Anthropic SDK against the fake LLM server):
 * the model reads the error its edit introduced in the edit's tool result,
 * and stream-json (so the Node API too) carries the `diagnostics` event; an
 * answer that came after its edit's result goes with the next tool result.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createNoStandingApprovals } from "../../src/agent/approvals";
import type { EngineEvent } from "../../src/agent/events";
import { AgentSession } from "../../src/agent/session";
import { streamJsonLine } from "../../src/headless/print-mode";
import { createAnthropicProvider } from "../../src/providers/anthropic";
import { BUILTIN_MODELS } from "../../src/providers/catalogue";
import { createEditTools, createToolRegistry } from "../../src/tools/index";
import { toolInput } from "../../src/tools/tool-input";
import { type AnyToolDefinition, toolOk } from "../../src/tools/types";
import { BAD_MESSAGE, FakeLanguageService } from "../kit/fake-language-service";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";

const sonnet = BUILTIN_MODELS.find((m) => m.alias === "sonnet-4")!;

let server: FakeLlmServer;
let repo: string;
beforeAll(async () => {
    server = await startFakeLlmServer();
});
afterAll(async () => {
    await server.close();
});
beforeEach(() => {
    repo = realpathSync(mkdtempSync(join(tmpdir(), "north-edit-diagnostics-")));
    writeFileSync(join(repo, "app.ts"), "export const a = 1;\nexport const b = 2;\n");
    server.requests.length = 0;
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

/** The tool results the model was sent, in order. */
function toolResultsSent(): string[] {
    return server.requests.flatMap((request) => {
        const body = request.body as {
            messages: Array<{ role: string; content: unknown }>;
        };
        const last = body.messages.at(-1);
        if (!last || last.role !== "user" || !Array.isArray(last.content)) return [];
        return (last.content as Array<{ type: string; content?: unknown }>)
            .filter((block) => block.type === "tool_result")
            .map((block) =>
                typeof block.content === "string" ? block.content : JSON.stringify(block.content)
            );
    });
}

function sessionWith(
    languages: FakeLanguageService,
    extraTools: AnyToolDefinition[] = [],
    diagnosticsBudgetMs?: number
): { session: AgentSession; events: EngineEvent[] } {
    const session = new AgentSession({
        sessionId: "s1",
        repoRoot: repo,
        model: sonnet,
        providerFor: async () =>
            createAnthropicProvider({
                api: "anthropic",
                baseUrl: server.anthropicBaseUrl,
                apiKey: "k",
            }),
        tools: createToolRegistry([...createEditTools(), ...extraTools]),
        approver: async () => ({ outcome: "deny", reason: "nobody asked" }),
        approvalSettings: { ...createNoStandingApprovals(), isEditsAutoAccepted: () => true },
        languages,
        diagnosticsBudgetMs,
    });
    const events: EngineEvent[] = [];
    session.subscribe((event) => events.push(event));
    return { session, events };
}

const breakB = {
    path: "app.ts",
    old_text: "export const b = 2;",
    new_text: "export const b = BAD;",
};

describe("edit diagnostics in a run", () => {
    it("hands a late answer to the model with the next tool result", async () => {
        const languages = new FakeLanguageService(".ts");
        let lateSeen: () => void = () => undefined;
        const late = new Promise<void>((resolve) => (lateSeen = resolve));
        // The next call runs once the held answer came out (the model would call anything).
        const waitTool: AnyToolDefinition = {
            name: "wait_for_it",
            description: "Waits.",
            input: toolInput((z) => z.object({})),
            approvalPolicy: "none",
            readOnly: true,
            execute: async () => {
                languages.release();
                await late;
                return toolOk({ waited: true });
            },
        };
        // A budget of 1 ms with an answer held until released: always pending, no clock involved.
        const { session, events } = sessionWith(languages, [waitTool], 1);
        session.subscribe((event) => {
            if (event.type === "diagnostics" && !event.pending) lateSeen();
        });
        const held = languages.callsMade(1).then(() => {
            languages.hold = true;
        });
        server.enqueue(
            { toolCalls: [{ id: "toolu_edit", name: "edit_replace_exact", input: breakB }] },
            { toolCalls: [{ id: "toolu_wait", name: "wait_for_it", input: {} }] },
            { text: "Done." }
        );
        const result = await session.run("break it", { mode: "agent" });
        await held;
        expect(result.subtype).toBe("success");
        const [editResult, waitResult] = toolResultsSent();
        expect(editResult).toContain(
            "diagnostics pending: the language server did not answer within 0s"
        );
        expect(waitResult).toContain(
            "The diagnostics of the earlier edit of app.ts (call toolu_edit) came after its result."
        );
        expect(waitResult).toContain(`app.ts:2:18 error ${BAD_MESSAGE} (fake E1)`);
        expect(
            events
                .filter((e) => e.type === "diagnostics")
                .map((e) => e.type === "diagnostics" && e.pending)
        ).toEqual([true, false]);
    });

    it("gives the model the introduced error and emits the event to stream-json", async () => {
        const { session, events } = sessionWith(new FakeLanguageService(".ts"));
        server.enqueue(
            { toolCalls: [{ id: "toolu_edit", name: "edit_replace_exact", input: breakB }] },
            { text: "Fixed nothing." }
        );
        const result = await session.run("break it", { mode: "agent" });
        expect(result.subtype).toBe("success");
        expect(readFileSync(join(repo, "app.ts"), "utf8")).toContain("BAD");

        const [sent] = toolResultsSent();
        expect(sent).toContain(`app.ts:2:18 error ${BAD_MESSAGE} (fake E1)`);
        expect(sent).toContain("1 error introduced by this edit");

        const event = events.find((e) => e.type === "diagnostics");
        expect(event).toBeDefined();
        const line = streamJsonLine(event!, "s1");
        expect(line).toEqual({
            type: "diagnostics",
            tool_call_id: "toolu_edit",
            introduced: [
                {
                    path: "app.ts",
                    line: 2,
                    column: 18,
                    end_line: 2,
                    end_column: 21,
                    severity: "error",
                    message: BAD_MESSAGE,
                    source: "fake",
                    code: "E1",
                    server: "fake-server",
                },
            ],
            more: 0,
            fixed: 0,
            pending: false,
            baseline_known: true,
        });
        // Front-ends see it before the edit's result, so it lands under the edit.
        const order = events
            .filter((e) => e.type === "diagnostics" || e.type === "tool_result")
            .map((e) => e.type);
        expect(order).toEqual(["diagnostics", "tool_result"]);
    });
});
