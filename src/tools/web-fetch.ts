/**
 * web_fetch: GET one http(s) URL after the user's approval (the shell review,
 * with "always" per domain), HTML turned into Markdown. A redirect to another
 * host is reported, not followed: that host gets its own approval. The engine asks
 * before `execute`; this file never does. Private and loopback addresses are
 * refused unless the user's own settings allow them.
 */
import { type InputOf, toolInput } from "./tool-input";
import { digestNote, isRecord } from "./digest-text";
import { oneLine, str } from "./display-text";
import { blockedAddressReason } from "./web-fetch-address";
import { bodyText, refusedTypeNote } from "./web-fetch-content";
import { type ProxyRouter, httpGet, schemeProblem } from "./web-fetch-http";
import { type ToolDefinition, toolError, toolOk } from "./types";

/** Raw bytes read from one response; the rest is left unread. */
export const WEB_FETCH_MAX_BYTES = 5 * 1024 * 1024;
/** Characters of the page the model gets (the tool output limit of a read). */
export const WEB_FETCH_MAX_CHARS = 100 * 1024;
export const WEB_FETCH_TIMEOUT_MS = 30_000;
export const WEB_FETCH_MAX_REDIRECTS = 5;
/** Characters of a digested page kept in the history. */
const DIGEST_CHARS = 8 * 1024;
/** Characters of an error page shown with its status. */
const ERROR_PAGE_CHARS = 1_000;

export interface WebFetchOptions {
    /** The user's `webFetch.allowPrivateNetwork`: loopback and private addresses may be fetched. */
    allowPrivateNetwork?: boolean;
    /** North's proxy settings (HTTPS_PROXY, NO_PROXY), injected by cli/. */
    proxy?: ProxyRouter;
    timeoutMs?: number;
    maxBytes?: number;
    /** Overrides the address check (why an address is refused, or undefined). */
    addressPolicy?: (address: string) => string | undefined;
}

export const webFetchInput = toolInput((z) =>
    z.object({
        url: z.string({ error: 'url must be a string such as "https://example.com/docs"' }),
    })
);

export type WebFetchInput = InputOf<typeof webFetchInput>;

export interface WebFetchDetails {
    url: string;
    /** Where the page came from after redirects. */
    finalUrl: string;
    status: number;
    contentType: string;
    /** Bytes of body read (after decompression). */
    bytes: number;
    /** The body was longer than the byte cap and was cut. */
    truncated: boolean;
    content: string;
    /** The redirect to another host that was not followed. */
    movedTo?: string;
}

const DESCRIPTION =
    "GET an http(s) URL; returns the page as Markdown (HTML converted; text and JSON as is). The user approves each domain.";

function parseUrl(raw: string): URL | undefined {
    try {
        return new URL(raw.trim());
    } catch {
        return undefined;
    }
}

/** "example.com/docs/a" for a URL string (the title), or the text itself cut to one line. */
export function hostAndPath(raw: string): string {
    const url = parseUrl(raw);
    if (!url) return oneLine(raw);
    const path = url.pathname === "/" ? "" : url.pathname;
    return oneLine(`${url.host}${path}${url.search}`);
}

function sizeText(bytes: number): string {
    if (bytes < 1024) return `${bytes} B`;
    if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
    return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

function capped(text: string, max: number): { text: string; cut: boolean } {
    if (text.length <= max) return { text, cut: false };
    return { text: text.slice(0, max), cut: true };
}

export function createWebFetchTool(
    options: WebFetchOptions = {}
): ToolDefinition<WebFetchInput, WebFetchDetails> {
    const addressPolicy =
        options.addressPolicy ??
        (options.allowPrivateNetwork === true ? undefined : blockedAddressReason);
    return {
        name: "web_fetch",
        description: DESCRIPTION,
        input: webFetchInput,
        approvalPolicy: "shell",
        readOnly: false,
        hookAliases: ["WebFetch"],
        display: {
            title: (args) => {
                const url = str(args.url);
                return url ? `web_fetch ${hostAndPath(url)}` : undefined;
            },
            resultSuffix: (details) => {
                const d = details as Partial<WebFetchDetails> | null;
                if (!d || typeof d !== "object" || typeof d.bytes !== "number") return "";
                if (typeof d.movedTo === "string") return ` - moved to ${hostAndPath(d.movedTo)}`;
                return ` - ${sizeText(d.bytes)}${d.truncated ? " (cut)" : ""}`;
            },
        },
        digest(data, _input, keep) {
            if (!isRecord(data) || typeof data.content !== "string") return data;
            if (data.content.length <= DIGEST_CHARS) return data;
            const id = keep(data);
            return {
                ...data,
                content: data.content.slice(0, DIGEST_CHARS),
                ...digestNote(
                    id,
                    `Showing the first ${DIGEST_CHARS} of ${data.content.length} characters of the page.`
                ),
            };
        },
        approval: ({ url }) => {
            const host = parseUrl(url)?.hostname.toLowerCase() ?? url;
            return { summary: url, rememberKey: `WebFetch(domain:${host})`, domain: host };
        },
        async execute(input, ctx) {
            const url = parseUrl(input.url);
            if (!url) {
                return toolError(
                    "invalid_args",
                    `"${oneLine(input.url)}" is not a URL; pass a full address such as "https://example.com/docs"`
                );
            }
            const scheme = schemeProblem(url);
            if (scheme !== undefined) return toolError("invalid_args", scheme);
            const got = await httpGet(url, {
                signal: ctx.signal,
                timeoutMs: options.timeoutMs ?? WEB_FETCH_TIMEOUT_MS,
                maxBytes: options.maxBytes ?? WEB_FETCH_MAX_BYTES,
                maxRedirects: WEB_FETCH_MAX_REDIRECTS,
                addressPolicy,
                proxy: options.proxy,
                hostDenial: ctx.hostDenial,
                refuseType: refusedTypeNote,
            });
            if (!got.ok) return toolError(got.code, got.message);
            const { response } = got;
            if (response.movedTo !== undefined) {
                return toolOk({
                    url: input.url,
                    finalUrl: response.finalUrl,
                    status: response.status,
                    contentType: "",
                    bytes: 0,
                    truncated: false,
                    movedTo: response.movedTo,
                    content: `${response.finalUrl} redirects (HTTP ${response.status}) to another host: ${response.movedTo}. North follows redirects only within the host the user approved; to read that page, call web_fetch with that URL (the user is asked for its host).`,
                });
            }
            const read = await bodyText(response.body, response.contentType);
            if (!read.ok) return toolError("binary_file", read.note);
            if (response.status >= 400) {
                return toolError(
                    "io_error",
                    `${response.finalUrl} answered HTTP ${response.status}. The page says: ${oneLine(read.text, ERROR_PAGE_CHARS)}`
                );
            }
            const limit = capped(read.text, WEB_FETCH_MAX_CHARS);
            const notes = [
                response.truncated
                    ? `[The page is larger than ${sizeText(options.maxBytes ?? WEB_FETCH_MAX_BYTES)}; only its start was read.]`
                    : "",
                limit.cut
                    ? `[Cut at ${WEB_FETCH_MAX_CHARS} of ${read.text.length} characters.]`
                    : "",
            ].filter(Boolean);
            return toolOk({
                url: input.url,
                finalUrl: response.finalUrl,
                status: response.status,
                contentType: response.contentType,
                bytes: response.body.length,
                truncated: response.truncated,
                content: notes.length > 0 ? `${limit.text}\n\n${notes.join("\n")}` : limit.text,
            });
        },
    };
}
