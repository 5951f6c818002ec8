/**
 * Provider entry point. Each API's module (and its SDK) is imported only when
 * a provider is created, so commands that never call a model stay fast.
 */

import type { Provider, ProviderEndpoint } from "./types";

export type * from "./types";
export { EMPTY_USAGE } from "./types";

export async function createProvider(endpoint: ProviderEndpoint): Promise<Provider> {
    switch (endpoint.api) {
        case "anthropic": {
            const { createAnthropicProvider } = await import("./anthropic");
            return createAnthropicProvider(endpoint);
        }
        case "openai-responses": {
            const { createOpenAIResponsesProvider } = await import("./openai-responses");
            return createOpenAIResponsesProvider(endpoint);
        }
        case "openai-chat": {
            const { createOpenAIChatProvider } = await import("./openai-chat");
            return createOpenAIChatProvider(endpoint);
        }
        // Each cloud's module (and its libraries) loads here, never on the launch path.
        case "gemini": {
            const { createGeminiProvider } = await import("./gemini");
            return createGeminiProvider(endpoint);
        }
        case "bedrock":
        case "vertex":
            throw new Error(`the ${endpoint.api} provider is not built yet`);
    }
}
