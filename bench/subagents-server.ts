/**
 * The instant fake server of the subagents bench in a process of its own, so
 * serving turns does not take the thread of the engine being measured.
 * Started with `fork`; answers the bench over IPC.
 */
import { startFakeLlmServer } from "../test/kit/fake-llm-server";
import { SUBAGENT_SCRIPTS, type ServerReply, type ServerRequest } from "./subagents-scripts";

const server = await startFakeLlmServer();
const reply = (message: ServerReply): void => {
    process.send?.(message);
};
process.on("message", (message: ServerRequest) => {
    if ("enqueue" in message) {
        // Recorded bodies are not needed here and would pile up over the runs.
        server.requests.length = 0;
        server.enqueue(...SUBAGENT_SCRIPTS[message.enqueue]());
        reply({ id: message.id, remaining: server.remaining() });
    } else reply({ id: message.id, remaining: server.remaining() });
});
process.on("disconnect", () => {
    void server.close().then(() => process.exit(0));
});
reply({ ready: server.anthropicBaseUrl });
