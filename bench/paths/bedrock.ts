/**
 * The Amazon Bedrock path for the provider benches (bench/providers.ts): a
 * running fake Bedrock (SigV4 checked, event-stream frames) and the env and
 * `--model` that make `north -p` use it with access keys from the environment.
 */

import type { FakeTurn } from "../../test/kit/fake-llm-wire";
import {
    FAKE_AWS_KEY_ID,
    FAKE_AWS_SECRET,
    SONNET_PROFILE_ID,
    startFakeBedrock,
} from "../../test/kit/fake-bedrock";

export default {
    name: "bedrock",
    async start(): Promise<{
        env: Record<string, string>;
        model: string;
        enqueue(turn: FakeTurn): void;
        close(): Promise<void>;
    }> {
        const fake = await startFakeBedrock({ region: "us-east-1" });
        return {
            env: {
                AWS_ACCESS_KEY_ID: FAKE_AWS_KEY_ID,
                AWS_SECRET_ACCESS_KEY: FAKE_AWS_SECRET,
                AWS_REGION: fake.region,
                AWS_ENDPOINT_URL_BEDROCK_RUNTIME: fake.url,
                AWS_ENDPOINT_URL_BEDROCK: fake.url,
                // No instance metadata lookups if the keys were ever missing.
                AWS_EC2_METADATA_DISABLED: "true",
            },
            model: `bedrock:${SONNET_PROFILE_ID}`,
            enqueue: (turn) => fake.enqueue(turn),
            close: () => fake.close(),
        };
    },
};
