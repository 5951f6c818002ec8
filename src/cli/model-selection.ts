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

/** The catalogue from the user's settings as already loaded. */
export function catalogueFrom(config: Settings): {
    catalogue: ModelCatalogue;
    selectedModel?: string;
} {
    return {
        catalogue: buildCatalogue(config.providers, config.models),
        selectedModel: config.selectedModel,
    };
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

/** `--model`, else the saved model, else the default; with a ready endpoint (key present). */
export function resolveModelFromConfig(
    requested: string | undefined,
    env: Env,
    config: Settings
): ModelSelection {
    const { catalogue, selectedModel } = catalogueFrom(config);
    const ready = resolveReadyModel(
        catalogue,
        requested ?? selectedModel ?? catalogue.defaultModelId,
        env
    );
    return ready.ok ? { ...ready, catalogue } : ready;
}
