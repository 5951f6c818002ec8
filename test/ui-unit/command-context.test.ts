import { describe, expect, it } from "vitest";
import type { EngineEvent } from "../../src/agent/events";
import type { RunOptions, SessionState } from "../../src/agent/session";
import type { CommandResult } from "../../src/commands/index";
import type { CustomCommand } from "../../src/project/custom-commands";
import type { ModelInfo } from "../../src/providers/catalogue";
import { EMPTY_USAGE, type Message } from "../../src/providers/types";
import { createAppState } from "../../src/ui/app-state";
import { createTuiCommands } from "../../src/ui/command-context";
import { createAppController } from "../../src/ui/controller";
import { type SessionPort, createDeferredSession } from "../../src/ui/deferred-session";
import type { TuiEngine } from "../../src/ui/engine-port";
import { createTranscriptStore } from "../../src/ui/transcript/store";
import type { CommandEntry } from "../../src/ui/transcript/types";
import { runResult } from "./helpers";

const model = (alias: string, id = `${alias}-id`): ModelInfo => ({
    alias,
    id,
    display: alias.toUpperCase(),
    provider: "anthropic",
    contextLimitTokens: 200_000,
    maxOutputTokens: 1000,
});
const SONNET = model("sonnet-4");
const HAIKU = model("haiku-4-5");

/** A session that records prompts and modes and answers at once. */
function fakeSession(messages: Message[] = []) {
    const listeners = new Set<(e: EngineEvent) => void>();
    let current = SONNET;
    const runs: Array<{ prompt: string; mode: string }> = [];
    const session: SessionPort & { setModel(m: ModelInfo): void } = {
        messages,
        subscribe(listener) {
            listeners.add(listener);
            return () => void listeners.delete(listener);
        },
        state(): SessionState {
            return {
                model: current,
                running: false,
                contextUsedTokens: 0,
                contextLimitTokens: current.contextLimitTokens,
                contextUsage: 0,
                totalCostUsd: 0,
                totalUsage: { ...EMPTY_USAGE },
            };
        },
        async run(prompt: string, options: RunOptions) {
            runs.push({ prompt, mode: options.mode });
            const result = runResult("success");
            for (const l of listeners) l({ type: "run_end", result });
            return result;
        },
        setModel(m) {
            current = m;
        },
    };
    return { session, runs };
}

function fakeEngine(first: ReturnType<typeof fakeSession>) {
    let active = first;
    const calls: string[] = [];
    const custom: CustomCommand = {
        name: "review",
        description: "Review code",
        argumentHint: "[file]",
        body: "Review $ARGUMENTS carefully.",
        file: "/repo/.north/commands/review.md",
        scope: "project",
    };
    const shadow: CustomCommand = { ...custom, name: "help", body: "not me" };
    const ok = (message: string): CommandResult => ({ message });
    const engine: TuiEngine = {
        session: () => active.session,
        conversationId: () => "aaaaaa",
        contextFiles: [],
        customCommands: [custom, shadow],
        async switchModel(name) {
            calls.push(`model ${name}`);
            if (name !== "haiku-4-5") return { message: `unknown model "${name}"`, isError: true };
            active.session.setModel(HAIKU);
            return ok("Switched");
        },
        async summarize(keepLast) {
            calls.push(`summarize ${keepLast}`);
            return ok("summarised");
        },
        async newConversation() {
            calls.push("new");
            active = fakeSession();
            return ok("Conversation bbbbbb.");
        },
        async listConversations() {
            return [{ id: "cccccc", label: "old one" }];
        },
        async resume(id) {
            calls.push(`resume ${id}`);
            if (id !== "cccccc") return { message: `no conversation ${id}`, isError: true };
            active = fakeSession([
                { role: "user", content: "earlier question" },
                { role: "assistant", content: [{ type: "text", text: "earlier answer" }] },
            ]);
            return ok("Switched to conversation cccccc");
        },
        history: () => ({
            view: [],
            messages: active.session.messages,
            messagesBeforeView: active.session.messages.length,
        }),
        recordView: (action) => void calls.push(`record ${action.type}`),
        async exportMarkdown(path) {
            calls.push(`export ${path ?? ""}`);
            return ok("Exported");
        },
        async learn(_signal, onProgress) {
            onProgress(40, "Architecture Map");
            calls.push("learn");
            return ok("Learned 10 of 10 topics");
        },
        costs: () => ({
            sessionUsd: 0.5,
            allTimeUsd: 2,
            session: [
                {
                    provider: "anthropic",
                    model: "x",
                    inputTokens: 1,
                    outputTokens: 2,
                    costUsd: 0.5,
                },
            ],
            allTime: [],
        }),
        statusCosts: () => ({ sessionUsd: 0.5, allTimeUsd: 2 }),
        mcpServers: () => [],
        skills: () => [],
    };
    return { engine, calls, active: () => active };
}

