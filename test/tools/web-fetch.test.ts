import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { proxiedRequest } from "../../src/providers/proxy";
import { blockedAddressReason } from "../../src/tools/web-fetch-address";
import {
    WEB_FETCH_MAX_CHARS,
    type WebFetchDetails,
    type WebFetchOptions,
    createWebFetchTool,
} from "../../src/tools/web-fetch";
import type { ToolContext, ToolResult } from "../../src/tools/types";

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

let server: http.Server;
let base: string;
let routes: Map<string, Handler>;
/** Paths the server was asked for, in order. */
let hits: string[];
/** Body bytes the server managed to send for the big page. */
let bigSent: number;
let bigClosed: Promise<void>;

const PAGE = `<!doctype html><html><head><title>Docs</title><style>body{}</style>
<script>alert(1)</script></head><body><h1>Install</h1><p>Run <code>npm i north</code>, then
<a href="/next">read on</a>.</p><ul><li>fast</li><li>small</li></ul></body></html>`;

beforeEach(async () => {
    hits = [];
    bigSent = 0;
    let closeBig: () => void = () => undefined;
    bigClosed = new Promise((resolve) => (closeBig = resolve));
    routes = new Map<string, Handler>([
        ["/page", (_q, s) => s.writeHead(200, { "content-type": "text/html" }).end(PAGE)],
        [
            "/latin1",
            (_q, s) =>
                s
                    .writeHead(200, { "content-type": "text/plain; charset=iso-8859-1" })
                    .end(Buffer.from([0x63, 0x61, 0x66, 0xe9])),
        ],
        [
            "/json",
            (_q, s) => s.writeHead(200, { "content-type": "application/json" }).end('{"a":1}'),
        ],
        [
            "/gzip",
            (_q, s) =>
                s
                    .writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" })
                    .end(zlib.gzipSync("squeezed text")),
        ],
        [
            "/png",
            (_q, s) => {
                s.writeHead(200, { "content-type": "image/png" });
                s.end(Buffer.alloc(64 * 1024, 0x89));
            },
        ],
        [
            "/missing",
            (_q, s) => s.writeHead(404, { "content-type": "text/html" }).end("<p>No such page</p>"),
        ],
        ["/loop-a", (_q, s) => s.writeHead(302, { location: "/loop-b" }).end()],
        ["/loop-b", (_q, s) => s.writeHead(301, { location: `${base}/loop-a` }).end()],
        ["/to-file", (_q, s) => s.writeHead(302, { location: "file:///etc/passwd" }).end()],
        ["/to-page", (_q, s) => s.writeHead(307, { location: "/page" }).end()],
        ["/silent", () => undefined],
        [
            "/trickle",
            (_q, s) => {
                s.writeHead(200, { "content-type": "text/plain" });
                s.write("the start of a body that never ends");
            },
        ],
        [
            "/big",
            (_q, s) => {
                // 50 MB, written only as fast as the client reads it.
                s.writeHead(200, { "content-type": "text/html" });
                const chunk = Buffer.from(`<p>${"x".repeat(64 * 1024 - 8)}</p>\n`);
                const write = (): void => {
                    while (bigSent < 50 * 1024 * 1024) {
                        bigSent += chunk.length;
                        if (!s.write(chunk)) return void s.once("drain", write);
                    }
                    s.end();
                };
                s.on("close", closeBig);
                write();
            },
        ],
    ]);
    for (let i = 1; i <= 7; i++) {
        routes.set(`/hop/${i}`, (_q, s) => s.writeHead(302, { location: `/hop/${i + 1}` }).end());
    }
    server = http.createServer((req, res) => {
        const url = req.url ?? "/";
        hits.push(url);
        const route = routes.get(url.startsWith("http") ? new URL(url).pathname : url);
        if (route) route(req, res);
        else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
});

function ctx(signal = new AbortController().signal, extra: Partial<ToolContext> = {}): ToolContext {
    return { repoRoot: "/tmp", signal, ...extra };
}

async function fetchWith(
    url: string,
    options: WebFetchOptions = { allowPrivateNetwork: true },
    context = ctx()
): Promise<ToolResult<WebFetchDetails>> {
    return createWebFetchTool(options).execute({ url }, context);
}

function ok(result: ToolResult<WebFetchDetails>): WebFetchDetails {
    if (!result.ok)
        throw new Error(`expected a page, got ${result.error.code}: ${result.error.message}`);
    return result.data;
}

function failure(result: ToolResult<WebFetchDetails>) {
    if (result.ok) throw new Error(`expected a failure, got ${result.data.content.slice(0, 200)}`);
    return result.error;
}

describe("web_fetch reads pages", () => {
    it("turns an HTML page into Markdown without its scripts and styles", async () => {
        const page = ok(await fetchWith(`${base}/page`));
        expect(page.content).toMatch(/^# Install/m);
        expect(page.content).toContain("`npm i north`");
        expect(page.content).toContain("[read on](/next)");
        expect(page.content).toMatch(/\* fast/);
        expect(page.content).not.toContain("alert(1)");
        expect(page.content).not.toContain("body{}");
        expect(page).toMatchObject({ status: 200, truncated: false, bytes: PAGE.length });
    });

    it("passes text and JSON through, decoding the charset and gzip", async () => {
        expect(ok(await fetchWith(`${base}/json`)).content).toBe('{"a":1}');
        expect(ok(await fetchWith(`${base}/latin1`)).content).toBe("café");
        expect(ok(await fetchWith(`${base}/gzip`)).content).toBe("squeezed text");
    });

    it("follows a redirect and says where the page came from", async () => {
        const page = ok(await fetchWith(`${base}/to-page`));
        expect(page.finalUrl).toBe(`${base}/page`);
        expect(page.content).toMatch(/^# Install/m);
    });

    it("reads only the start of a 50 MB page and caps what the model gets", async () => {
        const page = ok(await fetchWith(`${base}/big`));
        expect(page.truncated).toBe(true);
        expect(page.bytes).toBe(5 * 1024 * 1024);
        expect(page.content.length).toBeLessThan(WEB_FETCH_MAX_CHARS + 300);
        expect(page.content).toMatch(/larger than 5\.0 MB; only its start was read/);
        expect(page.content).toMatch(/Cut at \d+ of \d+ characters/);
        // The transfer stopped: the server never got to write the rest.
        await bigClosed;
        expect(bigSent).toBeLessThan(20 * 1024 * 1024);
    });

    it("says the status of an error page with its text", async () => {
        const error = failure(await fetchWith(`${base}/missing`));
        expect(error.code).toBe("io_error");
        expect(error.message).toMatch(/answered HTTP 404. The page says: No such page/);
    });
});

describe("web_fetch refuses", () => {
    it("a binary response by its type, without reading it", async () => {
        const error = failure(await fetchWith(`${base}/png`));
        expect(error.code).toBe("binary_file");
        expect(error.message).toMatch(/the response is image\/png, not text/);
    });

    it("non-HTTP schemes, also as a redirect target", async () => {
        for (const url of ["file:///etc/passwd", "ftp://example.com/x", "javascript:alert(1)"]) {
            const error = failure(await fetchWith(url));
            expect(error.code, url).toBe("invalid_args");
            expect(error.message, url).toMatch(/URLs are not fetched: web_fetch reads http/);
        }
        const error = failure(await fetchWith(`${base}/to-file`));
        expect(error.message).toMatch(/to-file redirected to file:\/\/\/etc\/passwd; file: URLs/);
        expect(failure(await fetchWith("not a url")).message).toMatch(/is not a URL/);
    });

    it("a redirect loop, naming the hops", async () => {
        const error = failure(await fetchWith(`${base}/loop-a`));
        expect(error.message).toBe(
            `redirect loop: ${base}/loop-a → ${base}/loop-b → ${base}/loop-a; the page cannot be fetched`
        );
        expect(hits).toEqual(["/loop-a", "/loop-b"]);
    });

    it("more than 5 redirects", async () => {
        const error = failure(await fetchWith(`${base}/hop/1`));
        expect(error.message).toMatch(/^more than 5 redirects/);
        expect(hits).toEqual(["/hop/1", "/hop/2", "/hop/3", "/hop/4", "/hop/5", "/hop/6"]);
    });

    it("loopback addresses unless the private network is allowed, by IP and by name", async () => {
        const byIp = failure(await fetchWith(`${base}/page`, {}));
        expect(byIp.code).toBe("denied");
        expect(byIp.message).toMatch(/127\.0\.0\.1 is a loopback address/);
        expect(byIp.message).toMatch(/"webFetch": \{"allowPrivateNetwork": true\}/);
        const port = new URL(base).port;
        const byName = failure(await fetchWith(`http://localhost:${port}/page`, {}));
        expect(byName.message).toMatch(
            /localhost resolves to (127\.0\.0\.1|::1), a loopback address/
        );
        expect(hits).toEqual([]);
    });

    it("to follow a redirect to another host: it says where, for a fetch the user approves", async () => {
        const port = new URL(base).port;
        routes.set("/to-other-host", (_q, s) =>
            s.writeHead(301, { location: `http://localhost:${port}/page` }).end()
        );
        const moved = ok(await fetchWith(`${base}/to-other-host`));
        expect(moved).toMatchObject({
            status: 301,
            bytes: 0,
            finalUrl: `${base}/to-other-host`,
            movedTo: `http://localhost:${port}/page`,
        });
        const suffix = createWebFetchTool().display?.resultSuffix?.(moved);
        expect(suffix).toBe(` - moved to localhost:${port}/page`);
        expect(moved.content).toBe(
            `${base}/to-other-host redirects (HTTP 301) to another host: http://localhost:${port}/page. North follows redirects only within the host the user approved; to read that page, call web_fetch with that URL (the user is asked for its host).`
        );
        // Not one request went to the other host.
        expect(hits).toEqual(["/to-other-host"]);
    });

    it("a redirect to a loopback or metadata address, neither followed nor fetched after", async () => {
        // The test server stands in for a public site: only its own address passes.
        const publicServer = (address: string) =>
            address === "127.0.0.1" ? undefined : blockedAddressReason(address);
        const port = new URL(base).port;
        const targets = {
            "/to-loopback": `http://127.0.0.2:${port}/secret`,
            "/to-metadata": "http://169.254.169.254/latest/meta-data",
            "/to-mapped": `http://[::ffff:127.0.0.3]:${port}/secret`,
        };
        for (const [path, location] of Object.entries(targets)) {
            routes.set(path, (_q, s) => s.writeHead(302, { location }).end());
        }
        const options = { addressPolicy: publicServer };
        const moved = await Promise.all(
            Object.keys(targets).map(async (path) => ok(await fetchWith(`${base}${path}`, options)))
        );
        expect(moved.map((page) => page.content)).toEqual(
            Object.entries(targets).map(([path, location]) =>
                expect.stringContaining(
                    `${base}${path} redirects (HTTP 302) to another host: ${new URL(location).href}.`
                )
            )
        );
        // The model's next call for that URL is refused by its address.
        const loop = failure(await fetchWith(targets["/to-loopback"], options));
        expect(loop.message).toMatch(/127\.0\.0\.2 is a loopback address/);
        const meta = failure(await fetchWith(targets["/to-metadata"], options));
        expect(meta.message).toMatch(/169\.254\.169\.254 is a link-local address \(cloud metadata/);
        const mapped = failure(await fetchWith(targets["/to-mapped"], options));
        expect(mapped.message).toMatch(/::ffff:7f00:3 is a loopback address/);
        expect([...hits].sort()).toEqual(["/to-loopback", "/to-mapped", "/to-metadata"]);
    });

    it("a redirect to a host a deny rule names", async () => {
        routes.set("/to-denied", (_q, s) =>
            s.writeHead(302, { location: "http://evil.example/x" }).end()
        );
        const hostDenial = (host: string) =>
            host === "evil.example" ? "WebFetch(domain:evil.example) (settings.json)" : undefined;
        const error = failure(
            await fetchWith(`${base}/to-denied`, undefined, ctx(undefined, { hostDenial }))
        );
        expect(error.code).toBe("denied");
        expect(error.message).toMatch(
            /redirected to http:\/\/evil\.example\/x, which is denied by the permission rule WebFetch\(domain:evil\.example\)/
        );
    });
});

describe("web_fetch stops waiting", () => {
    it("at its timeout when the server never answers", async () => {
        const error = failure(
            await fetchWith(`${base}/silent`, { allowPrivateNetwork: true, timeoutMs: 200 })
        );
        expect(error.code).toBe("io_error");
        expect(error.message).toMatch(/\/silent did not answer within 0.2 s/);
    });

    it("at its timeout when the body never ends", async () => {
        const error = failure(
            await fetchWith(`${base}/trickle`, { allowPrivateNetwork: true, timeoutMs: 300 })
        );
        expect(error.message).toMatch(/\/trickle did not answer within 0.3 s/);
    });

    it("when the turn is cancelled", async () => {
        const controller = new AbortController();
        const pending = fetchWith(`${base}/silent`, undefined, ctx(controller.signal));
        await expect.poll(() => hits).toEqual(["/silent"]);
        controller.abort();
        const error = failure(await pending);
        expect(error.code).toBe("cancelled");
    });
});

describe("web_fetch through a proxy", () => {
    it("sends plain HTTP to the proxy in absolute form, still checking the target", async () => {
        const proxy = http.createServer((req, res) => {
            res.writeHead(200, { "content-type": "text/plain" }).end(`via proxy: ${req.url}`);
        });
        await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
        const proxyUrl = new URL(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`);
        try {
            const options: WebFetchOptions = {
                allowPrivateNetwork: true,
                proxy: (target, headers) => proxiedRequest(target, proxyUrl, headers),
            };
            expect(ok(await fetchWith(`${base}/page`, options)).content).toBe(
                `via proxy: ${base}/page`
            );
            const refused = failure(await fetchWith(`${base}/page`, { proxy: options.proxy }));
            expect(refused.message).toMatch(/loopback address/);
        } finally {
            proxy.closeAllConnections();
            await new Promise((resolve) => proxy.close(resolve));
        }
    });
});

describe("web_fetch redirects by host", () => {
    it("follows a redirect to the www. twin of the host, and stops at any other host", async () => {
        // The test server acts as the proxy: it gets absolute URLs of names that need not resolve.
        routes.set("/to-www", (_q, s) =>
            s.writeHead(302, { location: "http://www.site.test/page" }).end()
        );
        routes.set("/to-sub", (_q, s) =>
            s.writeHead(302, { location: "http://docs.site.test/page" }).end()
        );
        const options: WebFetchOptions = {
            allowPrivateNetwork: true,
            proxy: (target, headers) => proxiedRequest(target, new URL(base), headers),
        };
        const page = ok(await fetchWith("http://site.test/to-www", options));
        expect(page.finalUrl).toBe("http://www.site.test/page");
        expect(page.content).toMatch(/^# Install/m);
        const moved = ok(await fetchWith("http://www.site.test/to-sub", options));
        expect(moved.content).toMatch(
            /^http:\/\/www\.site\.test\/to-sub redirects \(HTTP 302\) to another host: http:\/\/docs\.site\.test\/page\./
        );
        expect(hits).toEqual([
            "http://site.test/to-www",
            "http://www.site.test/page",
            "http://www.site.test/to-sub",
        ]);
    });
});

describe("the address check", () => {
    it("refuses private, loopback, link-local and mapped addresses and passes public ones", () => {
        const refused = [
            "0.0.0.0",
            "10.1.2.3",
            "127.0.0.1",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "100.64.0.1",
            "::",
            "::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:7f00:1",
            "::ffff:a9fe:a9fe",
            "64:ff9b::a9fe:a9fe",
            "::127.0.0.1",
        ];
        for (const address of refused) expect(blockedAddressReason(address), address).toBeDefined();
        for (const address of ["8.8.8.8", "172.32.0.1", "93.184.216.34", "2606:4700::1111"]) {
            expect(blockedAddressReason(address), address).toBeUndefined();
        }
        expect(blockedAddressReason("::ffff:10.0.0.1")).toBe("a private network address");
        expect(blockedAddressReason("example.com")).toBe("not an IP address");
    });
});
