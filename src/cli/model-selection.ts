import type { ModelInfo, ProviderInfo } from "../providers/catalogue";
import {
    buildCatalogue,
    resolveEndpoint,
    resolveModel,
    type ModelCatalogue,
} from "../providers/models";
import type { ProviderEndpoint } from "../providers/types";
import type { Settings } from "../storage/settings/schema";

type Env = Record<string, string | undefined>;

export type ModelSelection =
    | {
          ok: true;
          model: ModelInfo;
          provider: ProviderInfo;
          endpoint: ProviderEndpoint;
          catalogue: ModelCatalogue;
      }
    | { ok: false; error: string };

/**
 * The catalogue from the user's settings as already loaded, for this
 * environment (Claude Code's cloud switches, the first ready provider's default).
 */
export function catalogueFrom(
    config: Settings,
    env: Env = process.env
): {
    catalogue: ModelCatalogue;
    selectedModel?: string;
} {
    return {
        catalogue: buildCatalogue(config.providers, config.models, {
            env,
            smallFastModel: config.smallFastModel,
        }),
        selectedModel: config.selectedModel,
    };
}

/**
 * The catalogue's models and, after them, those the providers listed at the
 * last `north models --refresh` (`provider:id`, the catalogue's figures when
 * it knows the model), for `/model` to offer.
 */
export function withListedModels(
    catalogue: ModelCatalogue,
    listedNames: readonly string[]
): ModelInfo[] {
    const known = new Set(catalogue.models.flatMap((m) => [m.alias, m.id]));
    const listed = listedNames.flatMap((name) => {
        if (known.has(name)) return [];
        const found = resolveModel(catalogue, name);
        return found.ok ? [found.model] : [];
    });
    return [...catalogue.models, ...listed];
}

/** A model by name with a ready endpoint (its key present), or why not. */
export function resolveReadyModel(
    catalogue: ModelCatalogue,
    name: string,
    env: Env
):
    | { ok: true; model: ModelInfo; provider: ProviderInfo; endpoint: ProviderEndpoint }
    | { ok: false; error: string } {
    const resolution = resolveModel(catalogue, name);
    if (!resolution.ok) return resolution;
    const endpoint = resolveEndpoint(resolution.provider, env);
    if (!endpoint.ok) return endpoint;
    return {
        ok: true,
        model: resolution.model,
        provider: resolution.provider,
        endpoint: endpoint.endpoint,
    };
}

/**
 * The small fast model for side jobs (summaries, learning) with a ready
 * endpoint, or undefined: they then use the session's model.
 */
export function resolveSmallFastModel(
    catalogue: ModelCatalogue,
    env: Env
): { model?: ModelInfo; warning?: string } {
    const name = catalogue.smallFastModelId;
    if (!name) return {};
    const ready = resolveReadyModel(catalogue, name, env);
    if (!ready.ok) {
        return { warning: `smallFastModel: ${ready.error}; side jobs use the session's model` };
    }
    return { model: ready.model };
}

/** `--model`, else the saved model, else the default; with a ready endpoint (key present). */
export function resolveModelFromConfig(
    requested: string | undefined,
    env: Env,
    config: Settings
): ModelSelection {
    const { catalogue, selectedModel } = catalogueFrom(config, env);
    const ready = resolveReadyModel(
        catalogue,
        requested ?? selectedModel ?? catalogue.defaultModelId,
        env
    );
    return ready.ok ? { ...ready, catalogue } : ready;
}