function setup(options: { pick?: string | null } = {}) {
    const first = fakeSession();
    const { engine, calls, active } = fakeEngine(first);
    const session = createDeferredSession(first.session.state(), Promise.resolve(first.session));
    const store = createTranscriptStore({ flushMs: 0 });
    const appState = createAppState("agent");
    let exited = 0;
    let stateChanges = 0;
    session.onStateChange(() => stateChanges++);
    const picks: string[] = [];
    const commands = createTuiCommands({
        engine: Promise.resolve(engine),
        session,
        store,
        appState,
        pick: async (title) => {
            picks.push(title);
            return options.pick ?? null;
        },
        exit: () => exited++,
        models: [SONNET, HAIKU],
        signal: () => new AbortController().signal,
    });
    commands.addCustomCommands(engine.customCommands);
    const controller = createAppController({
        session,
        bridge: { cancelAll: () => undefined, onResolved: () => () => undefined },
        store,
        processInput: (text) => commands.process(text),
        currentMode: () => appState.get().mode,
    });
    const send = async (text: string) => {
        controller.submit(text, [], appState.get().mode);
        await controller.idle();
    };
    const entries = () => store.getState().entries;
    const commandEntries = () => entries().filter((e): e is CommandEntry => e.kind === "command");
    return {
        commands,
        controller,
        send,
        entries,
        commandEntries,
        calls,
        appState,
        session,
        active,
        first,
        picks,
        exited: () => exited,
        stateChanges: () => stateChanges,
    };
}

describe("the TUI's slash commands", () => {
    it("runs the commands in order, shows each, and sends the rest with the new mode", async () => {
        const t = setup();
        await t.send("/mode ask /model haiku-4-5 explain the retry loop");
        expect(t.commandEntries().map((e) => [e.command, e.result, e.isError])).toEqual([
            ["/mode ask", "Mode: ask.", false],
            ["/model haiku-4-5", "Switched", false],
        ]);
        expect(t.first.runs).toEqual([{ prompt: "explain the retry loop", mode: "ask" }]);
        expect(t.entries().find((e) => e.kind === "user")).toMatchObject({
            text: "explain the retry loop",
        });
        expect(t.session.state().model.id).toBe("haiku-4-5-id");
        expect(t.stateChanges()).toBeGreaterThan(0);
    });

    it("sends nothing to the model for an input made only of commands", async () => {
        const t = setup();
        await t.send("/help");
        expect(t.first.runs).toEqual([]);
        const help = t.commandEntries()[0]!;
        expect(help.result).toContain("/model [alias]");
        // Custom commands are listed after the built-ins; a built-in wins a clash.
        expect(help.result).toContain("/review [file]");
        expect(help.result.indexOf("/review")).toBeGreaterThan(help.result.indexOf("/summarize"));
        expect(t.commands.registry.get("help")?.description).toBe("List the commands");
    });

    it("reports a failed command in red and keeps going", async () => {
        const t = setup();
        await t.send("/model haiku-45");
        expect(t.commandEntries()[0]).toMatchObject({ isError: true });
        expect(t.session.state().model.id).toBe("sonnet-4-id");
        await t.send("/mode bogus");
        expect(t.commandEntries()[1]?.result).toContain("unknown mode");
        expect(t.appState.get().mode).toBe("agent");
        await t.send("/summarize --keep-last abc");
        expect(t.calls).not.toContain("summarize abc");
        await t.send("/summarize --keep-last 4");
        expect(t.calls).toContain("summarize 4");
    });

    it("expands a custom command into the prompt", async () => {
        const t = setup();
        await t.send('/review "src/a b.ts" now');
        expect(t.first.runs[0]?.prompt).toBe('Review "src/a b.ts" now carefully.');
        expect(t.commandEntries()[0]?.result).toContain("review.md");
    });

    it("/new replaces the session and clears the transcript", async () => {
        const t = setup();
        await t.send("hello");
        await t.send("/new");
        expect(t.session.current()).toBe(t.active().session);
        expect(t.session.current()).not.toBe(t.first.session);
        expect(t.entries().some((e) => e.kind === "user")).toBe(false);
        expect(t.commandEntries().map((e) => e.command)).toEqual(["/new"]);
        await t.send("next");
        expect(t.active().runs).toEqual([{ prompt: "next", mode: "agent" }]);
    });

    it("/conversations picks one and shows its earlier messages; /resume checks the id", async () => {
        const t = setup({ pick: "cccccc" });
        await t.send("/conversations");
        expect(t.picks).toEqual(["Switch to conversation"]);
        expect(t.calls).toContain("resume cccccc");
        const texts = t.entries().map((e) => ("text" in e ? e.text : ""));
        expect(texts).toContain("earlier question");
        expect(texts).toContain("earlier answer");
        await t.send("/resume ffffff");
        expect(t.commandEntries().at(-1)).toMatchObject({ isError: true });
    });

    it("/model without an argument picks from the models", async () => {
        const t = setup({ pick: "haiku-4-5" });
        await t.send("/model");
        expect(t.picks).toEqual(["Choose a model"]);
        expect(t.session.state().model.id).toBe("haiku-4-5-id");
    });

    it("/costs opens the dialog, /learn shows progress, /export and /quit", async () => {
        const t = setup();
        const progress: Array<number | null> = [];
        t.appState.subscribe(() => progress.push(t.appState.get().learning?.percent ?? null));
        await t.send("/costs");
        expect(t.appState.get().overlay).toMatchObject({ kind: "costs" });
        expect(t.commandEntries()[0]?.result).toContain("$0.5000");
        await t.send("/learn");
        expect(progress).toContain(40);
        expect(t.appState.get().learning).toBeNull();
        await t.send("/export notes.md");
        expect(t.calls).toContain("export notes.md");
        await t.send("/quit and then some text");
        expect(t.exited()).toBe(1);
        expect(t.first.runs).toEqual([]);
    });

    it("keeps paths and URLs in the text", async () => {
        const t = setup();
        await t.send("look at src/app.ts and http://x/y");
        expect(t.commandEntries()).toEqual([]);
        expect(t.first.runs[0]?.prompt).toBe("look at src/app.ts and http://x/y");
    });
});
