/**
 * Bedrock's control plane (`bedrock.{region}.amazonaws.com`), signed like the
 * runtime: the Claude models and inference profiles an account can call
 * (`north models --refresh`) and a cheap signed request for `north doctor`.
 */

import { getJson } from "../probe-get";
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
    const foundation = (await getControlPlane(
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
        const page = (await getControlPlane(plane, query, signal)) as {
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
    const body = (await getControlPlane(
        plane,
        "/foundation-models?byProvider=anthropic",
        signal
    )) as {
        modelSummaries?: unknown[];
    };
    return body.modelSummaries?.length ?? 0;
}

async function getControlPlane(
    plane: ControlPlane,
    pathAndQuery: string,
    signal: AbortSignal
): Promise<unknown> {
    const [path, search] = pathAndQuery.split("?") as [string, string | undefined];
    const timeout = AbortSignal.timeout(plane.timeoutMs);
    try {
        const answer = await getJson(
            {
                // The control plane is signed like the runtime; it takes no key of its own.
                endpoint: { api: "bedrock", apiKey: "", signer: plane.signer },
                defaultBaseUrl: plane.baseUrl,
                path,
                query: Object.fromEntries(new URLSearchParams(search ?? "")),
                headers: {},
            },
            AbortSignal.any([signal, timeout])
        );
        const { status, body } = answer;
        const parsed = typeof body === "object" && body !== null ? body : undefined;
        if (status >= 200 && status < 300) return parsed ?? {};
        throw BEDROCK_POST_ERRORS.status(
            status,
            parsed,
            parsed ? undefined : answer.text,
            answer.headers
        );
    } catch (error) {
        const failure = timeout.aborted && !signal.aborted ? BEDROCK_POST_ERRORS.timedOut() : error;
        throw new ControlPlaneError((await plane.classify(failure)).message, { cause: error });
    }
}
