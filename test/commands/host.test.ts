/**
 * One command host for both front-ends: the same command, run through the
 * chat's context (with a fake interactive port) and through print mode, is
 * answered by the same host code over a real session handle; only what the
 * port does (pickers, dialogs, saving the model choice) differs.
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
import { createNoStandingApprovals, denyAll } from "../../src/agent/approvals";
import { parseCliArgs } from "../../src/cli/args";
import { resolveReadyModel } from "../../src/cli/model-selection";
import { prepareSession } from "../../src/cli/session-setup";
import { type SessionHandle, startSession } from "../../src/cli/session-start";
import { type InteractivePort, createCommandContext } from "../../src/commands/context";
import { type CostFigures, createCommandHost } from "../../src/commands/host";
import { createCommandRegistryWithAllCommands, runCommandsInInput } from "../../src/commands/index";
import { runPrintCommands } from "../../src/headless/print-commands";
import { saveSelectedModel } from "../../src/storage/config";
import { createProfileStore } from "../../src/storage/profile";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome, runNorth } from "../kit/run-north";

let server: FakeLlmServer;
let home: string;
let repo: string;
let env: NodeJS.ProcessEnv;
const handles: SessionHandle[] = [];

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

/** A session over the fake server with `exchanges` prompts answered. */
async function conversation(exchanges: number): Promise<SessionHandle> {
    const args = parseCliArgs(["--path", repo]);
    if (!args.ok) throw new Error(args.error);
    const prepared = await prepareSession(args.args, () => undefined);
    if (!prepared.ok) throw new Error(prepared.error);
    const handle = await startSession(prepared, {
        version: "test",
        frontEnd: "interactive",
        logLevel: "error",
        approver: denyAll("no"),
        approvalSettings: () => createNoStandingApprovals(),
        decideTrust: async () => "untrusted",
        warn: () => undefined,
    });
    handles.push(handle);
    for (let i = 0; i < exchanges; i++) {
        server.enqueue({ text: `answer ${i}` });
        await handle.session.run(`question ${i}`, { mode: "agent" });
    }
    return handle;
}

/** The host as each front-end builds it: the chat saves a switched model, print mode does not. */
function hostFor(handle: SessionHandle, front: "chat" | "print") {
    return createCommandHost(handle, {
        resolveModel: (name) => resolveReadyModel(handle.catalogue, name, process.env),
        ...(front === "chat" ? { saveModel: (alias: string) => saveSelectedModel(alias) } : {}),
        profiles: createProfileStore(join(home, "data"), handle.repoRoot),
    });
}

/** Runs `input` in the chat's command context with a fake interactive port. */
async function viaChat(handle: SessionHandle, input: string, picks: Array<string | null> = []) {
    const seen: string[] = [];
    const dialogs: CostFigures[] = [];
    const port: InteractivePort = {
        pick: async (title, options) => {
            seen.push(`pick ${title}: ${options.map((o) => o.id).join(" ")}`);
            return picks.shift() ?? null;
        },
        exit: () => void seen.push("exit"),
        conversationChanged: (draft) => void seen.push(`switched ${draft ?? ""}`),
        notice: (text) => void seen.push(`notice ${text}`),
        warning: (text) => void seen.push(`warning ${text}`),
        showCosts: (figures) => {
            dialogs.push(figures);
            return "costs dialog open";
        },
        learningProgress: () => undefined,
        stateChanged: () => void seen.push("state"),
        // The "editor" adds a line to the file, as a user saving in $EDITOR would.
        editFile: (path) => {
            seen.push(`edit ${path}`);
            appendFileSync(path, "- Run the tests with pnpm\n");
            return { ok: true };
        },
    };
    const registry = createCommandRegistryWithAllCommands();
    const context = createCommandContext({
        host: hostFor(handle, "chat"),
        registry,
        currentModel: () => handle.session.state().model,
        models: () => handle.catalogue.models,
        setMode: () => undefined,
        signal: () => new AbortController().signal,
        interactive: port,
    });
    const { executed } = await runCommandsInInput(input, registry, context);
    return { results: executed.map((e) => e.result), seen, dialogs };
}

