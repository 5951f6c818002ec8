/**
 * Through a whole run (the real Anthropic SDK against the fake LLM server):
 * the model reads the error its edit introduced in the edit's tool result,
 * and stream-json (so the Node API too) carries the `diagnostics` event.
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

describe("edit diagnostics in a run", () => {
    it("gives the model the introduced error and emits the event to stream-json", async () => {
        const languages = new FakeLanguageService(".ts");
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
            tools: createToolRegistry(createEditTools()),
            approver: async () => ({ outcome: "deny", reason: "nobody asked" }),
            approvalSettings: { ...createNoStandingApprovals(), isEditsAutoAccepted: () => true },
            languages,
        });
        const events: EngineEvent[] = [];
        session.subscribe((event) => events.push(event));
        server.enqueue(
            {
                toolCalls: [
                    {
                        id: "toolu_edit",
                        name: "edit_replace_exact",
                        input: {
                            path: "app.ts",
                            old_text: "export const b = 2;",
                            new_text: "export const b = BAD;",
                        },
                    },
                ],
            },
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
