/**
 * Password prompts over `--input-format stream-json`. A program that drives
 * North this way has its own user interface, so it can ask its user in a
 * masked field: North writes a `secret_request` line and reads the answer
 * from a `secret_response` line. The password goes to the process only
 * (the host's `secret_answer` op): North never writes it to stdout, stderr,
 * its log or the conversation, and an error about the line never quotes it.
 * When stdin closes, waiting and later prompts are declined.
 */
import type { EngineHostPort } from "../agent/protocol";
import { secretRequestLine } from "./print-processes";

export interface MessageSecrets {
    /** Sends the answer to a waiting request's process; else says why not. */
    answer(id: string, secret: string | null): Promise<{ ok: true } | { ok: false; error: string }>;
    /** Nobody can answer any more (stdin closed): waiting and later requests are declined. */
    close(): void;
}

export function createMessageSecrets(
    host: EngineHostPort,
    emit: (line: Record<string, unknown>) => void
): MessageSecrets {
    const waiting = new Set<string>();
    let closed = false;
    const decline = (id: string) =>
        host.submit({ type: "secret_answer", requestId: id, secret: null });
    host.subscribe((event) => {
        if (event.type !== "secret_request") return;
        if (closed) {
            void decline(event.requestId);
            return;
        }
        waiting.add(event.requestId);
        emit(secretRequestLine(event));
    });
    return {
        async answer(id, secret) {
            if (!waiting.has(id)) {
                return { ok: false, error: `no password request is waiting with id "${id}"` };
            }
            waiting.delete(id);
            return host.submit({ type: "secret_answer", requestId: id, secret });
        },
        close() {
            closed = true;
            for (const id of waiting) void decline(id);
            waiting.clear();
        },
    };
}
