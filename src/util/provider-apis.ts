/**
 * The wire protocols North speaks, defined once: `providers/` implements one
 * file per entry and the settings schema (`storage/`) accepts exactly these.
 */
export const PROVIDER_APIS = ["anthropic", "openai-responses", "openai-chat"] as const;

export type ProviderApi = (typeof PROVIDER_APIS)[number];
