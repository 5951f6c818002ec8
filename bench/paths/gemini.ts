/**
 * The Gemini API path for bench/providers.ts: the fake Gemini API
 * (test/kit/fake-gemini.ts, every body rule checked) and the env and
 * `--model` that make `north -p` stream from it.
 */
import { FAKE_GEMINI_KEY, startFakeGemini } from "../../test/kit/fake-gemini";
import type { FakeTurn } from "../../test/kit/fake-llm-wire";

export default {
    name: "gemini",
    async start() {
        const fake = await startFakeGemini();
        return {
            env: { GEMINI_API_KEY: FAKE_GEMINI_KEY, GOOGLE_GEMINI_BASE_URL: fake.url },
            model: "gemini:gemini-3.8-flash",
            enqueue: (turn: FakeTurn) => fake.enqueue(turn),
            close: () => fake.close(),
        };
    },
};
