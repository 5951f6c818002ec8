/** The OpenAI Responses API (SSE) with a key. */
import { startFakeLlmServer } from "../../test/kit/fake-llm-server";
import type { BenchPath } from "../bench-path";

const path: BenchPath = {
    name: "openai",
    async start() {
        const server = await startFakeLlmServer();
        return {
            env: { OPENAI_API_KEY: "sk-bench", OPENAI_BASE_URL: server.openaiBaseUrl },
            // A catalogue model: its output limit (128K) lets the 20,000-token answer through.
            model: "gpt-5.1",
            enqueue: (turn) => server.enqueue(turn),
            close: () => server.close(),
        };
    },
};
export default path;
