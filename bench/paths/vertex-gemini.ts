/**
 * Gemini on Vertex AI for bench/providers.ts: the fake token endpoint and
 * fake Vertex AI (test/kit/fake-google-cloud.ts: JWT grant verified, bearer
 * token, URL and generateContent rules checked) and the env and `--model`
 * that make `north -p` stream from them.
 */
import { startFakeGoogleCloud } from "../../test/kit/fake-google-cloud";
import type { FakeTurn } from "../../test/kit/fake-llm-wire";

const MODEL = "gemini-3.8-flash";

export default {
    name: "vertex-gemini",
    async start() {
        const cloud = await startFakeGoogleCloud({ global: [MODEL] });
        return {
            env: cloud.env,
            model: `vertex:${MODEL}`,
            enqueue: (turn: FakeTurn) => cloud.enqueue(turn),
            close: () => cloud.close(),
        };
    },
};
