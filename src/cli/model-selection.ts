import type { ModelInfo, ProviderInfo } from "../providers/catalogue";
import {
    buildCatalogue,
    resolveEndpoint,
    resolveModel,
    type ModelCatalogue,
} from "../providers/models";
import type { ProviderEndpoint } from "../providers/types";
import { loadUserConfig } from "../storage/config";

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

export function loadCatalogue(
    env: Env
): { ok: true; catalogue: ModelCatalogue; selectedModel?: string } | { ok: false; error: string } {
    const config = loadUserConfig(env);
    if (!config.ok) return { ok: false, error: config.error };
    return {
        ok: true,
        catalogue: buildCatalogue(config.config.providers, config.config.models),
        selectedModel: config.config.selectedModel,
    };
}

/** `--model`, else the saved model, else the default; with a ready endpoint (key present). */
export function resolveModelFromConfig(requested: string | undefined, env: Env): ModelSelection {
    const loaded = loadCatalogue(env);
    if (!loaded.ok) return loaded;
    const { catalogue } = loaded;
    const name = requested ?? loaded.selectedModel ?? catalogue.defaultModelId;
    const resolution = resolveModel(catalogue, name);
    if (!resolution.ok) return resolution;
    const endpoint = resolveEndpoint(resolution.provider, env);
    if (!endpoint.ok) return endpoint;
    return {
        ok: true,
        model: resolution.model,
        provider: resolution.provider,
        endpoint: endpoint.endpoint,
        catalogue,
    };
}
