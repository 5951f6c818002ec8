/**
 * The Gemini `generateContent` wire, shared by Gemini's own API (gemini.ts)
 * and Vertex AI's Gemini models: the request body from North's messages,
 * and the SSE stream of `GenerateContentResponse` chunks as StreamEvents.
 * Plain JSON over `streaming-post.ts`; no Google SDK.
 */

import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { makeProviderError } from "./errors";
import { googleStreamErrorBody } from "./gemini-errors";
import { GeminiTextChunkReader } from "./gemini-text-chunk";
import { webSearchAsText } from "./server-tools";
import { streamSse } from "./sse-stream";
import { emptyUsage, pushTextDelta } from "./stream-utils";
import type {
    AssistantBlock,
    ImageBlock,
    Message,
    ProviderError,
    StopReason,
    StreamEvent,
    StreamRequest,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolSchema,
    Usage,
    WebSearchBlock,
} from "./types";

// ------------------------------------------------------------ wire shapes

export interface GeminiInlineData {
    mimeType: string;
    /** Base64. */
    data: string;
}

export interface GeminiFunctionCall {
    id?: string;
    name: string;
    args?: Record<string, unknown>;
}

export interface GeminiFunctionResponse {
    id?: string;
    name: string;
    response: Record<string, unknown>;
}

export interface GeminiPart {
    text?: string;
    /** The part is a thought summary, not answer text. */
    thought?: boolean;
    thoughtSignature?: string;
    inlineData?: GeminiInlineData;
    functionCall?: GeminiFunctionCall;
    functionResponse?: GeminiFunctionResponse;
}

export interface GeminiContent {
    role: "user" | "model";
    parts: GeminiPart[];
}

export interface GeminiFunctionDeclaration {
    name: string;
    description: string;
    /** JSON Schema as is (the older `parameters` field takes only an OpenAPI subset). */
    parametersJsonSchema: Record<string, unknown>;
}

export interface GeminiThinkingConfig {
    includeThoughts: boolean;
    /** Gemini 2.x: tokens. */
    thinkingBudget?: number;
    /** Gemini 3 and later: a level instead of a budget (the two together are a 400). */
    thinkingLevel?: "low" | "high";
}

export interface GeminiRequestBody {
    contents: GeminiContent[];
    systemInstruction?: { parts: Array<{ text: string }> };
    tools?: Array<
        | { functionDeclarations: GeminiFunctionDeclaration[] }
        /** Grounding with Google Search (the user's `webSearch`). */
        | { googleSearch: Record<string, never> }
    >;
    generationConfig: { maxOutputTokens: number; thinkingConfig?: GeminiThinkingConfig };
}

export interface GeminiUsageMetadata {
    /** Includes `cachedContentTokenCount`. */
    promptTokenCount?: number;
    cachedContentTokenCount?: number;
    candidatesTokenCount?: number;
    thoughtsTokenCount?: number;
    toolUsePromptTokenCount?: number;
    totalTokenCount?: number;
}

/** What Google Search grounding did for an answer: the queries, the pages, what each supports. */
export interface GeminiGroundingMetadata {
    webSearchQueries?: string[];
    groundingChunks?: Array<{ web?: { uri?: string; title?: string } }>;
    groundingSupports?: Array<{ groundingChunkIndices?: number[] }>;
}

export interface GeminiCandidate {
    content?: { role?: string; parts?: GeminiPart[] };
    finishReason?: string;
    finishMessage?: string;
    groundingMetadata?: GeminiGroundingMetadata;
}

export interface GeminiResponseChunk {
    candidates?: GeminiCandidate[];
    usageMetadata?: GeminiUsageMetadata;
    promptFeedback?: { blockReason?: string; blockReasonMessage?: string };
    modelVersion?: string;
    responseId?: string;
}

// ------------------------------------------------------------ request

