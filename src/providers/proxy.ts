import http from "node:http";
import https from "node:https";
import type { Duplex } from "node:stream";
import tls from "node:tls";

/**
 * HTTPS_PROXY / HTTP_PROXY / NO_PROXY for provider requests, with curl's
 * reading of them: the lowercase name wins, a proxy without a scheme is
 * http://, NO_PROXY lists hosts (each also covering its subdomains, with or
 * without a leading `.` or `*.`), optional `:port`, or `*` for everything.
 * HTTPS goes through a CONNECT tunnel (TLS end to end, so the usual CA store
 * and NODE_EXTRA_CA_CERTS apply); plain HTTP is sent to the proxy in absolute form.
 */

type Env = Record<string, string | undefined>;

export type ProxyLookup =
    { ok: true; proxy: URL | undefined; variable?: string } | { ok: false; error: string };

function envValue(env: Env, name: string): { name: string; value: string } | undefined {
    for (const key of [name.toLowerCase(), name]) {
        const value = env[key]?.trim();
        if (value) return { name: key, value };
    }
    return undefined;
}

/** The proxy URL in a variable's value, or why it cannot be used. */
export function parseProxyUrl(
    name: string,
    value: string
): { ok: true; url: URL } | { ok: false; error: string } {
    const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
    let url: URL;
    try {
        url = new URL(withScheme);
    } catch {
        return { ok: false, error: `${name} "${value}" is not a proxy URL (http://host:port)` };
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
        return {
            ok: false,
            error: `${name} "${value}" is a ${url.protocol.slice(0, -1)} proxy; North supports http:// and https:// proxies`,
        };
    }
    return { ok: true, url };
}

function bareHost(host: string): string {
    return host.replace(/^\[|\]$/g, "").toLowerCase();
}

function defaultPort(protocol: string): string {
    return protocol === "https:" ? "443" : "80";
}

/** Whether NO_PROXY's list covers the target. */
export function bypassesProxy(target: URL, noProxy: string): boolean {
    const host = bareHost(target.hostname);
    const port = target.port || defaultPort(target.protocol);
    for (const raw of noProxy.toLowerCase().split(/[\s,]+/)) {
        if (!raw) continue;
        if (raw === "*") return true;
        let entry = raw;
        let entryPort: string | undefined;
        const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
        const hostPort = /^([^:]+):(\d+)$/.exec(entry);
        if (bracketed) [entry, entryPort] = [bracketed[1]!, bracketed[2]];
        else if (hostPort) [entry, entryPort] = [hostPort[1]!, hostPort[2]];
        if (entryPort && entryPort !== port) continue;
        entry = entry.replace(/^\*?\./, "");
        if (host === entry || host.endsWith(`.${entry}`)) return true;
    }
    return false;
}

/** The proxy a request to `target` goes through, if any. */
/** localhost, *.localhost, 127.0.0.0/8 and ::1. */
function isLoopbackHost(hostname: string): boolean {
    const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
    return (
        host === "localhost" ||
        host.endsWith(".localhost") ||
        host === "::1" ||
        /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
    );
}

export function proxyFor(target: URL, env: Env): ProxyLookup {
    const setting = envValue(env, target.protocol === "https:" ? "HTTPS_PROXY" : "HTTP_PROXY");
    if (!setting) return { ok: true, proxy: undefined };
    const parsed = parseProxyUrl(setting.name, setting.value);
    if (!parsed.ok) return parsed;
    const noProxy = envValue(env, "NO_PROXY");
    if (noProxy && bypassesProxy(target, noProxy.value)) return { ok: true, proxy: undefined };
    // Without any NO_PROXY, this machine's own servers (a local model) are reached directly,
    // as Go's clients do; a NO_PROXY that is set, even empty, decides alone.
    const noProxySet = env.NO_PROXY !== undefined || env.no_proxy !== undefined;
    if (!noProxySet && isLoopbackHost(target.hostname)) return { ok: true, proxy: undefined };
    return { ok: true, proxy: parsed.url, variable: setting.name };
}

function proxyAuthorization(proxy: URL): Record<string, string> {
    if (!proxy.username && !proxy.password) return {};
    const user = decodeURIComponent(proxy.username);
    const password = decodeURIComponent(proxy.password);
    return {
        "proxy-authorization": `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`,
    };
}

/** Pooled HTTPS connections, each a TLS session inside a CONNECT tunnel. */
class TunnelAgent extends https.Agent {
    constructor(private readonly proxy: URL) {
        super({ keepAlive: true });
    }

    override createConnection(
        options: https.RequestOptions,
        callback?: (err: Error | null, stream: Duplex) => void
    ): Duplex | null | undefined {
        // Node guards against a second call; a failure passes no stream.
        const done = (error: Error | null, stream?: Duplex): void =>
            callback?.(error, stream as Duplex);
        const target = `${options.host ?? "localhost"}:${options.port ?? 443}`;
        const transport = this.proxy.protocol === "https:" ? https : http;
        const request = transport.request({
            host: bareHost(this.proxy.hostname),
            port: this.proxy.port || defaultPort(this.proxy.protocol),
            method: "CONNECT",
            path: target,
            headers: { host: target, ...proxyAuthorization(this.proxy) },
            agent: false,
        });
        const refused = (status: number | undefined, message: string | undefined): Error =>
            new Error(
                `proxy ${this.proxy.host} refused the tunnel to ${target}: ${status ?? "?"} ${message ?? ""}`.trimEnd()
            );
        request.once("connect", (res, socket, head) => {
            if (res.statusCode !== 200) {
                socket.destroy();
                done(refused(res.statusCode, res.statusMessage));
                return;
            }
            if (head.length > 0) socket.unshift(head);
            done(null, tls.connect({ ...options, socket } as tls.ConnectionOptions));
        });
        request.once("response", (res) => {
            res.resume();
            done(refused(res.statusCode, res.statusMessage));
        });
        request.once("error", (error) => done(error));
        request.end();
        return undefined;
    }
}

const tunnelAgents = new Map<string, TunnelAgent>();
const forwardAgents = new Map<string, http.Agent>();

/** Where and how to send one request: straight to the target or through `proxy`. */
export function proxiedRequest(
    target: URL,
    proxy: URL,
    headers: Record<string, string>
): { transport: typeof http | typeof https; url: URL; options: https.RequestOptions } {
    if (target.protocol === "https:") {
        let agent = tunnelAgents.get(proxy.href);
        if (!agent) tunnelAgents.set(proxy.href, (agent = new TunnelAgent(proxy)));
        return { transport: https, url: target, options: { headers, agent } };
    }
    const secure = proxy.protocol === "https:";
    let agent = forwardAgents.get(proxy.href);
    if (!agent) {
        agent = secure ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
        forwardAgents.set(proxy.href, agent);
    }
    // Credentials go in Proxy-Authorization, never as the target's Authorization.
    const url = new URL(proxy.href);
    url.username = "";
    url.password = "";
    return {
        transport: secure ? https : http,
        url,
        options: {
            path: target.href,
            headers: { ...headers, host: target.host, ...proxyAuthorization(proxy) },
            agent,
        },
    };
}
