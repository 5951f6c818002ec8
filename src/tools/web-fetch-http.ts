/**
 * web_fetch's HTTP GET: redirects followed by hand within one host (each
 * hop's scheme and resolved addresses checked again; a redirect to another
 * host is returned, not followed), the body read up to a byte cap, one
 * deadline over every hop. A direct connection resolves through a lookup hook
 * that refuses blocked addresses, so the socket goes to the address that was
 * checked (a DNS rebind cannot slip in). Through a proxy the host is checked
 * here and resolved again by the proxy.
 */
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import type { Readable } from "node:stream";
import zlib from "node:zlib";
import type { ToolErrorCode } from "./types";

/** Where to send one request when a proxy applies: `proxiedRequest` of providers/proxy.ts. */
export interface ProxiedRoute {
    transport: typeof http | typeof https;
    url: URL;
    options: https.RequestOptions;
}

/**
 * The proxy route for `target` (HTTPS_PROXY, HTTP_PROXY, NO_PROXY), undefined
 * to connect directly; throws when the proxy setting cannot be used.
 */
export type ProxyRouter = (
    target: URL,
    headers: Record<string, string>
) => ProxiedRoute | undefined;

/** Why an address may not be connected to, or undefined when it may. */
type AddressPolicy = (address: string) => string | undefined;

export interface HttpGetOptions {
    signal: AbortSignal;
    timeoutMs: number;
    /** Body bytes kept (after decompression); the rest is not read. */
    maxBytes: number;
    maxRedirects: number;
    /**
     * Why an address may not be connected to, or undefined when it may;
     * without it every address may (and a proxied host is not resolved here).
     */
    addressPolicy?: AddressPolicy;
    proxy?: ProxyRouter;
    /** The deny rule that keeps a host from being fetched (checked on every hop), if any. */
    hostDenial?: (host: string) => string | undefined;
    /** Content types refused before their body is read (binary); returns the note, or undefined. */
    refuseType?: (contentType: string) => string | undefined;
}

export interface HttpGetResponse {
    finalUrl: string;
    status: number;
    contentType: string;
    body: Buffer;
    /** Bytes past `maxBytes` were left unread. */
    truncated: boolean;
    /** Every URL redirected through, in order. */
    redirects: string[];
    /**
     * The redirect that was not followed because it leads to another host (the
     * user approved this one); `status` is the redirect's, `body` empty.
     */
    movedTo?: string;
}

export type HttpGetResult =
    { ok: true; response: HttpGetResponse } | { ok: false; code: ToolErrorCode; message: string };

class RefusedAddressError extends Error {}

/** `http:`/`https:` only; a string saying why not otherwise. */
export function schemeProblem(url: URL): string | undefined {
    if (url.protocol === "http:" || url.protocol === "https:") return undefined;
    return `${url.protocol} URLs are not fetched: web_fetch reads http:// and https:// pages only`;
}

function hostOf(url: URL): string {
    return url.hostname.replace(/^\[|\]$/g, "");
}

/** A lookup for node:http that refuses a host when any of its addresses is blocked. */
function checkedLookup(policy: AddressPolicy): net.LookupFunction {
    return (hostname, options, callback) => {
        dns.lookup(hostname, { all: true, family: options.family }, (error, addresses) => {
            const cb = callback as (
                err: NodeJS.ErrnoException | null,
                address: string | dns.LookupAddress[],
                family?: number
            ) => void;
            if (error) return cb(error, "");
            const blocked = addresses.find((a) => policy(a.address) !== undefined);
            if (blocked) {
                return cb(
                    new RefusedAddressError(
                        `${hostname} resolves to ${blocked.address}, ${policy(blocked.address)}`
                    ),
                    ""
                );
            }
            const first = addresses[0];
            if (!first) return cb(new Error(`${hostname} has no address`), "");
            if (options.all) return cb(null, addresses);
            return cb(null, first.address, first.family);
        });
    };
}

