/**
 * What web_fetch makes of a response body: HTML becomes Markdown
 * (node-html-markdown, loaded on first use), text, JSON, XML and Markdown
 * pass through, anything else is refused by its type before it is read.
 */

export type ContentKind = "html" | "text";

/** `text/html; charset=x` → "text/html". */
export function mediaType(contentType: string): string {
    return contentType.split(";")[0]!.trim().toLowerCase();
}

function charsetOf(contentType: string): string {
    return /charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1] ?? "utf-8";
}

/** html, text, or undefined for a type web_fetch does not read ("" is sniffed later). */
export function kindOfType(type: string): ContentKind | undefined {
    if (type === "text/html" || type === "application/xhtml+xml") return "html";
    if (type === "" || type.startsWith("text/")) return "text";
    if (/^application\/([\w.-]+\+)?(json|xml)$/.test(type)) return "text";
    if (
        /^application\/(javascript|ecmascript|x-javascript|x-sh|toml|yaml|x-yaml|ld\+json)$/.test(
            type
        )
    ) {
        return "text";
    }
    return undefined;
}

/** The note refusing a binary type, or undefined when the type is read. */
export function refusedTypeNote(contentType: string): string | undefined {
    const type = mediaType(contentType);
    if (kindOfType(type) !== undefined) return undefined;
    return `the response is ${type}, not text; web_fetch reads HTML, text, JSON and Markdown pages only, so nothing was read`;
}

function decode(body: Buffer, contentType: string): string {
    try {
        return new TextDecoder(charsetOf(contentType)).decode(body);
    } catch {
        return new TextDecoder("utf-8").decode(body);
    }
}

/** The HTML converter, loaded with the first page (Node's module cache keeps it after that). */
async function htmlToMarkdown(): Promise<(html: string) => string> {
    const mod = await import("node-html-markdown");
    // Bundled, the CommonJS package's exports arrive as `default` only.
    const { NodeHtmlMarkdown } = (mod as unknown as { default?: typeof mod }).default ?? mod;
    const instance = new NodeHtmlMarkdown({
        ignore: ["script", "style", "noscript", "svg", "iframe"],
    });
    return (html: string) => instance.translate(html);
}

/**
 * The body as text for the model, or a refusal when it turns out to be
 * binary (no content type and NUL bytes at its start).
 */
export async function bodyText(
    body: Buffer,
    contentType: string
): Promise<{ ok: true; text: string; kind: ContentKind } | { ok: false; note: string }> {
    const type = mediaType(contentType);
    let kind = kindOfType(type);
    if (type === "") {
        if (body.subarray(0, 1024).includes(0)) {
            return {
                ok: false,
                note: "the response has no content type and holds binary data; web_fetch reads text pages only",
            };
        }
        if (/^\s*(<!doctype html|<html)/i.test(body.subarray(0, 512).toString("latin1")))
            kind = "html";
    }
    if (kind === undefined) return { ok: false, note: refusedTypeNote(contentType) ?? type };
    const text = decode(body, contentType);
    if (kind === "html") return { ok: true, text: (await htmlToMarkdown())(text), kind };
    return { ok: true, text, kind };
}
