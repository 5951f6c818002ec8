/**
 * A local Amazon Bedrock (runtime and control plane) on 127.0.0.1 that checks
 * what Bedrock checks: SigV4 recomputed independently (`fake-bedrock-sigv4.ts`)
 * or a Bedrock API key, the model in the region, the Messages body rules with
 * Bedrock's own (`wire-rules-anthropic.ts`, host "bedrock"); it answers InvokeModelWithResponseStream in AWS
 * event-stream frames with valid CRCs, and errors in Bedrock's shape
 * (`x-amzn-errortype` and a `message` body). Scripted turns are the fake LLM
 * server's, plus Bedrock's own faults.
 */

import { randomUUID } from "node:crypto";
import { crc32 } from "node:zlib";
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { createEventStreamCodec } from "../../src/providers/bedrock/event-stream-reader";
import { type FakeAwsKey, verifySigV4 } from "./fake-bedrock-sigv4";
import { cutMidToolCall, encodeReply, partialReply } from "./fake-llm-wire";
import type { FakeErrorTurn, FakeFaultTurn, FakeTurn } from "./fake-llm-wire";
import { anthropicMessagesProblems, wireProblemMessage } from "./wire-rules";
import { listenLocal, readBody, sendJson } from "./http-fake";

export type { FakeAwsKey } from "./fake-bedrock-sigv4";

/** Bedrock's own faults, beside the fake LLM server's turns. */
export type BedrockFaultTurn =
    /** A few good frames, then one whose payload CRC does not match. */
    | { bedrockFault: "corrupt_frame" }
    /** A few good frames, then an exception frame (`throttlingException`, `modelStreamErrorException`…). */
    | { bedrockFault: "exception"; exceptionType: string; message: string };

export type BedrockTurn = FakeTurn | BedrockFaultTurn;

export interface BedrockRecordedRequest {
    method: string;
    path: string;
    /** The model id from the path, decoded. */
    modelId?: string;
    headers: IncomingHttpHeaders;
    body: unknown;
    /** How it was authorised. */
    auth: "sigv4" | "bearer";
    accessKeyId?: string;
}

export interface FakeBedrockOptions {
    region?: string;
    /** Access keys the fake accepts. */
    keys?: Record<string, FakeAwsKey>;
    /** Bedrock API keys (`AWS_BEARER_TOKEN_BEDROCK`) the fake accepts. */
    bearerTokens?: string[];
    /** Foundation model ids callable on demand in this region. */
    onDemandModels?: string[];
    /** Inference profile ids served in this region. */
    inferenceProfiles?: string[];
}

export interface FakeBedrock {
    /** http://127.0.0.1:PORT, runtime and control plane alike. */
    url: string;
    region: string;
    requests: BedrockRecordedRequest[];
    enqueue(...turns: BedrockTurn[]): void;
    remaining(): number;
    close(): Promise<void>;
}

export const FAKE_AWS_KEY_ID = "AKIAFAKEBEDROCK00001";
export const FAKE_AWS_SECRET = "fakeSecretKey/For+Bedrock+Tests0000000000";
export const FAKE_BEARER_TOKEN = "ABSKZmFrZS1iZWRyb2NrLWFwaS1rZXk=";
export const SONNET_BEDROCK_ID = "anthropic.claude-sonnet-4-5-20250929-v1:0";
export const SONNET_PROFILE_ID = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
export const HAIKU_BEDROCK_ID = "anthropic.claude-haiku-4-5-20251001-v1:0";

const BATCH_BYTES = 64 * 1024;
const CODEC = createEventStreamCodec();

