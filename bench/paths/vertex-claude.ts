/**
 * Claude on Vertex AI for bench/providers.ts: the fake token endpoint and
 * fake Vertex AI (test/kit/fake-google-cloud.ts: JWT grant verified, bearer
 * token, URL and Messages rules checked) and the env and `--model` that
 * make `north -p` stream from them.
 */
import { startFakeGoogleCloud } from "../../test/kit/fake-google-cloud";
import type { FakeTurn } from "../../test/kit/fake-llm-wire";

const MODEL = "claude-sonnet-4-5@20250929";

export default {
    name: "vertex-claude",
    async start() {
        const cloud = await startFakeGoogleCloud({ "us-east5": [MODEL] });
        return {
            env: cloud.env,
            model: `vertex:${MODEL}`,
            enqueue: (turn: FakeTurn) => cloud.enqueue(turn),
            close: () => cloud.close(),
        };
    },
};
