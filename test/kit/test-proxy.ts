/**
 * A local forward proxy (CONNECT tunnels and absolute-form HTTP requests) and a
 * TLS front for the fake LLM server, so proxy support is tested without any network.
 */
import { readFileSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import { type AddressInfo, type Socket, connect } from "node:net";
import { createServer as createTlsServer } from "node:tls";
import { fileURLToPath } from "node:url";

export interface TestProxy {
    /** http://127.0.0.1:PORT */
    url: string;
    /** `CONNECT host:port` or `METHOD absolute-url`, in arrival order. */
    seen: string[];
    close(): Promise<void>;
}

function closer(server: { close(cb: () => void): void }, sockets: Set<Socket>) {
    return () =>
        new Promise<void>((resolve) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => resolve());
        });
}

/** `auth` ("user:password") makes the proxy answer 407 to requests without it. */
export async function startTestProxy(opts: { auth?: string } = {}): Promise<TestProxy> {
    const seen: string[] = [];
    const sockets = new Set<Socket>();
    const expected = opts.auth && `Basic ${Buffer.from(opts.auth).toString("base64")}`;
    const authorized = (header: string | undefined) => !expected || header === expected;
    const server = createServer((req, res) => {
        seen.push(`${req.method} ${req.url}`);
        if (!authorized(req.headers["proxy-authorization"])) {
            res.writeHead(407).end();
            return;
        }
        const upstream = httpRequest(
            req.url!,
            { method: req.method, headers: req.headers },
            (r) => {
                res.writeHead(r.statusCode ?? 502, r.headers);
                r.pipe(res);
            }
        );
        upstream.on("error", () => res.destroy());
        req.pipe(upstream);
    });
    server.on("connection", (socket: Socket) => {
        sockets.add(socket);
        socket.on("close", () => sockets.delete(socket));
    });
    server.on("connect", (req, client: Socket, head: Buffer) => {
        seen.push(`CONNECT ${req.url}`);
        if (!authorized(req.headers["proxy-authorization"])) {
            client.end("HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: 0\r\n\r\n");
            return;
        }
        const [host, port] = [
            req.url!.slice(0, req.url!.lastIndexOf(":")),
            req.url!.split(":").pop(),
        ];
        const upstream = connect(Number(port), host === "localhost" ? "127.0.0.1" : host, () => {
            client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
            if (head.length > 0) upstream.write(head);
            upstream.pipe(client);
            client.pipe(upstream);
        });
        sockets.add(upstream);
        upstream.on("close", () => sockets.delete(upstream));
        upstream.on("error", () => client.destroy());
        client.on("error", () => upstream.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}`, seen, close: closer(server, sockets) };
}

const fixture = (name: string) =>
    fileURLToPath(new URL(`../providers/fixtures/${name}`, import.meta.url));
export const TEST_CERT_PATH = fixture("proxy-test-cert.pem");
const TEST_KEY_PATH = fixture("proxy-test-key.pem");

/** https://localhost:PORT in front of a plain-HTTP server (certificate: TEST_CERT_PATH). */
export async function startTlsFront(
    targetUrl: string
): Promise<{ url: string; close(): Promise<void> }> {
    const target = new URL(targetUrl);
    const sockets = new Set<Socket>();
    const server = createTlsServer(
        { key: readFileSync(TEST_KEY_PATH), cert: readFileSync(TEST_CERT_PATH) },
        (secure) => {
            const upstream = connect(Number(target.port), target.hostname);
            sockets.add(upstream);
            upstream.on("close", () => sockets.delete(upstream));
            upstream.on("error", () => secure.destroy());
            secure.on("error", () => upstream.destroy());
            secure.pipe(upstream).pipe(secure);
        }
    );
    server.on("connection", (socket: Socket) => {
        sockets.add(socket);
        socket.on("close", () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return { url: `https://localhost:${port}`, close: closer(server, sockets) };
}
