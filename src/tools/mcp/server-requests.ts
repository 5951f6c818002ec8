/**
 * What an MCP server may ask North: its roots, a form for the user
 * (elicitation) and a model answer (sampling). While the user answers, the
 * time limits of that server's calls stop counting (`CallClock`).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
    CancelledNotificationSchema,
    CreateMessageRequestSchema,
    type CreateMessageRequest,
    type CreateMessageResult,
    ErrorCode,
    ListRootsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { basename } from "node:path";
import { pathToFileURL } from "node:url";
import {
    type DeadlineTimers,
    type PausableDeadline,
    pausableDeadline,
} from "../../util/pausable-deadline";
import {
    type McpElicitation,
    type McpElicitationAnswer,
    type McpSamplingAnswer,
    type McpSamplingRequest,
    formFields,
    samplingRequestOf,
} from "./client-requests";

/** JSON-RPC code of a request the user turned down (the MCP spec's sampling example). */
const USER_REJECTED = -1;

/**
 * An error answer to a server's request. Not an McpError: its message
 * already starts "MCP error N:", and the server adds that again.
 */
function requestError(code: number, message: string): Error & { code: number } {
    return Object.assign(new Error(message), { code });
}

/** An error's message, with its cause's code (or message) when that adds something. */
export function errorText(error: unknown): string {
    if (!(error instanceof Error)) return String(error);
    const cause = (error as { cause?: unknown }).cause;
    const causeText =
        cause instanceof Error
            ? ((cause as NodeJS.ErrnoException).code ?? cause.message)
            : undefined;
    return causeText && !error.message.includes(causeText)
        ? `${error.message} (${causeText})`
        : error.message;
}

/**
 * The time limits of one server's calls in flight, paused while the user
 * answers one of its questions: the calls then wait on the user, not the server.
 */
export class CallClock {
    private questionsOpen = 0;
    private readonly deadlines = new Set<PausableDeadline>();

    constructor(private readonly timers: DeadlineTimers | undefined) {}

    /** A call's limit; paused from the start when a question is open. */
    startCall(limitMs: number, expire: () => void): PausableDeadline {
        const deadline = pausableDeadline(limitMs, expire, {
            paused: this.questionsOpen > 0,
            timers: this.timers,
        });
        this.deadlines.add(deadline);
        return deadline;
    }

    endCall(deadline: PausableDeadline): void {
        deadline.cancel();
        this.deadlines.delete(deadline);
    }

    questionOpened(): void {
        if (this.questionsOpen++ === 0) for (const deadline of this.deadlines) deadline.pause();
    }

    questionClosed(): void {
        if (--this.questionsOpen === 0) for (const deadline of this.deadlines) deadline.resume();
    }
}

export interface ServerRequestOptions {
    /** The server's name, shown to the user with its questions. */
    server: string;
    /** Directories answered to roots/list. */
    roots: readonly string[];
    clock: CallClock;
    onElicitation?: (request: McpElicitation, signal: AbortSignal) => Promise<McpElicitationAnswer>;
    onSampling?: (request: McpSamplingRequest, signal: AbortSignal) => Promise<McpSamplingAnswer>;
}

interface RequestExtra {
    requestId: string | number;
    signal: AbortSignal;
}

/** Sets up `client` to answer its server's requests. */
export function answerServerRequests(client: Client, options: ServerRequestOptions): void {
    const questions = new OpenQuestions(options.clock);
    client.setRequestHandler(ListRootsRequestSchema, () => ({
        roots: options.roots.map((dir) => ({ uri: pathToFileURL(dir).href, name: basename(dir) })),
    }));
    client.setNotificationHandler(CancelledNotificationSchema, (notification) => {
        const id = notification.params.requestId;
        if (id !== undefined) questions.cancel(id, notification.params.reason);
    });
    // Not through setRequestHandler: the SDK would answer a schema it cannot
    // parse (a nested object) with a raw validation dump instead of a reason.
    client.fallbackRequestHandler = async (request, extra) => {
        if (request.method !== "elicitation/create") {
            throw requestError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
        }
        return questions.while(extra, (signal) => elicit(options, request.params ?? {}, signal));
    };
    client.setRequestHandler(CreateMessageRequestSchema, (request, extra) =>
        sample(options, request.params, (ask) => questions.while(extra, ask))
    );
}

/**
 * The server's questions the user is answering, each with a signal of its own:
 * the SDK ignores a cancellation of request id 0 (falsy), often the first
 * question a server asks, and the user's open review must still close.
 */
class OpenQuestions {
    private readonly asking = new Map<string | number, AbortController>();

    constructor(private readonly clock: CallClock) {}

    cancel(requestId: string | number, reason: unknown): void {
        this.asking.get(requestId)?.abort(reason);
    }

    /** Runs `answer` as an open question of request `extra`. */
    async while<T>(extra: RequestExtra, answer: (signal: AbortSignal) => Promise<T>): Promise<T> {
        const controller = new AbortController();
        this.asking.set(extra.requestId, controller);
        const forward = (): void => controller.abort(extra.signal.reason);
        extra.signal.addEventListener("abort", forward, { once: true });
        this.clock.questionOpened();
        try {
            return await answer(controller.signal);
        } finally {
            this.asking.delete(extra.requestId);
            extra.signal.removeEventListener("abort", forward);
            this.clock.questionClosed();
        }
    }
}

async function elicit(
    options: ServerRequestOptions,
    params: Record<string, unknown>,
    signal: AbortSignal
): Promise<McpElicitationAnswer> {
    if (params.mode !== undefined && params.mode !== "form") {
        throw requestError(
            ErrorCode.InvalidParams,
            `North declined the elicitation: only form mode is supported, not ${String(params.mode)}`
        );
    }
    const schema = params.requestedSchema;
    if (typeof params.message !== "string" || typeof schema !== "object" || schema === null) {
        throw requestError(
            ErrorCode.InvalidParams,
            "North declined the elicitation: it needs a message and a requestedSchema object"
        );
    }
    const requestedSchema = schema as Record<string, unknown>;
    const form = formFields(requestedSchema);
    if (!form.ok) {
        throw requestError(
            ErrorCode.InvalidParams,
            `North declined the elicitation: ${form.error}`
        );
    }
    if (!options.onElicitation) return { action: "decline" };
    const request = { server: options.server, message: params.message, requestedSchema };
    return options.onElicitation(request, signal);
}

async function sample(
    options: ServerRequestOptions,
    params: CreateMessageRequest["params"],
    asQuestion: (
        ask: (signal: AbortSignal) => Promise<McpSamplingAnswer>
    ) => Promise<McpSamplingAnswer>
): Promise<CreateMessageResult> {
    const onSampling = options.onSampling;
    if (!onSampling) {
        throw requestError(
            USER_REJECTED,
            "North declined the sampling request: only the chat can ask the user to approve one (not print mode or the Node API)"
        );
    }
    if (params.tools || params.toolChoice) {
        throw requestError(
            ErrorCode.InvalidParams,
            "North declined the sampling request: tools in sampling are not supported"
        );
    }
    const parsed = samplingRequestOf(options.server, params);
    if (!parsed.ok) {
        throw requestError(
            ErrorCode.InvalidParams,
            `North declined the sampling request: ${parsed.error}`
        );
    }
    let answer: McpSamplingAnswer;
    try {
        answer = await asQuestion((signal) => onSampling(parsed.request, signal));
    } catch (error) {
        throw requestError(USER_REJECTED, errorText(error));
    }
    return {
        role: "assistant",
        content: { type: "text", text: answer.text },
        model: answer.model,
        stopReason: answer.stopReason,
    };
}
