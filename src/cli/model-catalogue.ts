/**
 * The catalogue read from the user's settings, for `north models` and shell
 * completion. Apart from model-selection.ts, whose chat launch has its
 * settings already and must not load the full settings check (zod).
 */
import type { ModelCatalogue } from "../providers/models";
import { loadUserConfig } from "../storage/config";
import { catalogueFrom } from "./model-selection";

type Env = Record<string, string | undefined>;

/** Loads the user's settings and builds the catalogue (`north models`). */
export function loadCatalogue(env: Env):
    | {
          ok: true;
          catalogue: ModelCatalogue;
          selectedModel?: string;
          /** The providers the settings configure (`providers.<id>`). */
          configured: ReadonlySet<string>;
          warnings: string[];
      }
    | { ok: false; error: string } {
    const config = loadUserConfig(env);
    if (!config.ok) return { ok: false, error: config.error };
    return {
        ok: true,
        ...catalogueFrom(config.config, env),
        configured: new Set(Object.keys(config.config.providers ?? {})),
        warnings: config.warnings,
    };
}
