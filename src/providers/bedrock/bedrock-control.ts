/**
 * Bedrock's control plane (`bedrock.{region}.amazonaws.com`), signed like the
 * runtime: the Claude models and inference profiles an account can call
 * (`north models --refresh`) and a cheap signed request for `north doctor`.
 */

import { sendNodeRequest } from "../node-fetch";
import type { ListedModel, ProviderError, RequestSigner } from "../types";
import { BEDROCK_POST_ERRORS } from "./bedrock-errors";

export interface ControlPlane {
    baseUrl: string;
    signer: RequestSigner;
    classify: (error: unknown) => Promise<ProviderError>;
    timeoutMs: number;
}

interface FoundationModelSummary {
    modelId?: string;
    modelName?: string;
    providerName?: string;
    responseStreamingSupported?: boolean;
    inferenceTypesSupported?: string[];
    modelLifecycle?: { status?: string };
}

interface InferenceProfileSummary {
    inferenceProfileId?: string;
    inferenceProfileName?: string;
    status?: string;
    models?: Array<{ modelArn?: string }>;
}

/** A failed control-plane request, its message already classified and hinted. */
export class ControlPlaneError extends Error {
    override name = "ControlPlaneError";
}

/**
 * The Anthropic models callable on demand and the inference profiles that
 * route to them (InvokeModel's Messages body is Claude's only).
 */
export async function listBedrockModels(
    plane: ControlPlane,
    signal: AbortSignal
): Promise<ListedModel[]> {
    const listed: ListedModel[] = [];
    const foundation = (await getJson(
        plane,
        "/foundation-models?byProvider=anthropic",
        signal
    )) as {
        modelSummaries?: FoundationModelSummary[];
    };
    for (const model of foundation.modelSummaries ?? []) {
        if (!model.modelId || model.responseStreamingSupported === false) continue;
        if (model.modelLifecycle?.status === "LEGACY") continue;
        if (model.inferenceTypesSupported && !model.inferenceTypesSupported.includes("ON_DEMAND"))
            continue;
        listed.push({ id: model.modelId, display: model.modelName ?? model.modelId });
    }
    let nextToken: string | undefined;
    do {
        const query = `/inference-profiles?maxResults=1000${nextToken ? `&nextToken=${encodeURIComponent(nextToken)}` : ""}`;
        const page = (await getJson(plane, query, signal)) as {
            inferenceProfileSummaries?: InferenceProfileSummary[];
            nextToken?: string;
        };
        for (const profile of page.inferenceProfileSummaries ?? []) {
            const id = profile.inferenceProfileId;
            if (!id || profile.status === "INACTIVE") continue;
            if (!profile.models?.some((m) => m.modelArn?.includes("/anthropic."))) continue;
            listed.push({ id, display: profile.inferenceProfileName ?? id });
        }
        nextToken = page.nextToken || undefined;
    } while (nextToken);
    return listed;
}

/** How many Claude models the account sees, from one signed request. */
export async function countClaudeModels(plane: ControlPlane, signal: AbortSignal): Promise<number> {
    const body = (await getJson(plane, "/foundation-models?byProvider=anthropic", signal)) as {
        modelSummaries?: unknown[];
    };
    return body.modelSummaries?.length ?? 0;
}

async function getJson(
    plane: ControlPlane,
    pathAndQuery: string,
    signal: AbortSignal
): Promise<unknown> {
    const url = new URL(plane.baseUrl + pathAndQuery);
    const headers: Record<string, string> = { accept: "application/json" };
    const timeout = AbortSignal.timeout(plane.timeoutMs);
    const both = AbortSignal.any([signal, timeout]);
    try {
        await plane.signer.sign({ method: "GET", url, headers, body: Buffer.alloc(0) }, both);
        const res = await sendNodeRequest(url, {
            method: "GET",
            headers,
            body: null,
            signal: both,
        });
        const chunks: Buffer[] = [];
        for await (const chunk of res as AsyncIterable<Buffer>) chunks.push(chunk);
        const text = Buffer.concat(chunks).toString("utf8");
        const status = res.statusCode ?? 500;
        const parsed = parseJson(text);
        if (status >= 200 && status < 300) return parsed ?? {};
        const responseHeaders = new Headers();
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
            responseHeaders.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
        }
        throw BEDROCK_POST_ERRORS.status(
            status,
            parsed,
            parsed ? undefined : text,
            responseHeaders
        );
    } catch (error) {
        const failure = timeout.aborted && !signal.aborted ? BEDROCK_POST_ERRORS.timedOut() : error;
        throw new ControlPlaneError((await plane.classify(failure)).message, { cause: error });
    }
}

function parseJson(text: string): object | undefined {
    try {
        const parsed: unknown = JSON.parse(text);
        return parsed !== null && typeof parsed === "object" ? parsed : undefined;
    } catch {
        return undefined;
    }
}
