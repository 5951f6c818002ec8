/**
 * Gemini's own API (generativelanguage.googleapis.com): `streamGenerateContent`
 * with `alt=sse` and the key in `x-goog-api-key`. The wire is gemini-wire.ts,
 * shared with Vertex AI; errors are Google's (gemini-errors.ts).
 */

import { classifyGoogleError, googleApiErrors } from "./gemini-errors";
import { type GeminiRequestBody, streamGeminiContent } from "./gemini-wire";
import { type GetSpec, getJson, requestUrl } from "./probe-get";
import { requestTimeoutMs, streamingPoster } from "./streaming-post";
import type { ListedModel, ProbeResult, Provider, ProviderEndpoint } from "./types";

const LABEL = "Gemini API";
export const GEMINI_DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com";
const API_VERSION_PATH = "/v1beta";
/** The largest page the list call serves. */
const MODELS_PAGE_SIZE = 1000;

export function createGeminiProvider(endpoint: ProviderEndpoint): Provider {
    const headers = { accept: "text/event-stream", "x-goog-api-key": endpoint.apiKey };
    const classify = (error: unknown, signal: AbortSignal) =>
        classifyGoogleError(error, LABEL, signal);
    const models = new GeminiModelList(endpoint);
    return {
        api: "gemini",
        stream: (request, signal) => {
            const send = streamingPoster<GeminiRequestBody>({
                endpoint,
                defaultBaseUrl: GEMINI_DEFAULT_BASE_URL,
                path: `${API_VERSION_PATH}/${modelPath(request.apiModelId)}:streamGenerateContent`,
                query: { alt: "sse" },
                headers,
                logEnv: "GEMINI_LOG",
                errors: async () => googleApiErrors,
            });
            return streamGeminiContent({ label: LABEL, send, classify }, request, signal);
        },
        listModels: (signal) => models.list(signal),
        probe: (signal) => models.probe(signal),
    };
}

/** `models/{id}`, whether or not the id already names the collection. */
function modelPath(modelId: string): string {
    const id = modelId.startsWith("models/") ? modelId.slice("models/".length) : modelId;
    return `models/${encodeURIComponent(id)}`;
}

/** One entry of `GET /v1beta/models`. */
interface GeminiModel {
    name: string;
    displayName?: string;
    inputTokenLimit?: number;
    outputTokenLimit?: number;
    supportedGenerationMethods?: string[];
    thinking?: boolean;
}

interface GeminiModelPage {
    models?: GeminiModel[];
    nextPageToken?: string;
}

/** The models endpoint: `north models --refresh` and `north doctor` (no prompt sent). */
class GeminiModelList {
    constructor(private readonly endpoint: ProviderEndpoint) {}

    /** Every model that generates content, over all pages. */
    async list(signal: AbortSignal): Promise<ListedModel[]> {
        const listed: ListedModel[] = [];
        let pageToken: string | undefined;
        do {
            const page = await this.page(pageToken, MODELS_PAGE_SIZE, signal);
            for (const model of page.models ?? []) {
                const methods = model.supportedGenerationMethods ?? [];
                if (!methods.includes("generateContent")) continue;
                const entry: ListedModel = { id: model.name.replace(/^models\//, "") };
                if (model.displayName) entry.display = model.displayName;
                if (model.inputTokenLimit) entry.contextLimitTokens = model.inputTokenLimit;
                if (model.outputTokenLimit) entry.maxOutputTokens = model.outputTokenLimit;
                listed.push(entry);
            }
            pageToken = page.nextPageToken || undefined;
        } while (pageToken);
        return listed;
    }

    async probe(signal: AbortSignal): Promise<ProbeResult> {
        const url = requestUrl(this.spec(undefined, 1));
        try {
            await this.page(undefined, 1, signal);
            return { ok: true, detail: `API key accepted by ${url.origin}` };
        } catch (error) {
            return { ok: false, detail: error instanceof Error ? error.message : String(error) };
        }
    }

    private query(pageToken: string | undefined, pageSize: number): Record<string, string> {
        const query: Record<string, string> = { pageSize: String(pageSize) };
        if (pageToken) query.pageToken = pageToken;
        return query;
    }

    private spec(pageToken: string | undefined, pageSize: number): GetSpec {
        return {
            endpoint: this.endpoint,
            defaultBaseUrl: GEMINI_DEFAULT_BASE_URL,
            path: `${API_VERSION_PATH}/models`,
            query: this.query(pageToken, pageSize),
            headers: { "x-goog-api-key": this.endpoint.apiKey },
        };
    }

    /** One page; a failure rejects with the classified message ("Gemini API 403: …"). */
    private async page(
        pageToken: string | undefined,
        pageSize: number,
        signal: AbortSignal
    ): Promise<GeminiModelPage> {
        const timeout = AbortSignal.timeout(requestTimeoutMs(this.endpoint));
        let failure: unknown;
        try {
            const answer = await getJson(
                this.spec(pageToken, pageSize),
                AbortSignal.any([signal, timeout])
            );
            const { status, body } = answer;
            if (status >= 200 && status < 300 && body !== undefined) return body as GeminiModelPage;
            failure = googleApiErrors.status(
                status,
                typeof body === "object" && body !== null ? body : undefined,
                answer.text,
                answer.headers
            );
        } catch (error) {
            failure = timeout.aborted
                ? googleApiErrors.timedOut()
                : error instanceof Error && error.name !== "AbortError"
                  ? googleApiErrors.connection(error)
                  : error;
        }
        throw new Error(classifyGoogleError(failure, LABEL, signal).message);
    }
}
