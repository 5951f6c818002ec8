/**
 * The models Anthropic's API lists (`north models --refresh`): every page of
 * `GET /v1/models`, through the same GET as the doctor's probe (probe-get.ts).
 */
import { type GetSpec, errorMessageOf, getJson } from "./probe-get";
import type { ListedModel } from "./types";

/** A list this long is a server looping on its cursor, not a catalogue. */
const MAX_PAGES = 50;

interface AnthropicModelPage {
    data?: Array<{ id?: unknown; display_name?: unknown }>;
    has_more?: unknown;
    last_id?: unknown;
}

/** Every page (`after_id` cursor); `spec` is the provider's GET of `/v1/models`. */
export async function listAnthropicModels(
    spec: GetSpec,
    signal: AbortSignal
): Promise<ListedModel[]> {
    const models: ListedModel[] = [];
    let after: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
        const query: Record<string, string> = { ...spec.query, limit: "1000" };
        if (after) query.after_id = after;
        const answer = await getJson({ ...spec, query }, signal);
        const { url, status } = answer;
        if (status < 200 || status >= 300) {
            throw new Error(
                `HTTP ${status} from ${url.origin}${url.pathname}: ${errorMessageOf(answer)}`
            );
        }
        const body = answer.body as AnthropicModelPage | undefined;
        if (!body || !Array.isArray(body.data)) {
            throw new Error(`${url.origin}${url.pathname} answered no model list`);
        }
        for (const m of body.data) {
            if (typeof m.id !== "string") continue;
            models.push({
                id: m.id,
                ...(typeof m.display_name === "string" ? { display: m.display_name } : {}),
            });
        }
        if (body.has_more !== true || typeof body.last_id !== "string") return models;
        after = body.last_id;
    }
    throw new Error(`the model list did not end after ${MAX_PAGES} pages`);
}
