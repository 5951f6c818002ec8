/**
 * A local Azure resource: Azure OpenAI's Responses and Chat Completions APIs
 * (the v1 path `/openai/v1/...` and the dated `/openai/...?api-version=`),
 * its model list, and Microsoft Foundry's Anthropic endpoint
 * (`/anthropic/v1/messages`). It checks what Azure checks: the `api-key`
 * header or an Entra ID bearer token for the right audience, a known
 * deployment in the body's `model`, a supported `api-version` where the path
 * needs one, tool outputs paired with calls; and answers in Azure's error
 * shape (`{"error": {"code", "message"}}`; Foundry answers as Anthropic does).
 */

import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";

import { encodeReply, errorBody } from "./fake-llm-wire";
import type { FakeErrorTurn, FakeTurn, Wire } from "./fake-llm-wire";
import { listenLocal, readBodyText, sendJson, parseJsonOrText } from "./http-fake";

export const AZURE_OPENAI_AUDIENCE = "https://cognitiveservices.azure.com";
export const FOUNDRY_AUDIENCE = "https://ai.azure.com";

export interface FakeAzureOptions {
    /** The resource's key (`api-key` on Azure OpenAI, `x-api-key` on Foundry). */
    apiKey?: string;
    /** Deployment names the resource has (Azure OpenAI and Foundry alike). */
    deployments: string[];
    /** Dated api-versions the `/openai/...` path accepts. */
    apiVersions?: string[];
    /** Accepts Entra ID bearer tokens for an audience (the fake token service's `accepts`). */
    acceptsToken?: (token: string, audience: string) => boolean;
}

export interface AzureRecordedRequest {
    method: string;
    path: string;
    query: URLSearchParams;
    headers: IncomingHttpHeaders;
    body: unknown;
}

export interface FakeAzure {
    /** http://127.0.0.1:PORT — the resource URL (AZURE_OPENAI_ENDPOINT). */
    url: string;
    /** url + "/anthropic" (ANTHROPIC_FOUNDRY_BASE_URL). */
    foundryBaseUrl: string;
    requests: AzureRecordedRequest[];
    enqueue(...turns: FakeTurn[]): void;
    remaining(): number;
    close(): Promise<void>;
}

const DEFAULT_API_VERSIONS = ["2025-04-01-preview", "2025-03-01-preview"];
/** The v1 API takes no version, or one of these labels. */
const V1_LABELS = new Set(["preview", "latest", "v1"]);

const ROUTES: Record<string, { wire: Wire; family: "openai" | "foundry"; dated: boolean }> = {
    "/openai/v1/responses": { wire: "responses", family: "openai", dated: false },
    "/openai/responses": { wire: "responses", family: "openai", dated: true },
    "/openai/v1/chat/completions": { wire: "chat", family: "openai", dated: false },
    "/anthropic/v1/messages": { wire: "anthropic", family: "foundry", dated: false },
};

class Refusal {
    constructor(
        readonly status: number,
        readonly code: string,
        readonly message: string
    ) {}
}

