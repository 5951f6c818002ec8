/**
 * Serves MCP sampling and elicitation for the session: a server's sampling
 * request runs, once the user approved it, as one plain request (no tools)
 * to the session's current model, counted in its costs. Without a front-end
 * that can ask (print mode, the Node API) the manager declines both.
 */
import type { SessionOptions } from "../agent/session";
import { type ModelInfo, calculateCost, wireModelId } from "../providers/catalogue";
import type { Message, Provider, StopReason } from "../providers/types";
import type {
    McpElicitation,
    McpElicitationAnswer,
    McpSamplingAnswer,
    McpSamplingRequest,
} from "../tools/mcp/client-requests";
import type { McpManagerOptions } from "../tools/mcp/manager";

/** What the chat asks the user on an MCP server's behalf. */
export interface McpUserPrompts {
    /** The user's answer to a server's form. */
    elicit(request: McpElicitation, signal: AbortSignal): Promise<McpElicitationAnswer>;
    /** True once the user approves running the request; false when denied or cancelled. */
    approveSampling(request: McpSamplingRequest, signal: AbortSignal): Promise<boolean>;
}

export interface SamplingDeps {
    /** The session's model now (it may be switched during the conversation). */
    model(): ModelInfo;
    providerFor(model: ModelInfo): Promise<Provider>;
    /** Counts the request's usage in the session's costs. */
    record: NonNullable<SessionOptions["usageSink"]>;
}

const STOP_REASONS: Partial<Record<StopReason, McpSamplingAnswer["stopReason"]>> = {
    end_turn: "endTurn",
    max_tokens: "maxTokens",
    refusal: "refusal",
};

/** Runs one approved sampling request; throws with a reason the server can read. */
export async function runSampling(
    request: McpSamplingRequest,
    deps: SamplingDeps,
    signal: AbortSignal
): Promise<McpSamplingAnswer> {
    const model = deps.model();
    const provider = await deps.providerFor(model);
    const messages: Message[] = request.messages.map((m) =>
        m.role === "user"
            ? { role: "user", content: m.text }
            : { role: "assistant", content: [{ type: "text", text: m.text }] }
    );
    const stream = provider.stream(
        {
            apiModelId: wireModelId(model),
            system: request.systemPrompt ?? "",
            messages,
            tools: [],
            maxOutputTokens: Math.min(request.maxTokens, model.maxOutputTokens),
        },
        signal
    );
    for await (const event of stream) {
        if (event.type !== "done" && event.type !== "error") continue;
        deps.record({
            model,
            usage: event.usage,
            costUsd: calculateCost(model.pricing, event.usage),
        });
        if (event.type === "error") {
            throw new Error(`the model request failed: ${event.error.message}`);
        }
        const text = event.message.content
            .flatMap((block) => (block.type === "text" ? [block.text] : []))
            .join("");
        return { text, model: model.id, stopReason: STOP_REASONS[event.stopReason] ?? "endTurn" };
    }
    throw new Error("the model request ended without an answer");
}

/** The manager's handlers for a front-end that can ask; `deps` is null until the session exists. */
export function mcpClientHandlers(
    prompts: McpUserPrompts,
    deps: () => SamplingDeps | null
): Pick<McpManagerOptions, "onElicitation" | "onSampling"> {
    return {
        onElicitation: (request, signal) => prompts.elicit(request, signal),
        onSampling: async (request, signal) => {
            const sampling = deps();
            if (!sampling) throw new Error("North is still starting; ask again in a moment");
            if (!(await prompts.approveSampling(request, signal))) {
                throw new Error("the user denied the sampling request");
            }
            return runSampling(request, sampling, signal);
        },
    };
}