export async function startFakeBedrock(options: FakeBedrockOptions = {}): Promise<FakeBedrock> {
    const region = options.region ?? "us-east-1";
    const keys = new Map(
        Object.entries(options.keys ?? { [FAKE_AWS_KEY_ID]: { secretAccessKey: FAKE_AWS_SECRET } })
    );
    const bearer = new Set(options.bearerTokens ?? [FAKE_BEARER_TOKEN]);
    const onDemand = new Set(options.onDemandModels ?? [SONNET_BEDROCK_ID, HAIKU_BEDROCK_ID]);
    const profiles = new Set(options.inferenceProfiles ?? [SONNET_PROFILE_ID]);
    const queue: PreparedTurn[] = [];
    const requests: BedrockRecordedRequest[] = [];

    const server = await listenLocal((req, res) => {
        void handle(req, res).catch((err: unknown) => {
            if (!res.headersSent)
                sendError(res, 500, "InternalServerException", `fake crashed: ${String(err)}`);
            else res.destroy();
        });
    });

    async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
        const raw = await readBody(req);
        const url = req.url ?? "/";
        const path = url.split("?")[0] ?? "/";
        const authorization = req.headers.authorization ?? "";
        let record: BedrockRecordedRequest;
        if (authorization.startsWith("Bearer ")) {
            if (!bearer.has(authorization.slice(7))) {
                sendError(
                    res,
                    403,
                    "UnrecognizedClientException",
                    "Invalid API Key format: Must start with pre-defined prefix"
                );
                return;
            }
            record = {
                method: req.method ?? "GET",
                path,
                headers: req.headers,
                body: undefined,
                auth: "bearer",
            };
        } else {
            const verdict = verifySigV4(
                { method: req.method ?? "GET", url, headers: req.headers, body: raw },
                { keys, region, service: "bedrock" }
            );
            if (!verdict.ok) {
                sendError(res, verdict.status, verdict.type, verdict.message);
                return;
            }
            record = {
                method: req.method ?? "GET",
                path,
                headers: req.headers,
                body: undefined,
                auth: "sigv4",
                accessKeyId: verdict.accessKeyId,
            };
        }
        requests.push(record);
        if (req.method === "GET" && path === "/foundation-models") {
            sendJson(res, 200, { modelSummaries: [...onDemand].map(foundationSummary) });
            return;
        }
        if (req.method === "GET" && path === "/inference-profiles") {
            sendJson(res, 200, {
                inferenceProfileSummaries: [...profiles].map((id) => profileSummary(id, region)),
            });
            return;
        }
        const invoke = /^\/model\/([^/]+)\/invoke-with-response-stream$/.exec(path);
        if (req.method !== "POST" || !invoke) {
            sendError(
                res,
                404,
                "UnknownOperationException",
                `fake Bedrock: no route ${req.method} ${path}`
            );
            return;
        }
        const modelId = decodeURIComponent(invoke[1]!);
        record.modelId = modelId;
        let body: unknown;
        try {
            body = JSON.parse(raw.toString("utf8"));
        } catch {
            sendError(
                res,
                400,
                "ValidationException",
                "Malformed input request, please reformat your input and try again."
            );
            return;
        }
        record.body = body;
        if (req.headers["content-type"] !== "application/json") {
            sendError(res, 400, "ValidationException", "Content-Type must be application/json");
            return;
        }
        const modelProblem = modelRefusal(modelId, onDemand, profiles, region);
        if (modelProblem) {
            sendError(res, 400, "ValidationException", modelProblem);
            return;
        }
        const problems = anthropicMessagesProblems(body, "bedrock");
        if (problems.length > 0) {
            sendError(res, 400, "ValidationException", wireProblemMessage(problems));
            return;
        }
        const turn = queue.shift();
        if (!turn) {
            sendError(res, 500, "InternalServerException", "fake Bedrock: no scripted turn left");
            return;
        }
        await serveTurn(res, modelId, turn);
    }

    const { port } = server;
    return {
        url: `http://127.0.0.1:${port}`,
        region,
        requests,
        enqueue: (...turns) => void queue.push(...turns.map(prepare)),
        remaining: () => queue.length,
        close: () => server.close(),
    };
}

/** A reply turn with its frames encoded at enqueue time, so serving it is only writing. */
type PreparedTurn = FakeErrorTurn | FakeFaultTurn | BedrockFaultTurn | { frames: Uint8Array[] };

/** The model a prepared reply's `message_start` names (Bedrock echoes the model's own id). */
const REPLY_MODEL = "claude-sonnet-4-5-20250929";

function prepare(turn: BedrockTurn): PreparedTurn {
    if ("error" in turn || "fault" in turn || "bedrockFault" in turn) return turn;
    return { frames: chunkFrames(encodeReply("anthropic", REPLY_MODEL, turn)) };
}

