/**
 * The plumbing the tests' fake HTTP services share: a server on 127.0.0.1 at
 * a free port whose close ends kept-alive connections too (a client's idle
 * socket would otherwise hold `server.close` open), a request's whole body,
 * and a JSON answer with its length.
 */
import {
    type IncomingMessage,
    type RequestListener,
    type ServerResponse,
    createServer,
} from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface LocalHttpServer {
    /** http://127.0.0.1:PORT */
    url: string;
    port: number;
    /** Stops listening and ends every open connection. */
    close(): Promise<void>;
}

/** Serves `handler` on 127.0.0.1 at a port the system picks. */
export async function listenLocal(handler: RequestListener): Promise<LocalHttpServer> {
    const server = createServer(handler);
    const sockets = new Set<Socket>();
    server.on("connection", (socket: Socket) => {
        sockets.add(socket);
        socket.on("close", () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return {
        url: `http://127.0.0.1:${port}`,
        port,
        close: () =>
            new Promise<void>((resolve) => {
                for (const socket of sockets) socket.destroy();
                server.close(() => resolve());
            }),
    };
}

/** The request's whole body. */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    return Buffer.concat(chunks);
}

/** The request's whole body as UTF-8 text. */
export async function readBodyText(req: IncomingMessage): Promise<string> {
    return (await readBody(req)).toString("utf8");
}

/** A JSON answer with its length; `headers` may name another content-type. */
export function sendJson(
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {}
): void {
    const payload = JSON.stringify(body);
    res.writeHead(status, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(payload),
        ...headers,
    });
    res.end(payload);
}

/** A JSON answer naming its charset, as Google's and Microsoft's services send them. */
export function sendJsonUtf8(
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {}
): void {
    sendJson(res, status, body, { "content-type": "application/json; charset=utf-8", ...headers });
}

/** The body as JSON, or its text when it is not JSON, so a test still sees what was sent. */
export function parseJsonOrText(text: string): unknown {
    try {
        return JSON.parse(text) as unknown;
    } catch {
        return text;
    }
}
