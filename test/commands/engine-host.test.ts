/**
 * One engine host for both front-ends: the same command, run with the chat's
 * picker and editor and run as print mode does, submits the same ops to a
 * real host; only what the chat can offer (pickers, an editor, switching
 * conversations, saving the model choice) differs.
 */
import {
    appendFileSync,
    existsSync,
    mkdirSync,
    mkdtempSync,
    readFileSync,
    rmSync,
    writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createNoStandingApprovals } from "../../src/agent/approvals";
import type { HostEvent } from "../../src/agent/protocol";
import { parseCliArgs } from "../../src/cli/args";
import { resolveReadyModel } from "../../src/cli/model-selection";
import { prepareSession } from "../../src/cli/session-setup";
import { type EngineSession, startSession } from "../../src/cli/session-start";
import { createCommandRegistryWithAllCommands, runCommandsInInput } from "../../src/commands/index";
import { runPrintCommands } from "../../src/headless/print-commands";
import { saveSelectedModel } from "../../src/storage/config";
import { createProfileStore } from "../../src/storage/profile";
import { loadUserSettings } from "../../src/storage/settings/load";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome, runNorth } from "../kit/run-north";

let server: FakeLlmServer;
let home: string;
let repo: string;
let env: NodeJS.ProcessEnv;
const handles: EngineSession[] = [];

beforeAll(async () => {
    server = await startFakeLlmServer();
});
afterAll(async () => {
    await server.close();
});
beforeEach(() => {
    const isolated = isolatedHome();
    home = isolated.home;
    repo = mkdtempSync(join(tmpdir(), "north-host-"));
    env = {
        ...isolated.env,
        ANTHROPIC_API_KEY: "k",
        ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
        OPENAI_API_KEY: "",
    };
    for (const [key, value] of Object.entries(env)) vi.stubEnv(key, value);
    server.requests.length = 0;
});
afterEach(() => {
    for (const handle of handles.splice(0)) handle.close();
    vi.unstubAllEnvs();
    expect(server.remaining()).toBe(0);
    rmSync(home, { recursive: true, force: true });
    rmSync(repo, { recursive: true, force: true });
});

const SUMMARY = JSON.stringify({
    goal: "g",
    decisions: [],
    constraints: [],
    openTasks: [],
    importantFiles: [],
});

/** A host over the fake server, built as `front` builds it, with `exchanges` prompts answered. */
async function conversation(
    exchanges: number,
    front: "chat" | "print" = "chat"
): Promise<EngineSession> {
    const args = parseCliArgs(["--path", repo]);
    if (!args.ok) throw new Error(args.error);
    const prepared = await prepareSession(
        args.args,
        () => undefined,
        async () => loadUserSettings
    );
    if (!prepared.ok) throw new Error(prepared.error);
    const handle = await startSession(prepared, {
        version: "test",
        frontEnd: front === "chat" ? "interactive" : "print",
        logLevel: "error",
        mode: "agent",
        resolveModel: (name) => resolveReadyModel(prepared.catalogue, name, process.env),
        // The chat saves a switched model, print mode does not.
        ...(front === "chat" ? { saveModel: (alias: string) => saveSelectedModel(alias) } : {}),
        profiles: createProfileStore(join(home, "data"), prepared.repoRoot),
        approvalSettings: () => createNoStandingApprovals(),
        decideTrust: async () => "untrusted",
        warn: () => undefined,
    });
    handles.push(handle);
    for (let i = 0; i < exchanges; i++) {
        server.enqueue({ text: `answer ${i}` });
        await handle.host.submit({ type: "prompt", text: `question ${i}` });
    }
    return handle;
}

