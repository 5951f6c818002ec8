/** The reference path: the Anthropic Messages API (SSE) with a key. */
import { startFakeLlmServer } from "../../test/kit/fake-llm-server";
import type { BenchPath } from "../bench-path";

const path: BenchPath = {
    name: "anthropic",
    async start() {
        const server = await startFakeLlmServer();
        return {
            env: { ANTHROPIC_API_KEY: "bench-key", ANTHROPIC_BASE_URL: server.anthropicBaseUrl },
            // A catalogue model: its output limit (64K) lets the 20,000-token answer through.
            model: "claude-sonnet-4-5-20250929",
            enqueue: (turn) => server.enqueue(turn),
            close: () => server.close(),
        };
    },
};
export default path;
