/**
 * The engine host's ops over a real session (in process), as the chat
 * builds it: model switch and its saved choice, conversations, export,
 * summary, costs, rewind and fork.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { type Approver, denyAll } from "../../src/agent/approvals";
import { parseCliArgs } from "../../src/cli/args";
import { conversationMarkdown } from "../../src/agent/host/export-markdown";
import { answerApprovalsWith } from "../../src/agent/approval-answers";
import type { EngineHost } from "../../src/agent/engine-host";
import { resolveReadyModel } from "../../src/cli/model-selection";
import { prepareSession } from "../../src/cli/session-setup";
import { type EngineSession, startSession } from "../../src/cli/session-start";
import { createNoStandingApprovals } from "../../src/agent/approvals";
import { loadUserSettings } from "../../src/storage/settings/load";
import { saveSelectedModel } from "../../src/storage/config";
import { createProfileStore } from "../../src/storage/profile";
import { dataDir, exportsDir } from "../../src/storage/paths";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome } from "../kit/run-north";

let server: FakeLlmServer;
let home: string;
let repo: string;
let handle: EngineSession | undefined;

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

/** The host as the chat builds it (a switched model is saved); `approver` answers its approvals. */
async function start(
    approver: Approver = denyAll("no"),
    flags: string[] = []
): Promise<{ host: EngineHost; handle: EngineSession }> {
    const args = parseCliArgs(["--path", repo, ...flags]);
    if (!args.ok) throw new Error(args.error);
    const prepared = await prepareSession(
        args.args,
        () => undefined,
        async () => loadUserSettings
    );
    if (!prepared.ok) throw new Error(prepared.error);
    handle = await startSession(prepared, {
        version: "test",
        frontEnd: "interactive",
        logLevel: "error",
        mode: "agent",
        resolveModel: (name) => resolveReadyModel(prepared.catalogue, name, process.env),
        saveModel: (alias) => saveSelectedModel(alias),
        profiles: createProfileStore(join(home, "data"), prepared.repoRoot),
        approvalSettings: () => createNoStandingApprovals(),
        decideTrust: async () => "untrusted",
        warn: () => undefined,
    });
    answerApprovalsWith(handle.host, approver);
    return { host: handle.host, handle };
}

const configPath = () => join(home, "config", "config.json");

