/**
 * The TUI's engine port around a real session handle (in process): model
 * switch and its saved choice, conversations, export, summary.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { denyAll } from "../../src/agent/approvals";
import { parseCliArgs } from "../../src/cli/args";
import { conversationMarkdown } from "../../src/cli/export-markdown";
import { prepareSession } from "../../src/cli/session-setup";
import { type SessionHandle, startSession } from "../../src/cli/session-start";
import { createTuiEngine } from "../../src/cli/tui-engine";
import { createNoStandingApprovals } from "../../src/agent/approvals";
import { saveSelectedModel } from "../../src/storage/config";
import { createProfileStore } from "../../src/storage/profile";
import type { TuiEngine } from "../../src/ui/engine-port";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome } from "../kit/run-north";

let server: FakeLlmServer;
let home: string;
let repo: string;
let handle: SessionHandle | undefined;

beforeAll(async () => {
    server = await startFakeLlmServer();
});
afterAll(async () => {
    await server.close();
});
beforeEach(() => {
    const isolated = isolatedHome();
    home = isolated.home;
    repo = mkdtempSync(join(tmpdir(), "north-tui-engine-"));
    for (const [key, value] of Object.entries(isolated.env)) vi.stubEnv(key, value);
    vi.stubEnv("ANTHROPIC_API_KEY", "k");
    vi.stubEnv("ANTHROPIC_BASE_URL", server.anthropicBaseUrl);
    vi.stubEnv("OPENAI_API_KEY", "");
    server.requests.length = 0;
});
afterEach(() => {
    handle?.close();
    handle = undefined;
    vi.unstubAllEnvs();
    rmSync(home, { recursive: true, force: true });
    rmSync(repo, { recursive: true, force: true });
});

async function start(): Promise<{ engine: TuiEngine; handle: SessionHandle }> {
    const args = parseCliArgs(["--path", repo]);
    if (!args.ok) throw new Error(args.error);
    const prepared = prepareSession(args.args, () => undefined);
    if (!prepared.ok) throw new Error(prepared.error);
    handle = await startSession(prepared, {
        version: "test",
        frontEnd: "interactive",
        logLevel: "error",
        approver: denyAll("no"),
        approvalSettings: () => createNoStandingApprovals(),
        decideTrust: async () => "untrusted",
        warn: () => undefined,
    });
    const profiles = createProfileStore(join(home, "data"), prepared.repoRoot);
    return { engine: createTuiEngine(handle, { profiles }), handle };
}

const configPath = () => join(home, "config", "config.json");

describe("TUI engine port", () => {
    it("switches model, keeps the transcript and saves the choice without losing other fields", async () => {
        const { engine, handle } = await start();
        server.enqueue({ text: "first answer" });
        await handle.session.run("hello", { mode: "agent" });
        mkdirSync(join(home, "config"), { recursive: true });
        writeFileSync(configPath(), JSON.stringify({ mcpServers: {}, mine: { keep: true } }));

        const result = await engine.switchModel("haiku-4-5");
        expect(result.isError).toBeUndefined();
        expect(handle.session.state().model.alias).toBe("haiku-4-5");
        const saved = JSON.parse(readFileSync(configPath(), "utf8")) as Record<string, unknown>;
        expect(saved).toEqual({ mcpServers: {}, mine: { keep: true }, selectedModel: "haiku-4-5" });

        server.enqueue({ text: "second answer" });
        await handle.session.run("again", { mode: "agent" });
        const body = server.requests.at(-1)?.body as { model: string; messages: unknown[] };
        expect(body.model).toBe("claude-haiku-4-5-20251001");
        expect(JSON.stringify(body.messages)).toContain("first answer");
    });

    it("refuses an unknown alias or a provider without a key, and changes nothing", async () => {
        const { engine, handle } = await start();
        const unknown = await engine.switchModel("haiku-45");
        expect(unknown.isError).toBe(true);
        expect(unknown.message).toContain("haiku-4-5");
        const noKey = await engine.switchModel("gpt-5.1");
        expect(noKey.isError).toBe(true);
        expect(noKey.message).toContain("OPENAI_API_KEY");
        expect(handle.session.state().model.alias).toBe("sonnet-4");
        expect(existsSync(configPath())).toBe(false);
    });

    it("leaves a config that is not JSON alone", () => {
        mkdirSync(join(home, "config"), { recursive: true });
        writeFileSync(configPath(), "{ broken");
        const saved = saveSelectedModel("haiku-4-5");
        expect(saved.ok).toBe(false);
        expect(readFileSync(configPath(), "utf8")).toBe("{ broken");
    });

    it("starts a new conversation, lists and resumes the old one", async () => {
        const { engine, handle } = await start();
        server.enqueue({ text: "old answer" });
        await handle.session.run("old question", { mode: "agent" });
        const oldId = handle.sessionId;
        const oldSession = handle.session;

        const fresh = await engine.newConversation();
        expect(fresh.message).toContain(`/resume ${oldId}`);
        expect(handle.sessionId).not.toBe(oldId);
        expect(handle.session).not.toBe(oldSession);
        expect(handle.session.messages).toHaveLength(0);

        const listed = await engine.listConversations();
        expect(listed.map((o) => o.id)).toContain(oldId);
        expect(listed.map((o) => o.id)).not.toContain(handle.sessionId);

        expect((await engine.resume("abcdef")).isError).toBe(true);
        expect((await engine.resume(handle.sessionId)).isError).toBe(true);
        const resumed = await engine.resume(oldId);
        expect(resumed.isError).toBeUndefined();
        expect(handle.sessionId).toBe(oldId);
        expect(JSON.stringify(handle.session.messages)).toContain("old question");

        server.enqueue({ text: "continued" });
        await handle.session.run("continue", { mode: "agent" });
        const body = server.requests.at(-1)?.body as { messages: unknown[] };
        expect(JSON.stringify(body.messages)).toContain("old answer");
    });

    it("exports Markdown inside the project only", async () => {
        const { engine, handle } = await start();
        server.enqueue({ text: "**bold** answer" });
        await handle.session.run("a question", { mode: "agent" });
        const done = await engine.exportMarkdown(undefined);
        expect(done.isError).toBeUndefined();
        const file = join(repo, `north-${handle.sessionId}.md`);
        expect(readFileSync(file, "utf8")).toContain("**bold** answer");
        expect((await engine.exportMarkdown("docs/log.md")).isError).toBeUndefined();
        expect(existsSync(join(repo, "docs", "log.md"))).toBe(true);
        for (const bad of ["../out.md", "/etc/north.md", ".git/x.md"]) {
            expect((await engine.exportMarkdown(bad)).isError).toBe(true);
        }
    });

    it("summarises on request and counts session and all-time costs", async () => {
        const { engine, handle } = await start();
        for (let i = 0; i < 3; i++) {
            server.enqueue({ text: `answer ${i}` });
            await handle.session.run(`question ${i}`, { mode: "agent" });
        }
        server.enqueue({
            text: JSON.stringify({
                goal: "g",
                decisions: [],
                constraints: [],
                openTasks: [],
                importantFiles: [],
            }),
        });
        const summary = await engine.summarize(2, new AbortController().signal);
        expect(summary.message).toContain("summarised");
        expect(handle.session.rollingSummary?.goal).toBe("g");
        const costs = engine.costs();
        expect(costs.session.map((r) => r.model)).toEqual(["claude-sonnet-4-20250514"]);
        expect(costs.allTime.map((r) => r.model)).toEqual(["claude-sonnet-4-20250514"]);
        expect(engine.statusCosts().allTimeUsd).toBe(costs.allTimeUsd);
    });
});

describe("conversationMarkdown", () => {
    it("writes prompts, answers and tool calls", () => {
        const markdown = conversationMarkdown({
            id: "abcdef",
            repoRoot: "/repo",
            model: "m",
            summary: null,
            exportedAt: new Date(0),
            messages: [
                { role: "user", content: "fix it" },
                {
                    role: "assistant",
                    content: [
                        { type: "text", text: "Looking." },
                        {
                            type: "tool_call",
                            id: "t1",
                            name: "read_file",
                            input: { path: "a.ts" },
                            rawInput: '{"path":"a.ts"}',
                        },
                    ],
                },
                {
                    role: "user",
                    content: [
                        {
                            type: "tool_result",
                            toolCallId: "t1",
                            content: "```x```",
                            isError: false,
                        },
                    ],
                },
            ],
        });
        expect(markdown).toContain("# North conversation abcdef");
        expect(markdown).toContain("## User\n\nfix it");
        expect(markdown).toContain("**Tool:** `read_file`");
        expect(markdown).toContain("````\n```x```\n````");
    });
});
