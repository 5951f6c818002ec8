/**
 * `north models --refresh`: asks every configured provider that lists its
 * models (a cloud provider only when in use), in parallel and each within a time limit; a failing provider is
 * reported on its line and the others still answer. The lists are saved for
 * completion and `/model`.
 */
import { type ProviderInfo, formatCost } from "../providers/catalogue";
import { claudeCloudSwitch, isSwitchOn } from "../providers/cloud-model-ids";
import { createProvider } from "../providers/index";
import { type ModelCatalogue, catalogueEntryFor, resolveEndpoint } from "../providers/models";
import type { ListedModel } from "../providers/types";
import {
    type ListedModelsCache,
    listedModelsPath,
    saveListedModels,
} from "../storage/listed-models";

type Env = Record<string, string | undefined>;

/** One provider's answer within this long, or it is reported as timed out. */
export const LIST_TIME_LIMIT_MS = 20_000;

type ProviderAnswer =
    | { provider: string; models: ListedModel[] }
    | { provider: string; error: string }
    | { provider: string; skipped: string };

/**
 * Why a cloud provider (credentials from the cloud's own chain, no key
 * variable to tell) is not asked: it is asked only when the settings
 * configure it, the model in use is its, or Claude Code's switch for it is on.
 */
function notInUse(info: ProviderInfo, inUse: ReadonlySet<string>, env: Env): string | undefined {
    if ((info.auth ?? "key") === "key" || inUse.has(info.id)) return undefined;
    const variable = claudeCloudSwitch(info.id);
    if (variable !== undefined && isSwitchOn(env[variable])) return undefined;
    const how = variable ? ` or set ${variable}=1` : "";
    return `not in use: configure providers.${info.id}${how}`;
}

async function askProvider(
    catalogue: ModelCatalogue,
    id: string,
    env: Env,
    timeLimitMs: number,
    inUse: ReadonlySet<string>
): Promise<ProviderAnswer> {
    const info = catalogue.providers.get(id)!;
    const unused = notInUse(info, inUse, env);
    if (unused) return { provider: id, skipped: unused };
    const endpoint = resolveEndpoint(info, env);
    if (!endpoint.ok) return { provider: id, skipped: endpoint.error };
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeLimitMs);
    try {
        const provider = await createProvider(endpoint.endpoint);
        if (!provider.listModels)
            return { provider: id, skipped: `${id}: does not list its models` };
        const models = await provider.listModels(controller.signal);
        return { provider: id, models };
    } catch (error) {
        const message = controller.signal.aborted
            ? `no answer within ${timeLimitMs >= 1000 ? `${Math.round(timeLimitMs / 1000)} s` : `${timeLimitMs} ms`}`
            : describe(error);
        return { provider: id, error: message };
    } finally {
        clearTimeout(timer);
    }
}

function describe(error: unknown): string {
    const err = error as Error & { cause?: { code?: string; message?: string } };
    const cause = err.cause?.code ?? err.cause?.message;
    return cause ? `${err.message} (${cause})` : err.message;
}

function priceOf(catalogue: ModelCatalogue, model: ListedModel): string {
    const known = catalogueEntryFor(catalogue, model.id);
    const pricing = known?.pricing ?? model.pricing;
    if (known)
        return `in catalogue${pricing ? `, ${formatCost(pricing.input)}/${formatCost(pricing.output)} per 1M` : ""}`;
    if (pricing)
        return `${formatCost(pricing.input)}/${formatCost(pricing.output)} per 1M (listed)`;
    return "price unknown ($?)";
}

/**
 * Asks, prints, saves; 0 when every provider asked answered, 1 when one
 * failed. `inUse`: the providers configured or serving the model in use.
 */
export async function refreshListedModels(
    catalogue: ModelCatalogue,
    env: Env,
    write: (text: string) => void,
    timeLimitMs = LIST_TIME_LIMIT_MS,
    inUse: ReadonlySet<string> = new Set()
): Promise<number> {
    const answers = await Promise.all(
        [...catalogue.providers.keys()].map((id) =>
            askProvider(catalogue, id, env, timeLimitMs, inUse)
        )
    );
    const cache: ListedModelsCache = { refreshedAt: new Date().toISOString(), providers: {} };
    const lines: string[] = [];
    for (const answer of answers) {
        if ("skipped" in answer) {
            lines.push(`${answer.provider}: skipped (${answer.skipped})`);
        } else if ("error" in answer) {
            lines.push(`${answer.provider}: failed: ${answer.error}`);
            cache.providers[answer.provider] = { error: answer.error };
        } else {
            lines.push(`${answer.provider}: ${answer.models.length} models`);
            const width = Math.max(0, ...answer.models.map((m) => m.id.length));
            for (const m of answer.models) {
                lines.push(`  ${m.id.padEnd(width)}  ${priceOf(catalogue, m)}`);
            }
            cache.providers[answer.provider] = { models: answer.models };
        }
    }
    const asked = answers.filter((a) => !("skipped" in a));
    if (asked.length === 0) {
        write(`${lines.join("\n")}\nno provider is ready to list its models\n`);
        return 1;
    }
    try {
        saveListedModels(cache, env);
        lines.push(`saved to ${listedModelsPath(env)}; use a listed model as --model provider:id`);
    } catch (error) {
        lines.push(`could not save the list: ${(error as Error).message}`);
    }
    write(`${lines.join("\n")}\n`);
    return asked.some((a) => "error" in a) ? 1 : 0;
}