/** The `generateContent` body for a request (contents, system, tools, thinking). */
export function buildGeminiRequest(request: StreamRequest): GeminiRequestBody {
    const body: GeminiRequestBody = {
        contents: toGeminiContents(request.messages, usesThinkingLevel(request.apiModelId)),
        generationConfig: { maxOutputTokens: request.maxOutputTokens },
    };
    if (request.system) body.systemInstruction = { parts: [{ text: request.system }] };
    if (request.tools.length > 0) {
        body.tools = [{ functionDeclarations: request.tools.map(toFunctionDeclaration) }];
    }
    // Google Search takes no domain filters or limit: the policy offers it only without rules to express.
    if (request.webSearch) (body.tools ??= []).push({ googleSearch: {} });
    if (request.thinking) {
        const budget = request.thinking.budgetTokens;
        body.generationConfig.thinkingConfig = usesThinkingLevel(request.apiModelId)
            ? {
                  includeThoughts: true,
                  thinkingLevel: budget >= HIGH_THINKING_BUDGET ? "high" : "low",
              }
            : { includeThoughts: true, thinkingBudget: budget };
        // The model's output limit covers thoughts and answer; only a limit the
        // budget would fill is raised, so the answer keeps room without passing it.
        if (request.maxOutputTokens <= budget) {
            body.generationConfig.maxOutputTokens = request.maxOutputTokens + budget;
        }
    }
    return body;
}

/** From this budget on, a level-based model thinks at "high" (its default). */
const HIGH_THINKING_BUDGET = 8_192;

/** Gemini 3 and later take `thinkingLevel`; 2.x a token budget. */
function usesThinkingLevel(modelId: string): boolean {
    const major = /(?:^|\/)gemini-(\d+)/.exec(modelId)?.[1];
    return major !== undefined && Number(major) >= 3;
}

/**
 * North's tool schemas are JSON Schema, which `parametersJsonSchema` takes
 * whole; only the `$schema` marker is dropped, and the root is an object.
 */
function toFunctionDeclaration(tool: ToolSchema): GeminiFunctionDeclaration {
    const { $schema: _dropped, ...schema } = tool.inputSchema;
    return {
        name: tool.name,
        description: tool.description,
        parametersJsonSchema: { ...schema, type: "object" },
    };
}

/** The image types Gemini reads (PNG, JPEG, WebP, HEIC, HEIF): North's GIFs go as a note. */
const GEMINI_IMAGE_TYPES = new Set<string>(["image/png", "image/jpeg", "image/webp"]);

function inlineImage(block: ImageBlock): GeminiPart {
    if (!GEMINI_IMAGE_TYPES.has(block.mediaType)) {
        return { text: `[Image ${block.name} not sent: Gemini does not read ${block.mediaType}]` };
    }
    return { inlineData: { mimeType: block.mediaType, data: block.data } };
}

/**
 * Google's documented stand-in for a function call Gemini did not sign (from
 * another model, or cut from the history): Gemini 3 refuses an unsigned first
 * call of a step, and accepts this in its place.
 */
export const FOREIGN_CALL_SIGNATURE = "skip_thought_signature_validator";

function toGeminiContents(messages: Message[], signsCalls: boolean): GeminiContent[] {
    // functionResponse names the function; North's results name only the call id.
    const callNames = new Map<string, string>();
    for (const message of messages) {
        if (message.role !== "assistant") continue;
        for (const block of message.content) {
            if (block.type === "tool_call") callNames.set(block.id, block.name);
        }
    }
    const contents: GeminiContent[] = [];
    const push = (role: GeminiContent["role"], parts: GeminiPart[]): void => {
        if (parts.length === 0) return;
        const last = contents[contents.length - 1];
        // One turn per role in a row: the API expects user and model to alternate.
        if (last?.role === role) last.parts.push(...parts);
        else contents.push({ role, parts });
    };
    for (const message of messages) {
        if (message.role === "user") push("user", userParts(message.content, callNames));
        else push("model", modelParts(message.content, signsCalls));
    }
    return contents;
}