/** Runs `input` with the chat's picker (answering `picks`) and editor; `seen` lists what the chat was asked and told. */
async function viaChat(handle: EngineSession, input: string, picks: Array<string | null> = []) {
    const seen: string[] = [];
    const { host } = handle;
    const off = host.subscribe((event: HostEvent) => {
        if (event.type === "conversation_switched") seen.push(`switched ${event.draft ?? ""}`);
        if (event.type === "state_changed") seen.push("state");
    });
    const registry = createCommandRegistryWithAllCommands();
    try {
        const { executed } = await runCommandsInInput(input, registry, {
            submit: (op) => host.submit(op),
            state: () => host.state(),
            choose: async (title, options) => {
                seen.push(`pick ${title}: ${options.map((o) => o.id).join(" ")}`);
                return picks.shift() ?? null;
            },
            // The "editor" adds a line to the file, as a user saving in $EDITOR would.
            editFile: (path) => {
                seen.push(`edit ${path}`);
                appendFileSync(path, "- Run the tests with pnpm\n");
                return { ok: true };
            },
        });
        return { results: executed.map((e) => e.result), seen };
    } finally {
        off();
    }
}

/** Runs `input` as print mode does; returns what it printed. */
async function viaPrint(handle: EngineSession, input: string) {
    let stdout = "";
    let stderr = "";
    const outcome = await runPrintCommands(input, {
        host: handle.host,
        format: "text",
        stdout: { write: (text) => void (stdout += text) },
        stderr: { write: (text) => void (stderr += text) },
    });
    return { ...outcome, stdout, stderr };
}

const session = (handle: EngineSession) => handle.host.conversation.session;

const configPath = () => join(home, "config", "config.json");

describe("one engine host for the chat and print mode", () => {
    it("/summarize: both front-ends give the host's one answer", async () => {
        const inChat = await conversation(3);
        server.enqueue({ text: SUMMARY });
        const chat = await viaChat(inChat, "/summarize --keep-last 1");
        const inPrint = await conversation(3, "print");
        server.enqueue({ text: SUMMARY });
        const print = await viaPrint(inPrint, "/summarize --keep-last 1");

        expect(chat.results).toHaveLength(1);
        expect(chat.results[0]!.isError).toBeUndefined();
        expect(chat.results[0]!.message).toMatch(/; the last 1 kept\.$/);
        expect(print).toMatchObject({ failed: false, remainingText: "", stderr: "" });
        expect(print.stdout).toBe(`⚙ /summarize --keep-last 1: ${chat.results[0]!.message}\n`);
        expect(session(inChat).rollingSummary?.goal).toBe("g");
        expect(session(inPrint).rollingSummary?.goal).toBe("g");
    });

    it("/model: the chat picks and saves the default; print mode switches for its run only", async () => {
        const inChat = await conversation(0);
        const chat = await viaChat(inChat, "/model", ["haiku-4-5"]);
        expect(chat.seen[0]).toMatch(/^pick Choose a model: .*\bhaiku-4-5\b/);
        expect(chat.seen).toContain("state");
        const switched = chat.results[0]!.message;
        expect(switched).toMatch(
            /^Switched to .+ \(claude-haiku-4-5[^)]*\); saved as the default\.$/
        );
        expect(session(inChat).state().model.alias).toBe("haiku-4-5");
        expect(JSON.parse(readFileSync(configPath(), "utf8"))).toMatchObject({
            selectedModel: "haiku-4-5",
        });
        rmSync(configPath());

        const inPrint = await conversation(0, "print");
        const print = await viaPrint(inPrint, "/model haiku-4-5 explain x");
        const head = switched.slice(0, switched.indexOf(";"));
        expect(print).toMatchObject({ failed: false, remainingText: "explain x", stdout: "" });
        expect(print.stderr).toBe(`⚙ /model haiku-4-5: ${head} for this run.\n`);
        expect(session(inPrint).state().model.alias).toBe("haiku-4-5");
        expect(existsSync(configPath())).toBe(false);
        // No picker in print mode: the bare command names the model.
        const bare = await viaPrint(inPrint, "/model");
        expect(bare.stdout).toBe(`⚙ /model: current model: ${session(inPrint).state().model.id}\n`);
    });

    it("/costs: the costs op's figures are what print mode's lines and the chat's line show", async () => {
        const handle = await conversation(2);
        const figures = await handle.host.submit({ type: "costs" });
        const chat = await viaChat(handle, "/costs");
        expect(chat.results[0]!.message).toMatch(
            /^Session .+ · all time .+ \(Esc or Q closes the dialog\)$/
        );
        const rows = figures.allTime;
        expect(rows.map((r) => r.model)).toEqual(["claude-opus-5-5"]);
        expect(rows[0]!.inputTokens).toBeGreaterThan(0);
        const print = await viaPrint(handle, "/costs");
        for (const row of rows) {
            expect(print.stdout).toContain(
                `${row.provider}/${row.model}: ${row.inputTokens} in, ${row.outputTokens} out`
            );
        }
    });

    it("conversation switches are host events in the chat; print mode refuses them and changes nothing", async () => {
        const handle = await conversation(1);
        const id = () => handle.host.state().conversationId;
        const first = id();
        const print = await viaPrint(handle, "/resume abcdef");
        expect(print.failed).toBe(true);
        expect(print.stdout).toContain('use north -p --resume abcdef "PROMPT"');
        expect(id()).toBe(first);

        const chat = await viaChat(handle, "/new");
        expect(id()).not.toBe(first);
        expect(chat.seen).toContain("switched ");
        expect(chat.results[0]!.message).toBe(
            `Started a new conversation.\nConversation ${id()}. The previous one: /resume ${first}`
        );
        const back = await viaChat(handle, "/conversations", [first]);
        expect(back.seen[0]).toBe(`pick Switch to conversation: ${first}`);
        expect(id()).toBe(first);
    });
});