/** Checks every address of `host` before it is handed to a proxy. */
async function checkHost(host: string, policy: AddressPolicy) {
    const addresses = await dns.promises.lookup(host, { all: true });
    const blocked = addresses.find((a) => policy(a.address) !== undefined);
    if (blocked) {
        throw new RefusedAddressError(
            `${host} resolves to ${blocked.address}, ${policy(blocked.address)}`
        );
    }
}

interface Hop {
    status: number;
    location?: string;
    contentType: string;
    body: Buffer;
    truncated: boolean;
}

function decoded(res: http.IncomingMessage): Readable {
    switch (String(res.headers["content-encoding"] ?? "").toLowerCase()) {
        case "gzip":
        case "x-gzip":
            return res.pipe(zlib.createGunzip());
        case "deflate":
            return res.pipe(zlib.createInflate());
        case "br":
            return res.pipe(zlib.createBrotliDecompress());
        default:
            return res;
    }
}

/** Reads at most `maxBytes` of the body, then stops the transfer. */
function readCapped(
    res: http.IncomingMessage,
    maxBytes: number
): Promise<Omit<Hop, "status" | "location" | "contentType">> {
    return new Promise((resolve, reject) => {
        const stream = decoded(res);
        const chunks: Buffer[] = [];
        let size = 0;
        let settled = false;
        const finish = (truncated: boolean) => {
            if (settled) return;
            settled = true;
            resolve({ body: Buffer.concat(chunks), truncated });
        };
        stream.on("data", (chunk: Buffer) => {
            if (settled) return;
            const room = maxBytes - size;
            if (chunk.length >= room) {
                chunks.push(chunk.subarray(0, room));
                size = maxBytes;
                finish(true);
                res.destroy();
                if (stream !== res) stream.destroy();
                return;
            }
            chunks.push(chunk);
            size += chunk.length;
        });
        stream.on("end", () => finish(false));
        stream.on("error", (error) => {
            if (!settled) {
                settled = true;
                reject(error);
            }
        });
        res.on("error", (error) => {
            if (!settled) {
                settled = true;
                reject(error);
            }
        });
    });
}

async function getOnce(url: URL, options: HttpGetOptions, signal: AbortSignal): Promise<Hop> {
    const host = hostOf(url);
    if (net.isIP(host) !== 0) {
        const why = options.addressPolicy?.(host);
        if (why !== undefined) throw new RefusedAddressError(`${host} is ${why}`);
    }
    const headers: Record<string, string> = {
        "user-agent": "North (web_fetch)",
        accept: "text/html, text/markdown, text/plain, application/json;q=0.9, */*;q=0.5",
        "accept-encoding": "gzip, deflate, br",
    };
    const proxied = options.proxy?.(url, headers);
    const policy = options.addressPolicy;
    // Behind a proxy the name may not resolve here at all; it is looked up only to be checked.
    if (proxied && policy && net.isIP(host) === 0) await checkHost(host, policy);
    const route = proxied ?? {
        transport: url.protocol === "https:" ? https : http,
        url,
        options: {
            headers,
            agent: false,
            ...(policy ? { lookup: checkedLookup(policy) } : {}),
        },
    };
    return new Promise<Hop>((resolve, reject) => {
        const request = route.transport.request(
            route.url,
            { method: "GET", signal, ...route.options },
            (res) => {
                const status = res.statusCode ?? 0;
                const contentType = String(res.headers["content-type"] ?? "");
                const location = res.headers.location;
                if (status >= 300 && status < 400 && location) {
                    res.destroy();
                    resolve({
                        status,
                        location,
                        contentType,
                        body: Buffer.alloc(0),
                        truncated: false,
                    });
                    return;
                }
                const refused = status < 400 ? options.refuseType?.(contentType) : undefined;
                if (refused !== undefined) {
                    res.destroy();
                    reject(new RefusedTypeError(refused));
                    return;
                }
                readCapped(res, options.maxBytes).then(
                    (read) => resolve({ status, contentType, ...read }),
                    reject
                );
            }
        );
        request.on("error", reject);
        request.end();
    });
}

class RefusedTypeError extends Error {}