function userParts(
    content: Extract<Message, { role: "user" }>["content"],
    callNames: Map<string, string>
): GeminiPart[] {
    if (typeof content === "string") return content ? [{ text: content }] : [];
    // Function responses first, then text and images, as the API pairs them with the calls.
    const responses: GeminiPart[] = [];
    const rest: GeminiPart[] = [];
    for (const block of content) {
        if (block.type === "text") {
            if (block.text) rest.push({ text: block.text });
        } else if (block.type === "image") {
            rest.push(inlineImage(block));
        } else {
            const name = callNames.get(block.toolCallId) ?? "unknown_function";
            const key = block.isError ? "error" : "output";
            responses.push({
                functionResponse: {
                    id: block.toolCallId,
                    name,
                    response: { [key]: block.content },
                },
            });
            for (const image of block.images ?? []) rest.push(inlineImage(image));
        }
    }
    return [...responses, ...rest];
}

function modelParts(blocks: AssistantBlock[], signsCalls: boolean): GeminiPart[] {
    const parts: GeminiPart[] = [];
    let firstCall = true;
    for (const block of blocks) {
        switch (block.type) {
            case "text":
                // A signed empty part still carries its signature back.
                if (block.text || block.thoughtSignature)
                    parts.push(signed({ text: block.text }, block));
                break;
            case "thinking":
                // Thought summaries need not go back; a signed one goes back as received.
                if (block.thoughtSignature) {
                    parts.push({
                        text: block.thinking,
                        thought: true,
                        thoughtSignature: block.thoughtSignature,
                    });
                }
                break;
            case "tool_call": {
                const foreign = firstCall && signsCalls ? FOREIGN_CALL_SIGNATURE : undefined;
                const thoughtSignature = block.thoughtSignature ?? foreign;
                firstCall = false;
                parts.push(
                    signed(
                        {
                            functionCall: {
                                id: block.id,
                                name: block.name,
                                args: argsOf(block),
                            },
                        },
                        { thoughtSignature }
                    )
                );
                break;
            }
            case "redacted_thinking":
            case "reasoning":
                // Other APIs' reasoning: Gemini cannot read it.
                break;
            case "web_search":
                // Gemini's own grounding needs nothing back (the answer's text carries it);
                // another API's search is told as text.
                if (block.api !== "gemini") parts.push({ text: webSearchAsText(block) });
                break;
        }
    }
    return parts;
}

function signed(part: GeminiPart, block: { thoughtSignature?: string }): GeminiPart {
    if (block.thoughtSignature) part.thoughtSignature = block.thoughtSignature;
    return part;
}

function argsOf(block: ToolCallBlock): Record<string, unknown> {
    const input = block.inputError === undefined ? block.input : {};
    return typeof input === "object" && input !== null && !Array.isArray(input)
        ? (input as Record<string, unknown>)
        : {};
}

// ------------------------------------------------------------ stream

/** How one `streamGenerateContent` host is reached (Gemini API, Vertex AI). */
export interface GeminiTransport {
    /** Prefix of error messages, e.g. "Gemini API". */
    label: string;
    /** POSTs the body to `…:streamGenerateContent?alt=sse`; resolves with the 2xx response. */
    send: (body: GeminiRequestBody, signal: AbortSignal) => Promise<IncomingMessage>;
    classify: (error: unknown, signal: AbortSignal) => ProviderError | Promise<ProviderError>;
}

/** One `streamGenerateContent?alt=sse` request as North's stream events. */
export function streamGeminiContent(
    transport: GeminiTransport,
    request: StreamRequest,
    signal: AbortSignal
): AsyncGenerator<StreamEvent> {
    const state = new GeminiStreamState(transport.label);
    const chunks = new GeminiTextChunkReader();
    return streamSse<GeminiResponseChunk>({
        label: transport.label,
        signal,
        send: () => transport.send(buildGeminiRequest(request), signal),
        state: {
            blocks: state.blocks,
            usage: state.usage,
            handle: (chunk, out) => state.handle(chunk, out),
            failure: () => state.failure,
            incompleteDetail: () =>
                state.finished ? null : "connection closed before a finishReason",
            stopReason: () => state.stopReason(),
        },
        decode: (sse) => {
            const chunk = (chunks.read(sse.data) ?? JSON.parse(sse.data)) as GeminiResponseChunk & {
                error?: unknown;
            };
            if (chunk.error !== undefined) return { streamError: googleStreamErrorBody(chunk) };
            return chunk;
        },
        classify: (error) => transport.classify(error, signal),
    });
}

