/**
 * The small fast model (`smallFastModel`) serves the side jobs: the summary
 * and project learning ask it, through the real Anthropic provider and the
 * fake API, while the conversation's own turns keep the session's model;
 * each request's cost is counted at its own model's price.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { EngineHost } from "../../src/agent/engine-host";
import type { HostEvent } from "../../src/agent/protocol";
import { AgentSession } from "../../src/agent/session";
import { DISCOVERY_TOPICS } from "../../src/agent/learn";
import type { ModelInfo } from "../../src/providers/catalogue";
import { createProvider } from "../../src/providers/index";
import { buildCatalogue, resolveEndpoint } from "../../src/providers/models";
import type { Message, Provider } from "../../src/providers/types";
import { createCheckpointStore } from "../../src/storage/checkpoints";
import { createConversationStore } from "../../src/storage/conversations";
import { createCostStore } from "../../src/storage/costs";
import { silentLogger } from "../../src/storage/logger";
import { createProfileStore } from "../../src/storage/profile";
import { createToolRegistry } from "../../src/tools/registry";
import { resolveSmallFastModel } from "../../src/cli/model-selection";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";

let server: FakeLlmServer;
const dirs: string[] = [];

beforeAll(async () => {
    server = await startFakeLlmServer();
});
afterAll(async () => {
    await server.close();
});
afterEach(() => {
    server.requests.length = 0;
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const SUMMARY = JSON.stringify({
    goal: "ship it",
    decisions: [],
    constraints: [],
    openTasks: [],
    importantFiles: [],
});

function history(turns: number): Message[] {
    return Array.from({ length: turns }, (_, i): Message[] => [
        { role: "user", content: `question ${i}` },
        { role: "assistant", content: [{ type: "text", text: `answer ${i}` }] },
    ]).flat();
}

function startHost(sideModel: ModelInfo | undefined) {
    const dir = mkdtempSync(join(tmpdir(), "north-side-model-"));
    dirs.push(dir);
    const env = { ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: server.anthropicBaseUrl };
    const catalogue = buildCatalogue({}, [], { env, smallFastModel: "haiku-5-5" });
    const model = catalogue.models.find((m) => m.alias === "sonnet-4-5")!;
    const providers = new Map<string, Promise<Provider>>();
    const providerFor = (m: ModelInfo): Promise<Provider> => {
        const info = catalogue.providers.get(m.provider)!;
        const endpoint = resolveEndpoint(info, env);
        if (!endpoint.ok) throw new Error(endpoint.error);
        let provider = providers.get(m.provider);
        if (!provider) providers.set(m.provider, (provider = createProvider(endpoint.endpoint)));
        return provider;
    };
    const store = createConversationStore(join(dir, "conversations"));
    const log = store.start({ repoRoot: dir, model: model.id });
    const costs = createCostStore(dir);
    const tools = createToolRegistry([]);
    const host = new EngineHost({
        repoRoot: dir,
        catalogue,
        store,
        logger: silentLogger,
        costs,
        checkpoints: createCheckpointStore(join(dir, "checkpoints")),
        context: {},
        start: { model, sessionId: log.id, log },
        mode: "agent",
        warn: () => undefined,
        resolveModel: () => ({ ok: false, error: "no other model here" }),
        profiles: createProfileStore(dir, dir),
        providerFor,
        sideModel,
        tools,
        skills: [],
        permissions: {
            list: () => ({ rules: [], notes: [] }),
            remove: () => ({ ok: false, message: "none" }),
            readDenial: () => undefined,
        },
        standing: () => ({ commands: false, edits: false }),
        newSession: (parts) =>
            new AgentSession({
                ...parts,
                messages: parts.messages?.length ? parts.messages : history(8),
                repoRoot: dir,
                providerFor,
                sideModel,
                tools,
                logger: silentLogger,
            }),
    });
    const events: HostEvent[] = [];
    host.subscribe((event) => events.push(event));
    return { host, events, catalogue, env };
}

const modelsAsked = () => server.requests.map((r) => (r.body as { model?: string }).model);

describe("the small fast model", () => {
    it("resolves from the setting when its provider is ready, else the session's model is used", () => {
        const env = { ANTHROPIC_API_KEY: "k" };
        const ready = resolveSmallFastModel(
            buildCatalogue({}, [], { env, smallFastModel: "haiku-5-5" }),
            env
        );
        expect(ready.model?.id).toBe("claude-haiku-5-5");
        const notReady = resolveSmallFastModel(
            buildCatalogue({}, [], { env, smallFastModel: "gpt-6.2-sol" }),
            env
        );
        expect(notReady.model).toBeUndefined();
        expect(notReady.warning).toContain("OPENAI_API_KEY");
        expect(resolveSmallFastModel(buildCatalogue({}, [], { env }), env)).toEqual({});
    });

    it("writes the summary, counted at its own price; the next turn uses the session's model", async () => {
        const { catalogue } = startHost(undefined);
        const haiku = catalogue.models.find((m) => m.alias === "haiku-5-5")!;
        const { host } = startHost(haiku);
        server.enqueue({
            text: SUMMARY,
            usage: { input: 1_000, output: 100, cacheRead: 0, cacheWrite: 0 },
        });
        const summary = await host.submit({ type: "summarise", keepLast: 2 });
        expect(JSON.stringify(summary)).toContain("summarised");
        expect(modelsAsked()).toEqual(["claude-haiku-5-5"]);
        // Haiku 5.5: 1,000 × $0.10 + 100 × $0.50 per million.
        expect(host.state().costs.sessionUsd).toBeCloseTo((1_000 * 0.1 + 100 * 0.5) / 1e6, 12);

        server.enqueue({ text: "done" });
        await host.submit({ type: "prompt", text: "go on" });
        expect(modelsAsked()).toEqual(["claude-haiku-5-5", "claude-sonnet-4-5-20250929"]);
        host.close();
    });

    it("summarises with the session's model when none is set", async () => {
        const { host } = startHost(undefined);
        server.enqueue({ text: SUMMARY });
        await host.submit({ type: "summarise", keepLast: 2 });
        expect(modelsAsked()).toEqual(["claude-sonnet-4-5-20250929"]);
        host.close();
    });

    it("does project learning", async () => {
        const { catalogue } = startHost(undefined);
        const haiku = catalogue.models.find((m) => m.alias === "haiku-5-5")!;
        const { host, events } = startHost(haiku);
        for (const topic of DISCOVERY_TOPICS) server.enqueue({ text: `- notes on ${topic.title}` });
        await host.submit({ type: "learn_start" });
        await new Promise<void>((resolve) => {
            const done = (): boolean =>
                events.some((e) => e.type === "learning" && e.progress === null);
            if (done()) return resolve();
            const stop = host.subscribe(() => {
                if (done()) {
                    stop();
                    resolve();
                }
            });
        });
        expect(modelsAsked()).toHaveLength(DISCOVERY_TOPICS.length);
        expect(new Set(modelsAsked())).toEqual(new Set(["claude-haiku-5-5"]));
        host.close();
    });
});