describe("memory edited during a chat", () => {
    const systemOfLastRequest = () =>
        JSON.stringify((server.requests.at(-1)!.body as { system: unknown }).system);

    it("/memory edit opens MEMORY.md (created with its header) and the next request carries the edit; print mode refuses", async () => {
        const handle = await conversation(0);
        const index = join(repo, ".north", "memory", "MEMORY.md");
        const print = await viaPrint(handle, "/memory edit");
        expect(print.failed).toBe(true);
        expect(print.stdout).toContain("/memory edit works in the chat");
        expect(existsSync(index)).toBe(false);

        const chat = await viaChat(handle, "/memory edit");
        expect(chat.seen).toEqual([`edit ${index}`]);
        expect(readFileSync(index, "utf8")).toBe("# Memory\n\n- Run the tests with pnpm\n");
        expect(chat.results[0]!.isError).toBeUndefined();
        expect(chat.results[0]!.message).toMatch(
            /^Memory reloaded: \d+ B in 1 file; the next request carries it\.$/
        );
        server.enqueue({ text: "ok" });
        await handle.host.submit({ type: "prompt", text: "hello" });
        expect(systemOfLastRequest()).toContain("Run the tests with pnpm");

        const user = await viaChat(handle, "/memory edit --user");
        expect(user.seen).toEqual([`edit ${join(home, "data", "memory", "MEMORY.md")}`]);
        expect(user.results[0]!.message).toContain("in 2 files");
    });

    it("a new conversation (/new) loads the memory saved since the chat started", async () => {
        const handle = await conversation(0);
        const dir = join(repo, ".north", "memory");
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, "MEMORY.md"), "# Memory\n\n- Deploy on Fridays is forbidden\n");
        server.enqueue({ text: "before" });
        await handle.host.submit({ type: "prompt", text: "one" });
        expect(systemOfLastRequest()).not.toContain("Deploy on Fridays");

        await viaChat(handle, "/new");
        server.enqueue({ text: "after" });
        await handle.host.submit({ type: "prompt", text: "two" });
        expect(systemOfLastRequest()).toContain("Deploy on Fridays is forbidden");
    });
});

describe("print mode's commands, end to end", () => {
    it("north -p runs /summarize as an op of the host", async () => {
        server.enqueue({ text: "first" }, { text: "second" }, { text: SUMMARY });
        for (const args of [["question 1"], ["question 2", "--continue"]]) {
            const run = await runNorth(["-p", ...args, "--path", repo], { env });
            expect(run.code, run.stderr).toBe(0);
        }
        const run = await runNorth(
            ["-p", "--continue", "/summarize --keep-last 1", "--path", repo],
            { env }
        );
        expect(run.code).toBe(0);
        expect(run.stdout).toMatch(/^⚙ \/summarize --keep-last 1: .+; the last 1 kept\.\n$/);
        expect(server.requests).toHaveLength(3);
    });
});