async function serveTurn(res: ServerResponse, model: string, turn: PreparedTurn): Promise<void> {
    if ("error" in turn) {
        if (!turn.error.midStream) {
            const type =
                turn.error.type ?? TYPE_BY_STATUS[turn.error.status] ?? "InternalServerException";
            sendError(
                res,
                turn.error.status,
                type,
                turn.error.message ?? `fake error ${turn.error.status}`,
                turn.error.headers
            );
            return;
        }
        startEventStream(res);
        await writeFrames(res, [
            ...chunkFrames(partialReply("anthropic", model)),
            exceptionFrame(exceptionTypeOf(turn.error), turn.error.message),
        ]);
        res.end();
        return;
    }
    if ("bedrockFault" in turn) {
        startEventStream(res);
        const prefix = chunkFrames(partialReply("anthropic", model));
        if (turn.bedrockFault === "exception") {
            await writeFrames(res, [...prefix, exceptionFrame(turn.exceptionType, turn.message)]);
        } else {
            const bad = Buffer.from(prefix[prefix.length - 1]!);
            bad[bad.length - 6] = bad[bad.length - 6]! ^ 0xff;
            await writeFrames(res, [...prefix.slice(0, -1), bad, ...prefix.slice(-1)]);
        }
        res.end();
        return;
    }
    if ("fault" in turn) {
        startEventStream(res);
        if (turn.fault === "reset_mid_stream") {
            await writeFrames(res, chunkFrames(partialReply("anthropic", model)));
            res.socket?.destroy();
            return;
        }
        if (turn.fault === "cut_mid_tool_call") {
            await writeFrames(res, chunkFrames(cutMidToolCall("anthropic", model)));
            res.end();
            return;
        }
        throw new Error(`fake Bedrock does not script the ${turn.fault} fault`);
    }
    startEventStream(res);
    await writeFrames(res, turn.frames);
    res.end();
}

const TYPE_BY_STATUS: Record<number, string> = {
    400: "ValidationException",
    403: "AccessDeniedException",
    404: "ResourceNotFoundException",
    408: "ModelTimeoutException",
    424: "ModelErrorException",
    429: "ThrottlingException",
    500: "InternalServerException",
    503: "ServiceUnavailableException",
};

/** In the stream the exception names are camelCase (`throttlingException`). */
function exceptionTypeOf(error: FakeErrorTurn["error"]): string {
    const type = error.type ?? TYPE_BY_STATUS[error.status] ?? "internalServerException";
    return type.charAt(0).toLowerCase() + type.slice(1);
}

/** The Messages stream events of SSE text, each in a `chunk` frame as Bedrock sends them. */
function chunkFrames(sse: string[]): Uint8Array[] {
    const frames: Uint8Array[] = [];
    for (const event of sse) {
        const at = event.indexOf("data: ");
        if (at < 0) continue;
        let data = event.slice(at + 6).trimEnd();
        if (data.startsWith('{"type":"ping"')) continue;
        if (data.startsWith('{"type":"message_stop"')) {
            const parsed = JSON.parse(data) as Record<string, unknown>;
            parsed["amazon-bedrock-invocationMetrics"] = {
                inputTokenCount: 10,
                outputTokenCount: 1,
                invocationLatency: 5,
                firstByteLatency: 1,
            };
            data = JSON.stringify(parsed);
        }
        const bytes = Buffer.from(data).toString("base64");
        frames.push(chunkFrame(Buffer.from(`{"bytes":"${bytes}","p":"abcdefghij"}`)));
    }
    return frames;
}

/** The headers every `chunk` frame carries, formatted once by the codec. */
const CHUNK_HEADERS = Buffer.from(
    CODEC.formatHeaders({
        ":event-type": { type: "string", value: "chunk" },
        ":content-type": { type: "string", value: "application/json" },
        ":message-type": { type: "string", value: "event" },
    })
);

/**
 * One `chunk` frame, laid out as the codec's `encode` does (prelude, its CRC,
 * headers, payload, message CRC) but with the headers formatted once: a 20k-token
 * answer is 20k frames, and the fake must not be the slow side of a bench.
 */