export async function startFakeAzure(opts: FakeAzureOptions): Promise<FakeAzure> {
    const queue: FakeTurn[] = [];
    const requests: AzureRecordedRequest[] = [];
    const apiVersions = new Set(opts.apiVersions ?? DEFAULT_API_VERSIONS);

    const server = await listenLocal((req, res) => {
        void handle(req, res).catch((error: unknown) => {
            if (!res.headersSent)
                sendAzureError(res, new Refusal(500, "InternalServerError", String(error)));
            else res.destroy();
        });
    });

    /** Azure OpenAI: `api-key`, or a bearer token for Cognitive Services. */
    function openAIAuth(headers: IncomingHttpHeaders): Refusal | undefined {
        const key = headers["api-key"];
        if (typeof key === "string") {
            return key === opts.apiKey
                ? undefined
                : new Refusal(
                      401,
                      "401",
                      "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource."
                  );
        }
        const bearer = headers.authorization?.match(/^Bearer (.+)$/)?.[1];
        if (bearer && opts.acceptsToken?.(bearer, AZURE_OPENAI_AUDIENCE)) return undefined;
        if (bearer)
            return new Refusal(
                401,
                "PermissionDenied",
                "Unauthorized. Access token is missing, invalid, audience is incorrect (https://cognitiveservices.azure.com), or have expired."
            );
        return new Refusal(
            401,
            "401",
            "Access denied due to missing subscription key or Entra ID token. Make sure to include an api-key header or an Authorization bearer token."
        );
    }

    function foundryAuth(headers: IncomingHttpHeaders): string | undefined {
        const key = headers["x-api-key"] ?? headers["api-key"];
        if (typeof key === "string") return key === opts.apiKey ? undefined : "invalid x-api-key";
        const bearer = headers.authorization?.match(/^Bearer (.+)$/)?.[1];
        if (bearer && opts.acceptsToken?.(bearer, FOUNDRY_AUDIENCE)) return undefined;
        return bearer
            ? "invalid or expired bearer token for https://ai.azure.com"
            : "x-api-key header is required";
    }

    async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
        const text = await readBodyText(req);
        const url = new URL(req.url ?? "/", "http://fake-azure");
        const body = parseJsonOrText(text);
        requests.push({
            method: req.method ?? "GET",
            path: url.pathname,
            query: url.searchParams,
            headers: req.headers,
            body,
        });
        const version = url.searchParams.get("api-version");
        if (req.method === "GET" && url.pathname === "/openai/v1/models") {
            const refused = openAIAuth(req.headers);
            if (refused) return sendAzureError(res, refused);
            sendJson(res, 200, {
                object: "list",
                data: opts.deployments.map((id) => ({ id, object: "model", created: 0 })),
            });
            return;
        }
        const route = req.method === "POST" ? ROUTES[url.pathname] : undefined;
        if (!route) {
            return sendAzureError(res, new Refusal(404, "404", "Resource not found"));
        }
        if (route.family === "foundry") {
            const refused = foundryAuth(req.headers);
            if (refused) return sendError(res, "anthropic", { status: 401, message: refused });
            if (!req.headers["anthropic-version"])
                return sendError(res, "anthropic", {
                    status: 400,
                    message: "anthropic-version header is required",
                });
        } else {
            const refused = openAIAuth(req.headers) ?? versionProblem(route.dated, version);
            if (refused) return sendAzureError(res, refused);
        }
        const model = modelOf(body);
        if (!opts.deployments.includes(model)) {
            if (route.family === "foundry")
                return sendError(res, "anthropic", {
                    status: 404,
                    type: "not_found_error",
                    message: `model: ${model}`,
                });
            return sendAzureError(
                res,
                new Refusal(
                    404,
                    "DeploymentNotFound",
                    "The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again."
                )
            );
        }
        const unpaired = route.wire === "responses" ? unpairedToolOutput(body) : undefined;
        if (unpaired) {
            return sendAzureError(
                res,
                new Refusal(
                    400,
                    "invalid_request_error",
                    `No tool call found for function call output with call_id ${unpaired}.`
                )
            );
        }
        const turn = queue.shift();
        if (!turn)
            return sendAzureError(
                res,
                new Refusal(500, "InternalServerError", "fake Azure: no scripted turn left")
            );
        if ("fault" in turn) throw new Error("fake Azure: faults are not scripted here");
        if ("error" in turn) {
            if (route.family === "foundry") return sendError(res, "anthropic", turn.error);
            return sendAzureError(
                res,
                new Refusal(
                    turn.error.status,
                    turn.error.code ?? String(turn.error.status),
                    turn.error.message ?? `fake error ${turn.error.status}`
                ),
                turn.error.headers
            );
        }
        res.writeHead(200, {
            "content-type": "text/event-stream",
            "cache-control": "no-cache",
            "apim-request-id": "00000000-0000-0000-0000-000000000000",
        });
        res.end(encodeReply(route.wire, model, turn).join(""));
    }

    /** The v1 path takes no dated version; the dated path needs a supported one. */
    function versionProblem(dated: boolean, version: string | null): Refusal | undefined {
        if (!dated) {
            if (version === null || V1_LABELS.has(version)) return undefined;
            return new Refusal(
                400,
                "BadRequest",
                `API version not supported on the v1 path: ${version}`
            );
        }
        if (version === null) return new Refusal(404, "404", "Resource not found");
        if (!apiVersions.has(version)) return new Refusal(404, "404", "Resource not found");
        return undefined;
    }

    const { port } = server;
    const url = `http://127.0.0.1:${port}`;
    return {
        url,
        foundryBaseUrl: `${url}/anthropic`,
        requests,
        enqueue: (...turns) => void queue.push(...turns),
        remaining: () => queue.length,
        close: () => server.close(),
    };
}

/** A `function_call_output` whose call is not earlier in the input: the API's 400. */
function unpairedToolOutput(body: unknown): string | undefined {
    const input = (body as { input?: unknown })?.input;
    if (!Array.isArray(input)) return undefined;
    const calls = new Set<string>();
    for (const item of input as Array<Record<string, unknown>>) {
        if (item.type === "function_call" && typeof item.call_id === "string")
            calls.add(item.call_id);
        if (item.type === "function_call_output" && !calls.has(String(item.call_id)))
            return String(item.call_id);
    }
    return undefined;
}

function sendAzureError(
    res: ServerResponse,
    refusal: Refusal,
    headers: Record<string, string> = {}
): void {
    sendJson(
        res,
        refusal.status,
        { error: { code: refusal.code, message: refusal.message } },
        {
            "apim-request-id": "00000000-0000-0000-0000-000000000000",
            ...headers,
        }
    );
}

function sendError(res: ServerResponse, wire: Wire, error: FakeErrorTurn["error"]): void {
    sendJson(res, error.status, errorBody(wire, error), {
        "request-id": "req_fake",
        ...error.headers,
    });
}

function modelOf(body: unknown): string {
    const model = (body as { model?: unknown })?.model;
    return typeof model === "string" ? model : "";
}
