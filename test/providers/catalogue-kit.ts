import type { UserProviderEntry } from "../../src/providers/models";

/**
 * The cloud and gateway provider rows A–D add to BUILTIN_PROVIDERS on their
 * branches, as user entries, so routing tests do not wait for them.
 */
export function withCloudProviders(): Record<string, UserProviderEntry> {
    return {
        bedrock: { api: "bedrock", auth: "aws", display: "Amazon Bedrock" },
        vertex: { api: "vertex", auth: "google", display: "Google Vertex AI" },
        foundry: {
            api: "anthropic",
            display: "Microsoft Foundry",
            apiKeyEnv: "ANTHROPIC_FOUNDRY_API_KEY",
            keyHeader: "api-key",
        },
        gemini: { api: "gemini", display: "Gemini API", apiKeyEnv: "GEMINI_API_KEY" },
        openrouter: {
            api: "openai-chat",
            display: "OpenRouter",
            apiKeyEnv: "OPENROUTER_API_KEY",
            baseUrl: "https://openrouter.ai/api/v1",
        },
    };
}
