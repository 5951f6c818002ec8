/**
 * A fake Vertex AI serving Claude through `streamRawPredict` and Gemini
 * through `streamGenerateContent?alt=sse`, checking what the real service
 * checks: a bearer token the token endpoint issued, the URL shape (project,
 * location, publisher, model), a model served in that location; for Claude
 * the Messages API's 400 rules with Vertex's own (`wire-rules-anthropic.ts`,
 * host "vertex": its anthropic_version, no `model` in the body) and thinking
 * replayed with the signature this fake sent; for Gemini the
 * generateContent body rules and thought signatures (fake-gemini-rules.ts).
 * Google's errors come as `{error:{code,message,status}}`, the Messages
 * API's as Anthropic's.
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import { type GeminiReplyExtras, encodeGeminiReply } from "./fake-gemini";
import { geminiBodyProblem } from "./fake-gemini-rules";
import { encodeReply } from "./fake-llm-wire";
import type { FakeReplyTurn } from "./fake-llm-wire";
import { anthropicMessagesProblems, wireProblemMessage } from "./wire-rules";
import { listenLocal, readBodyText, sendJson, sendJsonUtf8 } from "./http-fake";

export interface FakeVertexError {
    status: number;
    /** Google's status name: RESOURCE_EXHAUSTED, UNAVAILABLE… */
    statusName: string;
    message?: string;
    headers?: Record<string, string>;
}

/** A reply in the wire of the model's publisher (`gemini`: Gemini's own ends of it). */
export type FakeVertexTurn =
    (FakeReplyTurn & { gemini?: GeminiReplyExtras }) | { error: FakeVertexError };

export interface FakeVertexRequest {
    path: string;
    publisher: "anthropic" | "google";
    project: string;
    location: string;
    model: string;
    headers: IncomingMessage["headers"];
    body: Record<string, unknown>;
}

export interface FakeVertex {
    /** http://127.0.0.1:PORT/v1 — what ANTHROPIC_VERTEX_BASE_URL holds. */
    baseUrl: string;
    requests: FakeVertexRequest[];
    enqueue(...turns: FakeVertexTurn[]): void;
    remaining(): number;
    close(): Promise<void>;
}

export interface FakeVertexOptions {
    project: string;
    /** The models (Claude and Gemini) each location serves. */
    models: Record<string, string[]>;
    /** Accepts a bearer token; undefined: requests need none (a gateway adds it). */
    tokenValid?: (token: string) => boolean;
}

const PATH =
    /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(anthropic|google)\/models\/([^/:]+):(streamRawPredict|streamGenerateContent)$/;
const METHOD = { anthropic: "streamRawPredict", google: "streamGenerateContent" } as const;

