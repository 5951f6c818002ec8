/**
 * Image files attached with `@path` or pasted as a path: read, checked
 * (format by magic bytes, header, size) and turned into image blocks. Too
 * large ones are scaled down (util/image-resize.ts); what cannot be sent is
 * refused with a reason.
 */
import { open, readFile, stat } from "node:fs/promises";
import { basename, isAbsolute, resolve } from "node:path";
import {
    type ImageMediaType,
    MAX_IMAGE_FILE_BYTES,
    formatImageBytes,
    looksLikeSvg,
    sniffImageType,
} from "../util/image-format";
import { describeScaling, fitImage } from "../util/image-resize";

/** The shape of the providers' `ImageBlock` (project/ does not import providers/). */
export interface ImageBlock {
    type: "image";
    mediaType: ImageMediaType;
    /** The bytes as base64. */
    data: string;
    name: string;
    bytes: number;
}

export type ImageLoad =
    /** `scaled` says how the image was scaled down to be sent, when it was. */
    | { kind: "image"; block: ImageBlock; scaled?: string }
    /** The file is an image North will not send; `reason` says why. */
    | { kind: "refused"; reason: string }
    /** Not an image (text, SVG, other binary): the caller treats it as a file. */
    | { kind: "not_image" };

/** Reads the first bytes only, so a huge non-image file costs nothing. */
async function head(path: string, length: number): Promise<Buffer> {
    const handle = await open(path, "r");
    try {
        const buffer = Buffer.alloc(length);
        const { bytesRead } = await handle.read(buffer, 0, length, 0);
        return buffer.subarray(0, bytesRead);
    } finally {
        await handle.close();
    }
}

/** The size of the file at `absPath` when it is a raster image (from its first bytes), else undefined. Throws on read errors. */
async function sniffImageFile(absPath: string): Promise<{ size: number } | undefined> {
    const info = await stat(absPath);
    if (!info.isFile()) return undefined;
    const first = await head(absPath, 1024);
    if (!sniffImageType(first) || looksLikeSvg(first)) return undefined;
    return { size: info.size };
}

/** An image block for the file at `absPath`, a refusal, or `not_image`. Throws on read errors. */
export async function loadImageFile(absPath: string): Promise<ImageLoad> {
    const sniffed = await sniffImageFile(absPath);
    return sniffed ? fitImageFile(absPath, sniffed.size) : { kind: "not_image" };
}

/** Reads an image file of `size` bytes and fits it to the providers' limits, or refuses it. */
async function fitImageFile(absPath: string, size: number): Promise<ImageLoad> {
    if (size > MAX_IMAGE_FILE_BYTES) {
        return {
            kind: "refused",
            reason: `the image is ${formatImageBytes(size)}; North sends images up to ${formatImageBytes(MAX_IMAGE_FILE_BYTES)} on disk`,
        };
    }
    const fit = await fitImage(await readFile(absPath));
    if (!fit.ok) return { kind: "refused", reason: fit.reason };
    const { image } = fit;
    const block: ImageBlock = {
        type: "image",
        mediaType: image.mediaType,
        data: image.bytes.toString("base64"),
        name: basename(absPath),
        bytes: image.bytes.length,
    };
    const scaled = describeScaling(image);
    return scaled ? { kind: "image", block, scaled } : { kind: "image", block };
}

/** `[Image: name.png 120 KB]`, as the composer and transcript show an attached image. */
export function imageLabel(block: Pick<ImageBlock, "name" | "bytes">): string {
    return `[Image: ${block.name} ${formatImageBytes(block.bytes)}]`;
}

export interface AttachedImages {
    images: ImageBlock[];
    /** Paths whose file is an image North refused, with the reason. */
    refused: Array<{ path: string; reason: string }>;
    /** Paths whose image was scaled down to be sent, with how (to tell the user). */
    scaled: Array<{ path: string; note: string }>;
    /** Paths that are images (attached or refused): not to be attached as text. */
    handled: Set<string>;
}

/**
 * Loads the image files among `paths` (relative to `repoRoot`, or absolute).
 * An image the user names is theirs to send even outside the project, but a
 * `Read(...)` deny rule still keeps it out.
 */
export async function loadAttachedImages(
    repoRoot: string,
    paths: readonly string[],
    readDenial?: (absPath: string) => Promise<string | undefined>,
    onDenied?: (path: string, rule: string) => void
): Promise<AttachedImages> {
    const result: AttachedImages = {
        images: [],
        refused: [],
        scaled: [],
        handled: new Set(),
    };
    for (const path of new Set(paths)) {
        const abs = isAbsolute(path) ? path : resolve(repoRoot, path);
        let load: ImageLoad;
        try {
            const sniffed = await sniffImageFile(abs);
            if (!sniffed) continue;
            result.handled.add(path);
            // A denied image is never read past the bytes that tell it is an image.
            const rule = await readDenial?.(abs);
            if (rule !== undefined) {
                onDenied?.(path, rule);
                continue;
            }
            load = await fitImageFile(abs, sniffed.size);
        } catch {
            result.handled.delete(path);
            continue; // missing or unreadable: the text loader reports it
        }
        if (load.kind === "not_image") continue;
        if (load.kind === "refused") result.refused.push({ path, reason: load.reason });
        else {
            result.images.push(load.block);
            if (load.scaled) result.scaled.push({ path, note: load.scaled });
        }
    }
    return result;
}