/** Runs `input` as print mode does; returns what it printed. */
async function viaPrint(handle: SessionHandle, input: string) {
    let stdout = "";
    let stderr = "";
    const outcome = await runPrintCommands(input, {
        host: hostFor(handle, "print"),
        format: "text",
        stdout: { write: (text) => void (stdout += text) },
        stderr: { write: (text) => void (stderr += text) },
        currentModel: () => handle.session.state().model,
        models: () => handle.catalogue.models,
        setMode: () => undefined,
        signal: () => new AbortController().signal,
    });
    return { ...outcome, stdout, stderr };
}

const configPath = () => join(home, "config", "config.json");

describe("one command host for the chat and print mode", () => {
    it("/summarize: both front-ends give the host's one answer", async () => {
        const inChat = await conversation(3);
        server.enqueue({ text: SUMMARY });
        const chat = await viaChat(inChat, "/summarize --keep-last 1");
        const inPrint = await conversation(3);
        server.enqueue({ text: SUMMARY });
        const print = await viaPrint(inPrint, "/summarize --keep-last 1");

        expect(chat.results).toHaveLength(1);
        expect(chat.results[0]!.isError).toBeUndefined();
        expect(chat.results[0]!.message).toMatch(/; the last 1 kept\.$/);
        expect(print).toMatchObject({ failed: false, remainingText: "", stderr: "" });
        expect(print.stdout).toBe(`⚙ /summarize --keep-last 1: ${chat.results[0]!.message}\n`);
        expect(inChat.session.rollingSummary?.goal).toBe("g");
        expect(inPrint.session.rollingSummary?.goal).toBe("g");
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
        expect(inChat.session.state().model.alias).toBe("haiku-4-5");
        expect(JSON.parse(readFileSync(configPath(), "utf8"))).toMatchObject({
            selectedModel: "haiku-4-5",
        });
        rmSync(configPath());

        const inPrint = await conversation(0);
        const print = await viaPrint(inPrint, "/model haiku-4-5 explain x");
        const head = switched.slice(0, switched.indexOf(";"));
        expect(print).toMatchObject({ failed: false, remainingText: "explain x", stdout: "" });
        expect(print.stderr).toBe(`⚙ /model haiku-4-5: ${head} for this run.\n`);
        expect(inPrint.session.state().model.alias).toBe("haiku-4-5");
        expect(existsSync(configPath())).toBe(false);
        // No picker in print mode: the bare command names the model.
        const bare = await viaPrint(inPrint, "/model");
        expect(bare.stdout).toBe(`⚙ /model: current model: ${inPrint.session.state().model.id}\n`);
    });

    it("/costs: the chat's dialog and print mode's lines show the same figures", async () => {
        const handle = await conversation(2);
        const chat = await viaChat(handle, "/costs");
        expect(chat.results[0]!.message).toBe("costs dialog open");
        const rows = chat.dialogs[0]!.allTime;
        expect(rows.map((r) => r.model)).toEqual(["claude-sonnet-4-20250514"]);
        expect(rows[0]!.inputTokens).toBeGreaterThan(0);
        const print = await viaPrint(handle, "/costs");
        for (const row of rows) {
            expect(print.stdout).toContain(
                `${row.provider}/${row.model}: ${row.inputTokens} in, ${row.outputTokens} out`
            );
        }
    });

    it("conversation switches go through the chat's port; print mode refuses them and changes nothing", async () => {
        const handle = await conversation(1);
        const first = handle.sessionId;
        const print = await viaPrint(handle, "/resume abcdef");
        expect(print.failed).toBe(true);
        expect(print.stdout).toContain('use north -p --resume abcdef "PROMPT"');
        expect(handle.sessionId).toBe(first);

        const chat = await viaChat(handle, "/new");
        expect(handle.sessionId).not.toBe(first);
        expect(chat.seen).toContain("switched ");
        expect(chat.seen).toContain(
            `notice Conversation ${handle.sessionId}. The previous one: /resume ${first}`
        );
        const back = await viaChat(handle, "/conversations", [first]);
        expect(back.seen[0]).toBe(`pick Switch to conversation: ${first}`);
        expect(handle.sessionId).toBe(first);
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
        await handle.session.run("hello", { mode: "agent" });
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
        await handle.session.run("one", { mode: "agent" });
        expect(systemOfLastRequest()).not.toContain("Deploy on Fridays");

        await viaChat(handle, "/new");
        server.enqueue({ text: "after" });
        await handle.session.run("two", { mode: "agent" });
        expect(systemOfLastRequest()).toContain("Deploy on Fridays is forbidden");
    });
});

describe("print mode's commands, end to end", () => {
    it("north -p runs /summarize through the host", async () => {
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