/** The host without a leading "www.": example.com and www.example.com are one site. */
function siteOf(url: URL): string {
    return url.hostname.replace(/^www\./, "");
}

/**
 * A redirect is followed only within the host the user approved (or its www.
 * twin); anywhere else is a new fetch, with its own approval.
 */
function sameSite(from: URL, to: URL): boolean {
    return siteOf(from) === siteOf(to);
}

/** GETs `start`, following up to `maxRedirects` redirects; never throws. */
export async function httpGet(start: URL, options: HttpGetOptions): Promise<HttpGetResult> {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), options.timeoutMs);
    const signal = AbortSignal.any([options.signal, deadline.signal]);
    const redirects: string[] = [];
    let redirectStatus = 0;
    let url = start;
    try {
        for (;;) {
            const scheme = schemeProblem(url);
            if (scheme !== undefined) {
                return {
                    ok: false,
                    code: "invalid_args",
                    message:
                        redirects.length > 0
                            ? `${redirects.at(-1)} redirected to ${url.href}; ${scheme}`
                            : scheme,
                };
            }
            const deniedBy = options.hostDenial?.(hostOf(url));
            if (deniedBy !== undefined) {
                const what =
                    redirects.length > 0
                        ? `${redirects.at(-1)} redirected to ${url.href}, which`
                        : url.href;
                return {
                    ok: false,
                    code: "denied",
                    message: `${what} is denied by the permission rule ${deniedBy}; do not try to get around it`,
                };
            }
            const from = redirects.at(-1);
            if (from !== undefined && !sameSite(new URL(from), url)) {
                return {
                    ok: true,
                    response: {
                        finalUrl: from,
                        status: redirectStatus,
                        contentType: "",
                        body: Buffer.alloc(0),
                        truncated: false,
                        redirects: redirects.slice(0, -1),
                        movedTo: url.href,
                    },
                };
            }
            const hop = await getOnce(url, options, signal);
            if (hop.location === undefined) {
                return {
                    ok: true,
                    response: {
                        finalUrl: url.href,
                        status: hop.status,
                        contentType: hop.contentType,
                        body: hop.body,
                        truncated: hop.truncated,
                        redirects,
                    },
                };
            }
            const next = new URL(hop.location, url);
            redirectStatus = hop.status;
            redirects.push(url.href);
            if (redirects.includes(next.href)) {
                return {
                    ok: false,
                    code: "io_error",
                    message: `redirect loop: ${[...redirects, next.href].join(" → ")}; the page cannot be fetched`,
                };
            }
            if (redirects.length > options.maxRedirects) {
                return {
                    ok: false,
                    code: "io_error",
                    message: `more than ${options.maxRedirects} redirects (${[...redirects, next.href].join(" → ")}); fetch the last URL yourself if it is the page you want`,
                };
            }
            url = next;
        }
    } catch (error) {
        if (options.signal.aborted) {
            return {
                ok: false,
                code: "cancelled",
                message: `cancelled by the user while fetching ${url.href}`,
            };
        }
        if (deadline.signal.aborted) {
            return {
                ok: false,
                code: "io_error",
                message: `${url.href} did not answer within ${options.timeoutMs / 1000} s; try again later or another page`,
            };
        }
        if (error instanceof RefusedAddressError) {
            return {
                ok: false,
                code: "denied",
                message: `${redirects.length > 0 ? `${redirects.at(-1)} redirected to ${url.href}, which` : `${url.href}`} was not fetched: ${error.message}. Private and loopback addresses are refused unless the user sets "webFetch": {"allowPrivateNetwork": true} in ~/.config/north/config.json`,
            };
        }
        if (error instanceof RefusedTypeError) {
            return { ok: false, code: "binary_file", message: error.message };
        }
        const cause = (error as { cause?: Error }).cause?.message;
        const reason = (error as Error).message + (cause ? ` (${cause})` : "");
        return {
            ok: false,
            code: "io_error",
            message: `${url.href} could not be fetched: ${reason}`,
        };
    } finally {
        clearTimeout(timer);
    }
}
