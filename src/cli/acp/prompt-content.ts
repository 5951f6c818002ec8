/**
 * A `session/prompt`'s content blocks as North's prompt: text as written,
 * links to files as `@path` mentions the model can read, embedded resources
 * (files the user attached in the editor) as the "Attached Files" block, and
 * images as image blocks after the same checks as the chat's attachments.
 */
import { isAbsolute, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { type AttachedFile, renderAttachedFiles } from "../../project/attachments";
import type { ImageBlock } from "../../providers/types";
import { MAX_IMAGE_FILE_BYTES, formatImageBytes, looksLikeSvg } from "../../util/image-format";
import { fitImage } from "../../util/image-resize";

export interface PromptContent {
    text: string;
    attachedContext?: string;
    attachedImages: ImageBlock[];
    /** What was left out and why, to tell the user. */
    notes: string[];
}

/** A file path from a `file://` URI (or a plain path), relative to the project when inside it. */
export function displayPath(uri: string, repoRoot: string): string {
    let path = uri;
    if (uri.startsWith("file://")) {
        try {
            path = fileURLToPath(uri);
        } catch {
            return uri;
        }
    }
    if (!isAbsolute(path)) return path;
    const inside = relative(repoRoot, path);
    return inside && !inside.startsWith("..") && !isAbsolute(inside) ? inside : path;
}

/** An image the editor sent, or why it is not sent. */
async function imageBlockOf(
    data: string,
    name: string
): Promise<{ block: ImageBlock } | { reason: string }> {
    const bytes = Buffer.from(data, "base64");
    if (bytes.length > MAX_IMAGE_FILE_BYTES) {
        return {
            reason: `${name} is ${formatImageBytes(bytes.length)}; North sends images up to ${formatImageBytes(MAX_IMAGE_FILE_BYTES)}`,
        };
    }
    if (looksLikeSvg(bytes)) return { reason: `${name} is an SVG drawing, not a raster image` };
    const fit = await fitImage(bytes);
    if (!fit.ok) return { reason: `${name}: ${fit.reason}` };
    return {
        block: {
            type: "image",
            mediaType: fit.image.mediaType,
            data: fit.image.bytes.toString("base64"),
            name,
            bytes: fit.image.bytes.length,
        },
    };
}

/**
 * Builds the prompt. `readDenial` gives the `Read(...)` rule that keeps a
 * file out, if any: an attached file a rule denies is not sent, as in the chat.
 */
export async function promptContentOf(
    blocks: readonly ContentBlock[],
    repoRoot: string,
    readDenial: (absPath: string) => Promise<string | undefined>
): Promise<{ ok: true; content: PromptContent } | { ok: false; error: string }> {
    const texts: string[] = [];
    const files: AttachedFile[] = [];
    const images: ImageBlock[] = [];
    const notes: string[] = [];
    for (const block of blocks) {
        switch (block.type) {
            case "text":
                texts.push(block.text);
                break;
            case "resource_link":
                // The model reads it with its tools, under the same rules as any path.
                texts.push(`@${displayPath(block.uri, repoRoot)}`);
                break;
            case "resource": {
                const { resource } = block;
                const path = displayPath(resource.uri, repoRoot);
                if (!("text" in resource)) {
                    notes.push(`${path} was not attached: North takes text files and images only`);
                    break;
                }
                const abs = resource.uri.startsWith("file://") ? displayAbs(resource.uri) : null;
                const rule = abs ? await readDenial(abs) : undefined;
                if (rule !== undefined) {
                    notes.push(`${path} was not attached: the rule ${rule} keeps it from North`);
                    break;
                }
                files.push({ path, text: resource.text, outline: [] });
                break;
            }
            case "image": {
                const name = block.uri ? displayPath(block.uri, repoRoot) : "image";
                const image = await imageBlockOf(block.data, name);
                if ("reason" in image) notes.push(`the image was not sent: ${image.reason}`);
                else images.push(image.block);
                break;
            }
            case "audio":
                return {
                    ok: false,
                    error: "North takes no audio (its prompt capabilities say so)",
                };
        }
    }
    const attached = renderAttachedFiles(files);
    return {
        ok: true,
        content: {
            text: texts.join("\n\n").trim(),
            ...(attached ? { attachedContext: attached } : {}),
            attachedImages: images,
            notes,
        },
    };
}

function displayAbs(uri: string): string | null {
    try {
        return fileURLToPath(uri);
    } catch {
        return null;
    }
}
