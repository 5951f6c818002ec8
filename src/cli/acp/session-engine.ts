/**
 * Starts an ACP session's engine: North's ordinary session (startSession)
 * whose questions go to the editor. The project-trust question and every
 * review become `session/request_permission`, and the host's events become
 * `session/update`s through the session's translator.
 */
import type { AgentContext, ClientCapabilities, SessionUpdate } from "@agentclientprotocol/sdk";
import { answerApprovalsWith } from "../../agent/approval-answers";
import type { Mode } from "../../agent/events";
import type { ModelInfo } from "../../providers/catalogue";
import type { ProviderEndpoint } from "../../providers/types";
import type { LogLevel } from "../../storage/logger";
import { dataDir } from "../../storage/paths";
import { createProfileStore } from "../../storage/profile";
import { awaitMcpServers } from "../mcp-reports";
import { resolveReadyModel } from "../model-selection";
import type { TrustAnswer, TrustInventory } from "../project-trust";
import type { PreparedSession } from "../session-setup";
import { type EngineSession, startSession } from "../session-start";
import { createClientWorkspace } from "./client-workspace";
import { permissionQuestion, trustQuestion } from "./permissions";
import { reportProcesses } from "./process-updates";
import { type UpdateTranslator, createUpdateTranslator } from "./updates";

/** What every session of one `north acp` shares. */
export interface AcpSessionDeps {
    client: AgentContext;
    version: string;
    logLevel: LogLevel;
    /** `--trust`: the project's configuration is used without asking. */
    trust: boolean;
    clientCapabilities: ClientCapabilities | undefined;
    warn(message: string): void;
}

export interface AcpEngine {
    engine: EngineSession;
    translator: UpdateTranslator;
}

export interface AcpEngineStart {
    sessionId: string;
    prepared: PreparedSession;
    model: ModelInfo;
    endpoint: ProviderEndpoint;
    mode: Mode;
    /** The id a new conversation is saved under; unset when one is resumed. */
    conversationId: string | undefined;
    /** The editor's MCP servers, in the `mcpServers` settings shape. */
    clientMcpServers: Record<string, unknown>;
    /** Aborted when the prompt that starts the engine is cancelled: the trust question is withdrawn. */
    signal: AbortSignal;
    send(update: SessionUpdate): void;
    /** Resolves once every update queued so far is written. */
    flushed(): Promise<void>;
}

/**
 * Asks the editor whether to trust the project's configuration, on a tool
 * call of its own (sent first, so an editor that draws permissions on known
 * calls has it); withdrawn or refused: untrusted.
 */
async function askTrust(
    client: AgentContext,
    start: AcpEngineStart,
    inventory: TrustInventory
): Promise<TrustAnswer> {
    const question = trustQuestion(inventory);
    const { toolCall } = question;
    start.send({
        sessionUpdate: "tool_call",
        toolCallId: toolCall.toolCallId,
        title: toolCall.title ?? "Trust this project's configuration",
        kind: toolCall.kind ?? "other",
        status: "pending",
        content: toolCall.content ?? [],
    });
    await start.flushed();
    let answer: TrustAnswer = "untrusted";
    try {
        const response = await client.request(
            "session/request_permission",
            { sessionId: start.sessionId, toolCall, options: question.options },
            { cancellationSignal: start.signal, stopWaitingOnCancel: true }
        );
        answer = question.answer(response.outcome);
    } catch {
        // Withdrawn (the prompt was cancelled) or the editor went away: nothing is trusted.
    }
    start.send({
        sessionUpdate: "tool_call_update",
        toolCallId: toolCall.toolCallId,
        status: answer === "untrusted" ? "failed" : "completed",
    });
    return answer;
}

export async function startAcpEngine(
    start: AcpEngineStart,
    deps: AcpSessionDeps
): Promise<AcpEngine> {
    const { prepared, sessionId } = start;
    const { client } = deps;
    const engine = await startSession(
        { ...prepared, model: start.model, endpoint: start.endpoint },
        {
            version: deps.version,
            frontEnd: "acp",
            logLevel: deps.logLevel,
            mode: start.mode,
            conversationId: start.conversationId,
            clientMcpServers: start.clientMcpServers,
            workspace: createClientWorkspace(client, sessionId, deps.clientCapabilities),
            resolveModel: (name) => resolveReadyModel(prepared.catalogue, name, process.env),
            profiles: createProfileStore(dataDir(), prepared.repoRoot),
            // Standing answers as in the chat: "always" in the editor is kept where its label says.
            approvalSettings: (project) => project,
            decideTrust: async (inventory) =>
                deps.trust ? "trust-once" : askTrust(client, start, inventory),
            warn: deps.warn,
        }
    );
    const { host } = engine;
    const mcp = engine.extensions.mcp;
    if (mcp) {
        // Said in the editor too: its user configured these servers there.
        await awaitMcpServers(mcp, (message) => {
            deps.warn(message);
            start.send({
                sessionUpdate: "agent_message_chunk",
                content: { type: "text", text: `⚠ ${message}\n\n` },
            });
        });
    }
    const translator = createUpdateTranslator({
        repoRoot: engine.repoRoot,
        toolDisplays: engine.toolDisplays,
        costUsd: () => host.state().costs.sessionUsd,
    });
    host.subscribe((event) => {
        for (const update of translator.translate(event)) start.send(update);
    });
    reportProcesses(host, start.send);
    answerApprovalsWith(host, async (request, settled) => {
        const question = permissionQuestion(request);
        // The tool call's latest state goes out before the question about it.
        await start.flushed();
        const response = await client.request(
            "session/request_permission",
            { sessionId, toolCall: translator.toolCallOf(request), options: question.options },
            { cancellationSignal: settled, stopWaitingOnCancel: true }
        );
        return question.answer(response.outcome);
    });
    return { engine, translator };
}