/** Finish reasons that mean the model stopped on a filter or policy, with what to tell the user. */
const REFUSAL_REASONS: Record<string, string> = {
    SAFETY: "the answer was blocked by the safety filters",
    RECITATION: "the answer was stopped for reciting protected material",
    LANGUAGE: "the answer was in an unsupported language",
    BLOCKLIST: "the answer contained a blocked term",
    PROHIBITED_CONTENT: "the answer was blocked as prohibited content",
    SPII: "the answer contained sensitive personal information",
    IMAGE_SAFETY: "an image was blocked by the safety filters",
    IMAGE_PROHIBITED_CONTENT: "an image was blocked as prohibited content",
    IMAGE_RECITATION: "an image was stopped for reciting protected material",
    TOO_MANY_TOOL_CALLS: "the model made too many function calls in a row",
    OTHER: "the model stopped for an unspecified reason",
};

/** Finish reasons for a function call the API could not parse: the same request may well succeed. */
const MALFORMED_CALL_REASONS = new Set(["MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL"]);

type OpenBlock = TextBlock | ThinkingBlock;

/** Accumulates one streamed answer from its `GenerateContentResponse` chunks. */
export class GeminiStreamState {
    readonly blocks: AssistantBlock[] = [];
    readonly usage: Usage = emptyUsage();
    finished = false;
    failure: ProviderError | undefined;
    private finishReason: string | undefined;
    private open: OpenBlock | undefined;
    private calls = 0;
    // The API often sends calls without ids; North's must be unique in the conversation.
    private readonly callIdPrefix = `gemini-${randomUUID().slice(0, 8)}-`;

    constructor(private readonly label: string) {}

    handle(chunk: GeminiResponseChunk, out: StreamEvent[]): void {
        if (chunk.usageMetadata) this.readUsage(chunk.usageMetadata);
        const blocked = chunk.promptFeedback?.blockReason;
        if (blocked && !chunk.candidates?.length) {
            this.refuse(
                out,
                blocked,
                chunk.promptFeedback?.blockReasonMessage,
                "the prompt was blocked"
            );
            return;
        }
        const candidate = chunk.candidates?.[0];
        for (const part of candidate?.content?.parts ?? []) this.handlePart(part, out);
        if (candidate?.groundingMetadata) this.ground(candidate.groundingMetadata, out);
        const reason = candidate?.finishReason;
        if (reason && reason !== "FINISH_REASON_UNSPECIFIED")
            this.finish(reason, candidate.finishMessage, out);
    }

    stopReason(): StopReason {
        switch (this.finishReason) {
            case undefined:
            case "STOP":
                return this.blocks.some((b) => b.type === "tool_call") ? "tool_use" : "end_turn";
            case "MAX_TOKENS":
                return "max_tokens";
            default:
                return "refusal";
        }
    }

    private handlePart(part: GeminiPart, out: StreamEvent[]): void {
        if (part.functionCall) {
            this.functionCall(part.functionCall, part.thoughtSignature, out);
            return;
        }
        // An empty unsigned part carries nothing (other kinds of part, e.g. images, are not read).
        if (!part.text && !part.thoughtSignature) return;
        this.addText(out, part.text ?? "", part.thought === true, part.thoughtSignature);
    }

    /**
     * Appends text to the open block of its kind, or opens one. A signed part
     * (often an empty one that ends the answer) is a block of its own, never
     * merged with others: the signature goes back on exactly that part.
     */
    private addText(out: StreamEvent[], text: string, thought: boolean, signature?: string): void {
        const kind = thought ? "thinking" : "text";
        let block = this.open;
        if (signature || !block || block.type !== kind || block.thoughtSignature !== undefined) {
            block = thought
                ? { type: "thinking", thinking: "", signature: "" }
                : { type: "text", text: "" };
            if (signature) block.thoughtSignature = signature;
            this.blocks.push(block);
            this.open = block;
        }
        if (!text) return;
        if (block.type === "thinking") {
            block.thinking += text;
            pushTextDelta(out, "thinking_delta", text);
        } else {
            block.text += text;
            pushTextDelta(out, "text_delta", text);
        }
    }

