/**
 * Turns an MCP `tools/call` result into bounded text for the model: text
 * blocks verbatim, embedded text resources with their URI, and one
 * placeholder line for images, audio and binary resources.
 */
import { MAX_MCP_RESULT_BYTES } from "../limits";

/** Default cap on one result's text, in UTF-8 bytes. */

export interface McpResultText {
    text: string;
    /** True when `text` was cut to the byte cap. */
    truncated: boolean;
    /** Size of the full text before cutting, in UTF-8 bytes. */
    totalBytes: number;
}

type Block = Record<string, unknown>;

function str(value: unknown): string | undefined {
    return typeof value === "string" ? value : undefined;
}

function formatSize(bytes: number): string {
    return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}

/** Approximate decoded size of base64 data. */
function base64Bytes(data: string | undefined): number {
    if (!data) return 0;
    const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
    return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function blockText(block: Block): string {
    switch (block.type) {
        case "text":
            return str(block.text) ?? "";
        case "image":
        case "audio": {
            const mime = str(block.mimeType) ?? "unknown type";
            const size = formatSize(base64Bytes(str(block.data)));
            return `[${block.type}: ${mime}, ${size}; not shown to the model]`;
        }
        case "resource": {
            const resource = (block.resource ?? {}) as Block;
            const uri = str(resource.uri) ?? "(no uri)";
            const text = str(resource.text);
            if (text !== undefined) return `[resource ${uri}]\n${text}`;
            const mime = str(resource.mimeType) ?? "binary";
            const size = formatSize(base64Bytes(str(resource.blob)));
            return `[resource ${uri}: ${mime}, ${size}; not shown to the model]`;
        }
        case "resource_link": {
            const uri = str(block.uri) ?? "(no uri)";
            const name = str(block.name);
            const description = str(block.description);
            return `[resource link ${uri}${name ? ` "${name}"` : ""}${description ? `: ${description}` : ""}]`;
        }
        default:
            return `[content of type ${JSON.stringify(block.type)}; not shown to the model]`;
    }
}

/** Cuts `text` to at most `maxBytes` UTF-8 bytes without splitting a character. */
export function truncateUtf8(text: string, maxBytes: number): string {
    const buffer = Buffer.from(text, "utf8");
    if (buffer.length <= maxBytes) return text;
    let end = maxBytes;
    // Step back over continuation bytes (10xxxxxx) so no character is split.
    while (end > 0 && ((buffer[end] ?? 0) & 0xc0) === 0x80) end--;
    return buffer.subarray(0, end).toString("utf8");
}

/**
 * The model-facing text of a result. Falls back to `structuredContent` (and
 * the legacy `toolResult`) as JSON when there are no content blocks.
 */
export function mcpResultToText(
    result: Record<string, unknown>,
    maxBytes = MAX_MCP_RESULT_BYTES
): McpResultText {
    const blocks = Array.isArray(result.content) ? (result.content as Block[]) : [];
    let text = blocks.map(blockText).join("\n");
    if (blocks.length === 0) {
        const structured = result.structuredContent ?? result.toolResult;
        if (structured !== undefined) text = JSON.stringify(structured, null, 2) ?? "";
    }
    const totalBytes = Buffer.byteLength(text, "utf8");
    if (totalBytes <= maxBytes) return { text, truncated: false, totalBytes };
    const head = truncateUtf8(text, maxBytes);
    return {
        text:
            `${head}\n[North: this MCP result was ${formatSize(totalBytes)}; only the first ` +
            `${formatSize(maxBytes)} is shown. Call the tool again asking for less ` +
            "(a narrower query, a page, or a limit) if you need the rest.]",
        truncated: true,
        totalBytes,
    };
}
