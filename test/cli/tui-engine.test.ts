/**
 * The TUI's engine port around a real session handle (in process): model
 * switch and its saved choice, conversations, export, summary.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { type Approver, denyAll } from "../../src/agent/approvals";
import { parseCliArgs } from "../../src/cli/args";
import { conversationMarkdown } from "../../src/commands/export-markdown";
import { prepareSession } from "../../src/cli/session-setup";
import { type SessionHandle, startSession } from "../../src/cli/session-start";
import { createTuiEngine } from "../../src/cli/tui-engine";
import { createNoStandingApprovals } from "../../src/agent/approvals";
import { saveSelectedModel } from "../../src/storage/config";
import { createProfileStore } from "../../src/storage/profile";
import type { ChatEngine as TuiEngine } from "../../src/ui/command-context";
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

async function start(
    approver: Approver = denyAll("no")
): Promise<{ engine: TuiEngine; handle: SessionHandle }> {
    const args = parseCliArgs(["--path", repo]);
    if (!args.ok) throw new Error(args.error);
    const prepared = await prepareSession(args.args, () => undefined);
    if (!prepared.ok) throw new Error(prepared.error);
    handle = await startSession(prepared, {
        version: "test",
        frontEnd: "interactive",
        logLevel: "error",
        approver,
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

describe("TUI engine port: rewind and fork", () => {
    const approveAll: Approver = async () => ({ outcome: "approve" });
    const app = () => readFileSync(join(repo, "app.ts"), "utf8");
    const editTo = (from: number, to: number) => ({
        toolCalls: [
            {
                name: "edit_replace_exact",
                input: {
                    path: "app.ts",
                    old_text: `retries = ${from}`,
                    new_text: `retries = ${to}`,
                },
            },
        ],
    });

    /** Two prompts, each editing app.ts: 3 → 4 → 5. */
    async function twoEdits() {
        writeFileSync(join(repo, "app.ts"), "export const retries = 3;\n");
        const started = await start(approveAll);
        server.enqueue(editTo(3, 4), { text: "now 4" }, editTo(4, 5), { text: "now 5" });
        for (const prompt of ["make it 4", "make it 5"]) {
            // As the chat does: the prompt is shown (and recorded) before the session adds it.
            started.handle.recordView({ type: "user", text: prompt, attachments: [] });
            await started.handle.session.run(prompt, { mode: "agent" });
        }
        expect(app()).toBe("export const retries = 5;\n");
        return started;
    }

    const pointsOf = async (engine: TuiEngine) => {
        const listed = await engine.rewindPoints();
        if (!listed.ok) throw new Error(listed.error);
        return listed.points;
    };

    it("takes the code and the conversation back to before a prompt", async () => {
        const { engine, handle } = await twoEdits();
        const points = await pointsOf(engine);
        expect(points.map((p) => [p.number, p.text, p.files, p.changedSince])).toEqual([
            [1, "make it 4", ["app.ts"], []],
            [2, "make it 5", ["app.ts"], []],
        ]);
        const before = handle.session;
        const done = await engine.rewind({
            point: points[1]!,
            scope: "both",
            overwriteChanged: false,
        });
        expect(done.isError).toBeUndefined();
        expect(done.message).toContain("restored app.ts");
        expect(done.message).toContain("rewound to before prompt 2");
        expect(done.message).toContain("shell commands are not tracked");
        expect(app()).toBe("export const retries = 4;\n");
        expect(handle.session).not.toBe(before);
        expect(JSON.stringify(handle.session.messages)).toContain("now 4");
        expect(JSON.stringify(handle.session.messages)).not.toContain("make it 5");
        expect(handle.prompts().map((p) => p.text)).toEqual(["make it 4"]);
        // What the chat redraws: prompt 1 shown, prompt 2 gone with its answer.
        const shown = JSON.stringify(engine.history().view);
        expect(shown).toContain("make it 4");
        expect(shown).not.toContain("make it 5");
    });

    it("keeps a file changed since North changed it unless the user confirmed, then overwrites it", async () => {
        const { engine, handle } = await twoEdits();
        writeFileSync(join(repo, "app.ts"), "mine\n");
        const point = (await pointsOf(engine))[0]!;
        expect(point.changedSince).toEqual(["app.ts"]);
        const kept = await engine.rewind({ point, scope: "code", overwriteChanged: false });
        expect(kept.isError).toBe(true);
        expect(kept.message).toContain("kept app.ts: changed since North last changed it");
        expect(app()).toBe("mine\n");
        // Code only: the conversation is as it was.
        expect(handle.prompts()).toHaveLength(2);
        const overwritten = await engine.rewind({ point, scope: "code", overwriteChanged: true });
        expect(overwritten.isError).toBeUndefined();
        expect(app()).toBe("export const retries = 3;\n");
    });

    it("says the checkpoints are gone, rewinds the conversation alone, and never half of both", async () => {
        const { engine, handle } = await twoEdits();
        rmSync(join(home, "data", "checkpoints", handle.sessionId), {
            recursive: true,
            force: true,
        });
        const point = (await pointsOf(engine))[1]!;
        expect(point.code.ok).toBe(false);
        expect(!point.code.ok && point.code.error).toContain("are gone");
        const both = await engine.rewind({ point, scope: "both", overwriteChanged: false });
        expect(both.isError).toBe(true);
        expect(both.message).toContain("the conversation was not rewound either");
        expect(handle.prompts()).toHaveLength(2);
        const conversation = await engine.rewind({
            point,
            scope: "conversation",
            overwriteChanged: false,
        });
        expect(conversation.isError).toBeUndefined();
        expect(handle.prompts()).toHaveLength(1);
        expect(app()).toBe("export const retries = 5;\n");
    });

    it("forks at the end or before a prompt, naming both ids; refuses a bad number", async () => {
        const { engine, handle } = await twoEdits();
        const parent = handle.sessionId;
        const atEnd = await engine.fork();
        expect(atEnd.message).toBe(
            `Forked conversation ${parent} into ${handle.sessionId}; the original stays as it was: /resume ${parent}`
        );
        expect(handle.sessionId).not.toBe(parent);
        expect(handle.prompts()).toHaveLength(2);
        expect(handle.store.list({}).find((c) => c.id === handle.sessionId)?.forkedFrom).toBe(
            parent
        );

        const copy = handle.sessionId;
        expect((await engine.fork(3)).message).toBe(
            "/fork 3: choose a prompt from 1 to 2 (/rewind lists them)"
        );
        expect(handle.sessionId).toBe(copy);
        const early = await engine.fork(2);
        expect(early.promptText).toBe("make it 5");
        expect(early.message).toContain(`into ${handle.sessionId} before prompt 2`);
        expect(handle.prompts().map((p) => p.text)).toEqual(["make it 4"]);
        expect(JSON.stringify(engine.history().view)).not.toContain("make it 5");
    });

    it("refuses to rewind or fork while an answer is running", async () => {
        const { engine, handle } = await start();
        server.enqueue({ fault: "stall", ms: 30_000 });
        const abort = new AbortController();
        const running = handle.session.run("slow", { mode: "agent", signal: abort.signal });
        await vi.waitFor(() => expect(handle.session.state().running).toBe(true));
        const id = handle.sessionId;
        const listed = await engine.rewindPoints();
        expect(!listed.ok && listed.error).toContain("wait for the answer to finish");
        expect((await engine.fork()).isError).toBe(true);
        expect(handle.sessionId).toBe(id);
        abort.abort();
        await running;
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