export async function startFakeVertex(options: FakeVertexOptions): Promise<FakeVertex> {
    const queue: FakeVertexTurn[] = [];
    const requests: FakeVertexRequest[] = [];
    /** Thinking signatures this fake sent, the only ones it accepts back. */
    const signatures = new Set<string>();
    const geminiSignatures = new Set<string>();

    const server = await listenLocal((req, res) => {
        void handle(req, res).catch((error: unknown) => {
            googleError(res, { status: 500, statusName: "INTERNAL", message: String(error) });
        });
    });

    async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
        const text = await readBodyText(req);
        const url = new URL(req.url ?? "/", "http://127.0.0.1");
        const path = decodeURIComponent(url.pathname);
        const match = PATH.exec(path);
        const publisher = match?.[3] as "anthropic" | "google" | undefined;
        if (req.method !== "POST" || !match || METHOD[publisher!] !== match[5]) {
            googleError(res, {
                status: 404,
                statusName: "NOT_FOUND",
                message: `The requested URL ${path} was not found on this server.`,
            });
            return;
        }
        const [, project, location, , model] = match as unknown as string[] as [
            string,
            string,
            string,
            string,
            string,
        ];
        if (options.tokenValid) {
            const auth = req.headers.authorization ?? "";
            const token = auth.startsWith("Bearer ") ? auth.slice(7) : "";
            if (!token || !options.tokenValid(token)) {
                googleError(res, {
                    status: 401,
                    statusName: "UNAUTHENTICATED",
                    message:
                        "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
                });
                return;
            }
        }
        if (project !== options.project) {
            googleError(res, {
                status: 403,
                statusName: "PERMISSION_DENIED",
                message: `Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/${project}/locations/${location}/publishers/${publisher}/models/${model}' (or it may not exist).`,
            });
            return;
        }
        if (!options.models[location]?.includes(model)) {
            googleError(res, {
                status: 404,
                statusName: "NOT_FOUND",
                message: `Publisher Model \`projects/${project}/locations/${location}/publishers/${publisher}/models/${model}\` not found.`,
            });
            return;
        }
        let body: Record<string, unknown>;
        try {
            body = JSON.parse(text) as Record<string, unknown>;
        } catch {
            googleError(res, {
                status: 400,
                statusName: "INVALID_ARGUMENT",
                message: "Invalid JSON payload received.",
            });
            return;
        }
        requests.push({
            path,
            publisher: publisher!,
            project,
            location,
            model,
            headers: req.headers,
            body,
        });
        if (publisher === "google") {
            const problem =
                url.searchParams.get("alt") !== "sse"
                    ? "streamGenerateContent answers SSE only with alt=sse"
                    : geminiBodyProblem(body, { model, issuedSignatures: geminiSignatures });
            if (problem) {
                googleError(res, { status: 400, statusName: "INVALID_ARGUMENT", message: problem });
                return;
            }
        } else {
            const problem = messagesProblem(body, signatures);
            if (problem) {
                anthropicError(res, 400, "invalid_request_error", problem);
                return;
            }
        }
        const turn = queue.shift();
        if (!turn) {
            googleError(res, {
                status: 500,
                statusName: "INTERNAL",
                message: "fake Vertex: no scripted turn left",
            });
            return;
        }
        if ("error" in turn) {
            googleError(res, turn.error);
            return;
        }
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        if (publisher === "google") {
            res.end(encodeGeminiReply(model, turn, geminiSignatures).join(""));
            return;
        }
        if (turn.thinking) signatures.add(turn.thinking.signature);
        res.end(encodeReply("anthropic", model, turn).join(""));
    }

    const { port } = server;
    return {
        baseUrl: `http://127.0.0.1:${port}/v1`,
        requests,
        enqueue: (...turns) => void queue.push(...turns),
        remaining: () => queue.length,
        close: () => server.close(),
    };
}

/**
 * The Messages API's 400 for this body on Vertex (the shared rules, host
 * "vertex"), then the one this fake adds: a thinking block comes back with a
 * signature it issued.
 */
function messagesProblem(
    body: Record<string, unknown>,
    signatures: Set<string>
): string | undefined {
    const problems = anthropicMessagesProblems(body, "vertex");
    if (problems.length > 0) return wireProblemMessage(problems);
    for (const [i, message] of (body["messages"] as Array<{ content?: unknown }>).entries()) {
        if (!Array.isArray(message.content)) continue;
        for (const block of message.content as Array<Record<string, unknown>>) {
            if (block["type"] === "thinking" && !signatures.has(String(block["signature"]))) {
                return `messages.${i}.content: Invalid \`signature\` in \`thinking\` block`;
            }
        }
    }
    return undefined;
}

function googleError(res: ServerResponse, error: FakeVertexError): void {
    const { status, statusName, message } = error;
    const body = { error: { code: status, message: message ?? statusName, status: statusName } };
    sendJsonUtf8(res, status, body, error.headers);
}

function anthropicError(res: ServerResponse, status: number, type: string, message: string): void {
    sendJson(res, status, { type: "error", error: { type, message } });
}
