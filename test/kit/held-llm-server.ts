/**
 * A fake Anthropic server whose answers wait until the test releases them,
 * so a test can act while North is busy for exactly as long as it needs:
 *
 *     const held = await startHeldLlmServer();
 *     await held.requested(1);              // North is waiting for its answer
 *     held.release({ text: "Done." });      // now it streams
 *
 * A request the real API would refuse (wire-rules.ts) is answered 400 at once.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { DEFAULT_MODEL_ID } from "../../src/providers/catalogue";
import { encodeReply, errorBody, type FakeErrorTurn, type FakeReplyTurn } from "./fake-llm-wire";
import { anthropicMessagesProblems, type WireProblem, wireProblemMessage } from "./wire-rules";

export interface HeldLlmServer {
    anthropicBaseUrl: string;
    /** JSON bodies of the requests so far, in order. */
    bodies: unknown[];
    /** Resolves once `count` requests have arrived. */
    requested(count: number): Promise<void>;
    /** Answers the oldest request still waiting. */
    release(turn: FakeReplyTurn | FakeErrorTurn): void;
    close(): Promise<void>;
}

export async function startHeldLlmServer(): Promise<HeldLlmServer> {
    const bodies: unknown[] = [];
    const waiting: ServerResponse[] = [];
    const released: Array<FakeReplyTurn | FakeErrorTurn> = [];
    const watchers = new Set<() => void>();
    const sockets = new Set<Socket>();

    const answer = (res: ServerResponse, turn: FakeReplyTurn | FakeErrorTurn): void => {
        if ("error" in turn) {
            res.writeHead(turn.error.status, { "content-type": "application/json" });
            res.end(JSON.stringify(errorBody("anthropic", turn.error)));
            return;
        }
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(encodeReply("anthropic", DEFAULT_MODEL_ID, turn).join(""));
    };

    const server = createServer((req, res) => {
        let raw = "";
        req.setEncoding("utf8");
        req.on("data", (chunk: string) => (raw += chunk));
        req.on("end", () => {
            let body: unknown = raw;
            try {
                body = JSON.parse(raw);
            } catch {
                // kept as text: the rules refuse it
            }
            bodies.push(body);
            // What the real API refuses is answered at once, never held.
            const problems = anthropicMessagesProblems(body);
            const turn = problems.length > 0 ? refusal(problems) : released.shift();
            if (turn) answer(res, turn);
            else waiting.push(res);
            for (const watcher of [...watchers]) watcher();
        });
    });
    server.on("connection", (socket) => {
        sockets.add(socket);
        socket.on("close", () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;

    return {
        anthropicBaseUrl: `http://127.0.0.1:${port}`,
        bodies,
        requested: (count) =>
            new Promise<void>((resolve) => {
                const check = (): void => {
                    if (bodies.length < count) return;
                    watchers.delete(check);
                    resolve();
                };
                watchers.add(check);
                check();
            }),
        release(turn) {
            const res = waiting.shift();
            if (res) answer(res, turn);
            else released.push(turn);
        },
        close: () =>
            new Promise<void>((resolve) => {
                for (const socket of sockets) socket.destroy();
                server.close(() => resolve());
            }),
    };
}

function refusal(problems: WireProblem[]): FakeErrorTurn {
    const message = wireProblemMessage(problems);
    return { error: { status: 400, type: "invalid_request_error", message } };
}