describe("the engine host's ops", () => {
    it("switches model, keeps the transcript and saves the choice without losing other fields", async () => {
        const { host, handle } = await start();
        server.enqueue({ text: "first answer" });
        await handle.host.submit({ type: "prompt", text: "hello" });
        mkdirSync(join(home, "config"), { recursive: true });
        writeFileSync(configPath(), JSON.stringify({ mcpServers: {}, mine: { keep: true } }));

        const result = await host.submit({ type: "set_model", name: "haiku-4-5" });
        expect(result.isError).toBeUndefined();
        expect(handle.host.conversation.session.state().model.alias).toBe("haiku-4-5");
        const saved = JSON.parse(readFileSync(configPath(), "utf8")) as Record<string, unknown>;
        expect(saved).toEqual({ mcpServers: {}, mine: { keep: true }, selectedModel: "haiku-4-5" });

        server.enqueue({ text: "second answer" });
        await handle.host.submit({ type: "prompt", text: "again" });
        const body = server.requests.at(-1)?.body as { model: string; messages: unknown[] };
        expect(body.model).toBe("claude-haiku-4-5-20251001");
        expect(JSON.stringify(body.messages)).toContain("first answer");
    });

    it("refuses an unknown alias or a provider without a key, and changes nothing", async () => {
        const { host, handle } = await start();
        const unknown = await host.submit({ type: "set_model", name: "haiku-45" });
        expect(unknown.isError).toBe(true);
        expect(unknown.message).toContain("haiku-4-5");
        const noKey = await host.submit({ type: "set_model", name: "gpt-5.1" });
        expect(noKey.isError).toBe(true);
        expect(noKey.message).toContain("OPENAI_API_KEY");
        expect(handle.host.conversation.session.state().model.alias).toBe("opus-5-5");
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
        const { host, handle } = await start();
        server.enqueue({ text: "old answer" });
        await handle.host.submit({ type: "prompt", text: "old question" });
        const oldId = handle.host.conversation.sessionId;
        const oldSession = handle.host.conversation.session;

        const fresh = await host.submit({ type: "new_conversation" });
        expect(fresh.message).toContain(`/resume ${oldId}`);
        expect(handle.host.conversation.sessionId).not.toBe(oldId);
        expect(handle.host.conversation.session).not.toBe(oldSession);
        expect(handle.host.conversation.session.messages).toHaveLength(0);

        const listed = await host.submit({ type: "list_conversations" });
        expect(listed.map((o) => o.id)).toContain(oldId);
        expect(listed.map((o) => o.id)).not.toContain(handle.host.conversation.sessionId);

        expect((await host.submit({ type: "resume", id: "abcdef" })).isError).toBe(true);
        expect(
            (await host.submit({ type: "resume", id: handle.host.conversation.sessionId })).isError
        ).toBe(true);
        const resumed = await host.submit({ type: "resume", id: oldId });
        expect(resumed.isError).toBeUndefined();
        expect(handle.host.conversation.sessionId).toBe(oldId);
        expect(JSON.stringify(handle.host.conversation.session.messages)).toContain("old question");

        server.enqueue({ text: "continued" });
        await handle.host.submit({ type: "prompt", text: "continue" });
        const body = server.requests.at(-1)?.body as { messages: unknown[] };
        expect(JSON.stringify(body.messages)).toContain("old answer");
    });

    it("exports Markdown to the data folder by default, and to a path inside the project only", async () => {
        const { host, handle } = await start();
        server.enqueue({ text: "**bold** answer" });
        await handle.host.submit({ type: "prompt", text: "a question" });
        const done = await host.submit({ type: "export" });
        expect(done.isError).toBeUndefined();
        const name = `north-${handle.host.conversation.sessionId}.md`;
        const file = join(exportsDir(dataDir(), repo), name);
        expect(done.message).toContain(file);
        expect(readFileSync(file, "utf8")).toContain("**bold** answer");
        expect(existsSync(join(repo, name))).toBe(false);
        expect(
            (await host.submit({ type: "export", path: "docs/log.md" })).isError
        ).toBeUndefined();
        expect(existsSync(join(repo, "docs", "log.md"))).toBe(true);
        for (const bad of ["../out.md", "/etc/north.md", ".git/x.md"]) {
            expect((await host.submit({ type: "export", path: bad })).isError).toBe(true);
        }
    });

    it("summarises on request and counts session and all-time costs", async () => {
        const { host, handle } = await start();
        for (let i = 0; i < 3; i++) {
            server.enqueue({ text: `answer ${i}` });
            await handle.host.submit({ type: "prompt", text: `question ${i}` });
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
        const summary = await host.submit({ type: "summarise", keepLast: 2 });
        expect(summary.message).toContain("summarised");
        expect(handle.host.conversation.session.rollingSummary?.goal).toBe("g");
        const costs = await host.submit({ type: "costs" });
        expect(costs.session.map((r) => r.model)).toEqual(["claude-opus-5-5"]);
        expect(costs.allTime.map((r) => r.model)).toEqual(["claude-opus-5-5"]);
        expect(host.state().costs.allTimeUsd).toBe(costs.allTimeUsd);
    });
});

describe("the engine host's ops: rewind and fork", () => {
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
            await started.host.submit({
                type: "record_view",
                action: { type: "user", text: prompt, attachments: [] },
            });
            await started.handle.host.submit({ type: "prompt", text: prompt });
        }
        expect(app()).toBe("export const retries = 5;\n");
        return started;
    }

    const pointsOf = async (host: EngineHost) => {
        const listed = await host.submit({ type: "rewind_points" });
        if (!listed.ok) throw new Error(listed.error);
        return listed.points;
    };

    it("takes the code and the conversation back to before a prompt", async () => {
        const { host, handle } = await twoEdits();
        const points = await pointsOf(host);
        expect(points.map((p) => [p.number, p.text, p.files, p.changedSince])).toEqual([
            [1, "make it 4", ["app.ts"], []],
            [2, "make it 5", ["app.ts"], []],
        ]);
        const before = handle.host.conversation.session;
        const done = await host.submit({
            type: "rewind",
            point: points[1]!,
            scope: "both",
            overwriteChanged: false,
        });
        expect(done.isError).toBeUndefined();
        expect(done.message).toContain("restored app.ts");
        expect(done.message).toContain("rewound to before prompt 2");
        expect(done.message).toContain("shell commands are not tracked");
        expect(app()).toBe("export const retries = 4;\n");
        expect(handle.host.conversation.session).not.toBe(before);
        expect(JSON.stringify(handle.host.conversation.session.messages)).toContain("now 4");
        expect(JSON.stringify(handle.host.conversation.session.messages)).not.toContain(
            "make it 5"
        );
        expect(handle.host.conversation.prompts().map((p) => p.text)).toEqual(["make it 4"]);
        // What the chat redraws: prompt 1 shown, prompt 2 gone with its answer.
        const shown = JSON.stringify(host.conversation.history.view);
        expect(shown).toContain("make it 4");
        expect(shown).not.toContain("make it 5");
    });

    it("restores a file North edited in an --add-dir directory", async () => {
        const other = mkdtempSync(join(tmpdir(), "north-added-dir-"));
        try {
            const lib = join(other, "lib.ts");
            writeFileSync(lib, "export const size = 1;\n");
            const { host } = await start(approveAll, ["--add-dir", other]);
            server.enqueue(
                {
                    toolCalls: [
                        {
                            name: "edit_replace_exact",
                            input: { path: lib, old_text: "size = 1", new_text: "size = 2" },
                        },
                    ],
                },
                { text: "now 2" }
            );
            await host.submit({ type: "prompt", text: "make it 2" });
            expect(readFileSync(lib, "utf8")).toBe("export const size = 2;\n");
            const point = (await pointsOf(host))[0]!;
            const done = await host.submit({
                type: "rewind",
                point,
                scope: "code",
                overwriteChanged: false,
            });
            expect(done.isError).toBeUndefined();
            expect(readFileSync(lib, "utf8")).toBe("export const size = 1;\n");
        } finally {
            rmSync(other, { recursive: true, force: true });
        }
    });

    it("keeps a file changed since North changed it unless the user confirmed, then overwrites it", async () => {
        const { host, handle } = await twoEdits();
        writeFileSync(join(repo, "app.ts"), "mine\n");
        const point = (await pointsOf(host))[0]!;
        expect(point.changedSince).toEqual(["app.ts"]);
        const kept = await host.submit({
            type: "rewind",
            point,
            scope: "code",
            overwriteChanged: false,
        });
        expect(kept.isError).toBe(true);
        expect(kept.message).toContain("kept app.ts: changed since North last changed it");
        expect(app()).toBe("mine\n");
        // Code only: the conversation is as it was.
        expect(handle.host.conversation.prompts()).toHaveLength(2);
        const overwritten = await host.submit({
            type: "rewind",
            point,
            scope: "code",
            overwriteChanged: true,
        });
        expect(overwritten.isError).toBeUndefined();
        expect(app()).toBe("export const retries = 3;\n");
    });

    it("says the checkpoints are gone, rewinds the conversation alone, and never half of both", async () => {
        const { host, handle } = await twoEdits();
        rmSync(join(home, "data", "checkpoints", handle.host.conversation.sessionId), {
            recursive: true,
            force: true,
        });
        const point = (await pointsOf(host))[1]!;
        expect(point.code.ok).toBe(false);
        expect(!point.code.ok && point.code.error).toContain("are gone");
        const both = await host.submit({
            type: "rewind",
            point,
            scope: "both",
            overwriteChanged: false,
        });
        expect(both.isError).toBe(true);
        expect(both.message).toContain("the conversation was not rewound either");
        expect(handle.host.conversation.prompts()).toHaveLength(2);
        const conversation = await host.submit({
            type: "rewind",
            point,
            scope: "conversation",
            overwriteChanged: false,
        });
        expect(conversation.isError).toBeUndefined();
        expect(handle.host.conversation.prompts()).toHaveLength(1);
        expect(app()).toBe("export const retries = 5;\n");
    });

    it("forks at the end or before a prompt, naming both ids; refuses a bad number", async () => {
        const { host, handle } = await twoEdits();
        const parent = handle.host.conversation.sessionId;
        const atEnd = await host.submit({ type: "fork" });
        expect(atEnd.message).toBe(
            `Forked conversation ${parent} into ${handle.host.conversation.sessionId}; the original stays as it was: /resume ${parent}`
        );
        expect(handle.host.conversation.sessionId).not.toBe(parent);
        expect(handle.host.conversation.prompts()).toHaveLength(2);
        expect(
            handle.host.conversation.store
                .list({})
                .find((c) => c.id === handle.host.conversation.sessionId)?.forkedFrom
        ).toBe(parent);

        const copy = handle.host.conversation.sessionId;
        expect((await host.submit({ type: "fork", promptNumber: 3 })).message).toBe(
            "/fork 3: choose a prompt from 1 to 2 (/rewind lists them)"
        );
        expect(handle.host.conversation.sessionId).toBe(copy);
        const early = await host.submit({ type: "fork", promptNumber: 2 });
        expect(early.promptText).toBe("make it 5");
        expect(early.message).toContain(
            `into ${handle.host.conversation.sessionId} before prompt 2`
        );
        expect(handle.host.conversation.prompts().map((p) => p.text)).toEqual(["make it 4"]);
        expect(JSON.stringify(host.conversation.history.view)).not.toContain("make it 5");
    });

    it("refuses to rewind or fork while an answer is running", async () => {
        const { host, handle } = await start();
        server.enqueue({ fault: "stall", ms: 30_000 });
        const abort = new AbortController();
        const running = handle.host.submit({ type: "prompt", text: "slow", signal: abort.signal });
        await vi.waitFor(() => expect(handle.host.conversation.session.state().running).toBe(true));
        const id = handle.host.conversation.sessionId;
        const listed = await host.submit({ type: "rewind_points" });
        expect(!listed.ok && listed.error).toContain("wait for the answer to finish");
        expect((await host.submit({ type: "fork" })).isError).toBe(true);
        expect(handle.host.conversation.sessionId).toBe(id);
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
