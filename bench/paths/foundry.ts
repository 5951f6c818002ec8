/**
 * Microsoft Foundry's Anthropic endpoint (`x-api-key`) for the provider bench:
 * the fake resource, and the env and `--model` that send `north -p` to it.
 */

import type { FakeTurn } from "../../test/kit/fake-llm-wire";
import { startFakeAzure } from "../../test/kit/fake-azure";

const KEY = "bench-foundry-key";
const DEPLOYMENT = "claude-sonnet-4-5";

export default {
    name: "foundry",
    async start() {
        const foundry = await startFakeAzure({ apiKey: KEY, deployments: [DEPLOYMENT] });
        return {
            env: {
                ANTHROPIC_FOUNDRY_BASE_URL: foundry.foundryBaseUrl,
                ANTHROPIC_FOUNDRY_API_KEY: KEY,
            },
            model: `foundry:${DEPLOYMENT}`,
            enqueue: (turn: FakeTurn) => foundry.enqueue(turn),
            close: () => foundry.close(),
        };
    },
};
