/**
 * An engine host over the fake LLM server (through the real Anthropic
 * provider), a fake process table and a few test tools, with a real
 * conversation store and file logger: what the engine does with background
 * processes, seen from the requests the model gets and the files North writes.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EngineHost, type EngineHostOptions } from "../../src/agent/engine-host";
import type { HostEvent } from "../../src/agent/protocol";
import { parseHookSettings } from "../../src/agent/hooks/index";
import { AgentSession } from "../../src/agent/session";
import { createProvider } from "../../src/providers/index";
import { buildCatalogue } from "../../src/providers/models";
import type { LoadedConversation } from "../../src/storage/conversations";
import { createCheckpointStore } from "../../src/storage/checkpoints";
import { createConversationStore } from "../../src/storage/conversations";
import { createCostStore } from "../../src/storage/costs";
import { createFileLogger } from "../../src/storage/logger";
import { createProfileStore } from "../../src/storage/profile";
import { createToolRegistry } from "../../src/tools/registry";
import { toolInput } from "../../src/tools/tool-input";
import type { AnyToolDefinition } from "../../src/tools/types";
import { toolOk } from "../../src/tools/types";
import type { FakeLlmServer } from "../kit/fake-llm-server";
import type { FakeProcessTable } from "./fake-process-table";

export interface ProcessHostOptions {
    table: FakeProcessTable;
    tools?: AnyToolDefinition[];
    startTurnOnNotice?: boolean;
    /** A stored conversation to continue (resume). */
    resume?: string;
    /** The data folder (a second host shares the first's). */
    dir?: string;
    /** Claude Code-style hooks, as a settings file's `hooks`. */
    hooks?: unknown;
    /** The session's plugin runtime (`/plugin`'s ops reload it). */
    pluginRuntime?: EngineHostOptions["pluginRuntime"];
}

export interface ProcessHost {
    host: EngineHost;
    events: HostEvent[];
    dir: string;
    logPath: string;
    conversationsDir: string;
    close(): void;
}

export function startProcessHost(server: FakeLlmServer, options: ProcessHostOptions): ProcessHost {
    const dir = options.dir ?? mkdtempSync(join(tmpdir(), "north-proc-host-"));
    const repoRoot = dir;
    const catalogue = buildCatalogue();
    const model = catalogue.models.find((m) => m.alias === "sonnet-4")!;
    const provider = createProvider({
        api: "anthropic",
        baseUrl: server.anthropicBaseUrl,
        apiKey: "k",
    });
    const conversationsDir = join(dir, "conversations");
    const store = createConversationStore(conversationsDir);
    const logPath = join(dir, "north.log");
    const logger = createFileLogger(logPath, "debug");
    const tools = createToolRegistry(options.tools ?? []);
    let resumed: LoadedConversation | undefined;
    let log;
    if (options.resume) {
        const opened = store.open(options.resume);
        if (!opened.ok) throw new Error(opened.error);
        log = opened.log;
        resumed = opened.conversation;
    } else {
        log = store.start({ repoRoot, model: model.id });
    }
    const host = new EngineHost({
        repoRoot,
        catalogue,
        store,
        logger,
        costs: createCostStore(dir),
        checkpoints: createCheckpointStore(join(dir, "checkpoints")),
        context: {},
        start: { model, sessionId: log.id, log, resumed },
        mode: "agent",
        warn: () => undefined,
        resolveModel: () => ({ ok: false, error: "no other model here" }),
        profiles: createProfileStore(dir, repoRoot),
        providerFor: () => provider,
        tools,
        skills: [],
        permissions: {
            list: () => ({ rules: [], notes: [] }),
            remove: () => ({ ok: false, message: "none" }),
            readDenial: () => undefined,
        },
        standing: () => ({ commands: false, edits: false }),
        processes: options.table,
        startTurnOnNotice: options.startTurnOnNotice,
        pluginRuntime: options.pluginRuntime,
        pluginOperations: () => import("../../src/agent/host/plugin-operations"),
        newSession: (parts) =>
            new AgentSession({
                ...parts,
                repoRoot,
                providerFor: () => provider,
                tools,
                logger,
                hookSettings: options.hooks
                    ? parseHookSettings({ hooks: options.hooks }, "test").settings
                    : undefined,
            }),
    });
    const events: HostEvent[] = [];
    host.subscribe((event) => events.push(event));
    return {
        host,
        events,
        dir,
        logPath,
        conversationsDir,
        close() {
            host.close();
            logger.flush();
        },
    };
}

const emptyInput = toolInput((z) => z.object({}));

/** A tool that runs `effect` (the table changes while a call runs) and answers "done". */
export function effectTool(name: string, effect: () => void): AnyToolDefinition {
    return {
        name,
        description: `test tool ${name}`,
        input: emptyInput,
        approvalPolicy: "none",
        readOnly: true,
        async execute() {
            effect();
            return toolOk("done");
        },
    };
}

/** The text of a request body's last user message (all its text and tool result blocks). */
export function lastUserText(body: unknown): string {
    const messages = (body as { messages: Array<{ role: string; content: unknown }> }).messages;
    const last = messages.filter((m) => m.role === "user").at(-1);
    return JSON.stringify(last?.content ?? "");
}
