/**
 * The engine's password requests, answered in the chat: each `secret_request`
 * opens the masked field (the approval bridge's `askSecret`), and what the
 * user typed goes back in the `secret_answer` op only (null: declined). The
 * text passes through here and nowhere else: no transcript action, no record,
 * no notice carries it.
 */
import type { EngineHostPort } from "../agent/protocol";
import type { ApprovalBridge } from "./approval-bridge";

export function answerSecretRequests(
    host: Pick<EngineHostPort, "submit" | "subscribe">,
    bridge: Pick<ApprovalBridge, "askSecret">,
    warn: (text: string) => void
): () => void {
    return host.subscribe((event) => {
        if (event.type !== "secret_request") return;
        const { requestId, process, prompt } = event;
        void bridge
            .askSecret(process, prompt)
            .then((secret) => host.submit({ type: "secret_answer", requestId, secret }))
            .then(
                (reply) => {
                    if (!reply.ok) warn(`the password did not reach ${process.id}: ${reply.error}`);
                },
                (error: unknown) =>
                    warn(`the password did not reach ${process.id}: ${(error as Error).message}`)
            );
    });
}
