/**
 * The wire protocols North speaks, defined once: `providers/` implements one
 * file per entry and the settings schema (`storage/`) accepts exactly these.
 */
export const PROVIDER_APIS = [
    "anthropic",
    "openai-responses",
    "openai-chat",
    /** Amazon Bedrock: Claude through InvokeModelWithResponseStream (SigV4 or a Bedrock API key). */
    "bedrock",
    /** Google Vertex AI: Claude through streamRawPredict, Gemini through streamGenerateContent. */
    "vertex",
    /** Gemini's own API (generateContent streaming). */
    "gemini",
] as const;

/** How a provider authenticates (see `ProviderAuth` in providers/types.ts). */
export const PROVIDER_AUTHS = ["key", "aws", "google", "azure"] as const;

export type ProviderApi = (typeof PROVIDER_APIS)[number];