function chunkFrame(body: Buffer): Uint8Array {
    const length = 12 + CHUNK_HEADERS.length + body.length + 4;
    const frame = Buffer.allocUnsafe(length);
    frame.writeUInt32BE(length, 0);
    frame.writeUInt32BE(CHUNK_HEADERS.length, 4);
    frame.writeUInt32BE(crc32(frame.subarray(0, 8)), 8);
    CHUNK_HEADERS.copy(frame, 12);
    body.copy(frame, 12 + CHUNK_HEADERS.length);
    frame.writeUInt32BE(crc32(frame.subarray(0, length - 4)), length - 4);
    return frame;
}

function exceptionFrame(type: string, message: string | undefined): Uint8Array {
    return CODEC.encode({
        headers: {
            ":exception-type": { type: "string", value: type },
            ":content-type": { type: "string", value: "application/json" },
            ":message-type": { type: "string", value: "exception" },
        },
        body: Buffer.from(JSON.stringify({ message: message ?? "fake exception" })),
    });
}

/** Why Bedrock refuses this model id here, as its ValidationException says, or undefined. */
function modelRefusal(
    modelId: string,
    onDemand: Set<string>,
    profiles: Set<string>,
    region: string
): string | undefined {
    const arn =
        /^arn:aws:bedrock:([^:]+):\d{12}:(?:inference-profile|application-inference-profile)\/(.+)$/.exec(
            modelId
        );
    if (arn)
        return arn[1] === region && profiles.has(arn[2]!)
            ? undefined
            : "The provided model identifier is invalid.";
    if (onDemand.has(modelId) || profiles.has(modelId)) return undefined;
    if (/^anthropic\.claude-/.test(modelId)) {
        return `Invocation of model ID ${modelId} with on-demand throughput isn’t supported. Retry your request with the ID or ARN of an inference profile that contains this model.`;
    }
    return "The provided model identifier is invalid.";
}

function foundationSummary(modelId: string): unknown {
    return {
        modelArn: `arn:aws:bedrock:us-east-1::foundation-model/${modelId}`,
        modelId,
        modelName: modelId.includes("haiku") ? "Claude Haiku 4.5" : "Claude Sonnet 4.5",
        providerName: "Anthropic",
        inputModalities: ["TEXT", "IMAGE"],
        outputModalities: ["TEXT"],
        responseStreamingSupported: true,
        inferenceTypesSupported: ["ON_DEMAND", "INFERENCE_PROFILE"],
        modelLifecycle: { status: "ACTIVE" },
    };
}

function profileSummary(id: string, region: string): unknown {
    const model = id.replace(/^[a-z]+\./, "");
    return {
        inferenceProfileId: id,
        inferenceProfileName: `US ${model}`,
        inferenceProfileArn: `arn:aws:bedrock:${region}:123456789012:inference-profile/${id}`,
        models: [{ modelArn: `arn:aws:bedrock:${region}::foundation-model/${model}` }],
        status: "ACTIVE",
        type: "SYSTEM_DEFINED",
    };
}

/** Bedrock's error shape: the type in `x-amzn-errortype`, the text in `message`. */
function sendError(
    res: ServerResponse,
    status: number,
    type: string,
    message: string,
    headers: Record<string, string> = {}
): void {
    sendJson(
        res,
        status,
        { message },
        {
            "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
            ...headers,
        }
    );
}

function startEventStream(res: ServerResponse): void {
    res.writeHead(200, {
        "content-type": "application/vnd.amazon.eventstream",
        "x-amzn-requestid": randomUUID(),
        "x-amzn-bedrock-content-type": "application/json",
    });
}

/** Writes frames in large batches, honouring backpressure. */
async function writeFrames(res: ServerResponse, frames: Uint8Array[]): Promise<void> {
    let batch: Uint8Array[] = [];
    let size = 0;
    const flush = async (): Promise<void> => {
        if (batch.length === 0 || res.destroyed) return;
        const chunk = Buffer.concat(batch);
        batch = [];
        size = 0;
        await new Promise<void>((resolve) => res.write(chunk, () => resolve()));
    };
    for (const frame of frames) {
        batch.push(frame);
        size += frame.byteLength;
        if (size >= BATCH_BYTES) await flush();
    }
    await flush();
}