    /**
     * Google Search grounding: the queries and pages become one search (ahead
     * of the answer it informed), the pages its supports name become the
     * answer's citations. Sent once, with the last chunk.
     */
    private ground(metadata: GeminiGroundingMetadata, out: StreamEvent[]): void {
        const queries = metadata.webSearchQueries ?? [];
        const pages = (metadata.groundingChunks ?? []).map((c) => c.web);
        if (queries.length === 0 && pages.length === 0) return;
        const sources = pages.flatMap((page) =>
            page?.uri ? [{ url: page.uri, ...(page.title ? { title: page.title } : {}) }] : []
        );
        const search: WebSearchBlock = {
            type: "web_search",
            api: "gemini",
            id: `${this.callIdPrefix}search-${++this.calls}`,
            query: queries.join("; "),
            sources,
            wire: [metadata],
        };
        this.blocks.unshift(search);
        this.usage.webSearchRequests = (this.usage.webSearchRequests ?? 0) + queries.length;
        out.push({ type: "web_search", search });
        const text = this.blocks.findLast((b): b is TextBlock => b.type === "text");
        if (!text) return;
        const cited = new Set<number>();
        for (const support of metadata.groundingSupports ?? []) {
            for (const index of support.groundingChunkIndices ?? []) cited.add(index);
        }
        for (const index of [...cited].sort((a, b) => a - b)) {
            const page = pages[index];
            if (!page?.uri) continue;
            (text.citations ??= []).push({
                url: page.uri,
                ...(page.title ? { title: page.title } : {}),
                api: "gemini",
                wire: page,
            });
        }
    }

    private functionCall(
        call: GeminiFunctionCall,
        signature: string | undefined,
        out: StreamEvent[]
    ): void {
        this.open = undefined;
        // Function calls come whole: start, the arguments in one delta, end.
        const id = call.id || `${this.callIdPrefix}${++this.calls}`;
        const args = call.args ?? {};
        const rawInput = JSON.stringify(args);
        const block: ToolCallBlock = {
            type: "tool_call",
            id,
            name: call.name,
            input: args,
            rawInput,
        };
        if (signature) block.thoughtSignature = signature;
        this.blocks.push(block);
        out.push({ type: "tool_call_start", id, name: call.name });
        out.push({ type: "tool_call_delta", id, partialJson: rawInput });
        out.push({ type: "tool_call_end", call: block });
    }

    private finish(reason: string, message: string | undefined, out: StreamEvent[]): void {
        this.finished = true;
        this.finishReason = reason;
        if (MALFORMED_CALL_REASONS.has(reason)) {
            this.failure = makeProviderError(
                "incomplete_stream",
                `${this.label}: the model wrote a function call the API could not parse (${reason})${message ? `: ${message}` : ""}`
            );
            return;
        }
        if (reason === "STOP" || reason === "MAX_TOKENS") return;
        this.refuse(out, reason, message, REFUSAL_REASONS[reason] ?? "the model stopped");
    }

    /** Ends the answer as a refusal, with a line saying why (the API sends no text for it). */
    private refuse(
        out: StreamEvent[],
        reason: string,
        message: string | undefined,
        why: string
    ): void {
        this.finished = true;
        this.finishReason = reason;
        this.open = undefined;
        const text = `${this.blocks.length > 0 ? "\n\n" : ""}[${this.label} stopped: ${why} (${reason})${message ? `: ${message}` : ""}]`;
        this.blocks.push({ type: "text", text });
        pushTextDelta(out, "text_delta", text);
    }

    /** Usage comes whole on each chunk; cached tokens are part of the prompt's count. */
    private readUsage(meta: GeminiUsageMetadata): void {
        const cached = meta.cachedContentTokenCount ?? 0;
        this.usage.inputTokens =
            Math.max(0, (meta.promptTokenCount ?? 0) - cached) +
            (meta.toolUsePromptTokenCount ?? 0);
        this.usage.cacheReadTokens = cached;
        this.usage.outputTokens = (meta.candidatesTokenCount ?? 0) + (meta.thoughtsTokenCount ?? 0);
    }
}
