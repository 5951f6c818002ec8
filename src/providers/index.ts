/**
 * Provider entry point. Each API's module (and its SDK) is imported only when
 * a provider is created, so commands that never call a model stay fast.
 */

import type { Provider, ProviderEndpoint } from "./types";

export type * from "./types";
export { EMPTY_USAGE } from "./types";

export async function createProvider(given: ProviderEndpoint): Promise<Provider> {
    let endpoint = given;
    // Azure hosts (a key variable, else Entra ID tokens) serve any API: Azure OpenAI, Foundry.
    if (endpoint.auth === "azure") {
        const { azureEndpoint } = await import("./azure-endpoint");
        endpoint = azureEndpoint(endpoint);
    }
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
        case "bedrock": {
            const { createBedrockProvider } = await import("./bedrock/bedrock-provider");
            return createBedrockProvider(endpoint);
        }
        case "vertex": {
            const { createVertexProvider } = await import("./vertex/index");
            return createVertexProvider(endpoint);
        }
        case "gemini": {
            const { createGeminiProvider } = await import("./gemini");
            return createGeminiProvider(endpoint);
        }
    }
}
