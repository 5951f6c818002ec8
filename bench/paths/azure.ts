/**
 * Azure OpenAI (Responses API on a deployment, `api-key`) for the provider
 * bench: the fake resource, and the env and `--model` that send `north -p` to it.
 */

import type { FakeTurn } from "../../test/kit/fake-llm-wire";
import { startFakeAzure } from "../../test/kit/fake-azure";

const KEY = "bench-azure-key";
// Named after its model, as deployments often are: North then knows its output limit (an
// unknown model gets 8,192 tokens, fewer than the 20,000-token answer).
const DEPLOYMENT = "gpt-5.1";

export default {
    name: "azure",
    async start() {
        const azure = await startFakeAzure({ apiKey: KEY, deployments: [DEPLOYMENT] });
        return {
            env: { AZURE_OPENAI_ENDPOINT: azure.url, AZURE_OPENAI_API_KEY: KEY },
            model: `azure:${DEPLOYMENT}`,
            enqueue: (turn: FakeTurn) => azure.enqueue(turn),
            close: () => azure.close(),
        };
    },
};
