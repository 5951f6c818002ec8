/**
 * Makes an image file sendable: small enough images go as they are; larger
 * ones are decoded, scaled down by area averaging and re-encoded (JPEG, or
 * PNG when they have transparency). Anthropic scales anything over 1568 px
 * on the long side or ~1.15 megapixels down on its side, which costs time
 * to first token, so North sends that size itself.
 */
import {
    type ImageInfo,
    type ImageMediaType,
    MAX_IMAGE_SEND_BYTES,
    formatImageBytes,
    readImageInfo,
    withinProviderLimits,
} from "./image-format";
import type { ScaleJob, ScaleOutcome } from "./image-resize-codecs";
import { fileBesideBundle } from "./beside-bundle";

/** Images whose long side is at most this go unchanged (when within the providers' limits). */
export const RESIZE_ABOVE_SIDE_PX = 2000;
/** Anthropic's largest size that it does not scale down again. */
export const TARGET_LONG_SIDE_PX = 1568;
export const TARGET_PIXELS = 1_150_000;
/** Decoding needs 4 bytes a pixel (and a float copy while scaling): larger images are refused from their header. */
export const MAX_DECODE_MEGAPIXELS = 50;

export interface FittedImage {
    mediaType: ImageMediaType;
    bytes: Buffer;
    width: number;
    height: number;
    /** Set when the image was scaled down: what it was. */
    original?: { mediaType: ImageMediaType; width: number; height: number; bytes: number };
}

export type FitResult = { ok: true; image: FittedImage } | { ok: false; reason: string };

/** The size to scale to, keeping the aspect ratio. */
export function targetSize(width: number, height: number): { width: number; height: number } {
    const scale = Math.min(
        1,
        TARGET_LONG_SIDE_PX / Math.max(width, height),
        Math.sqrt(TARGET_PIXELS / (width * height))
    );
    return {
        width: Math.max(1, Math.round(width * scale)),
        height: Math.max(1, Math.round(height * scale)),
    };
}

/** "scaled down from 4000×3000 PNG (5.1 MB) to 1238×929 JPEG (310 KB)". */
export function describeScaling(image: FittedImage): string | undefined {
    const from = image.original;
    if (!from) return undefined;
    const kind = (type: ImageMediaType) => type.slice("image/".length).toUpperCase();
    return (
        `scaled down from ${from.width}×${from.height} ${kind(from.mediaType)} (${formatImageBytes(from.bytes)}) ` +
        `to ${image.width}×${image.height} ${kind(image.mediaType)} (${formatImageBytes(image.bytes.length)})`
    );
}

function unchanged(bytes: Buffer, info: ImageInfo): FitResult {
    return { ok: true, image: { ...info, bytes } };
}

/**
 * The image to send for `bytes`, scaled down when it is over the providers'
 * limits or larger than they use, or the reason it cannot be sent.
 */
export async function fitImage(bytes: Buffer): Promise<FitResult> {
    const read = readImageInfo(bytes);
    if (!read.ok) return read;
    const info = read.info;
    const withinLimits = withinProviderLimits(info, bytes.length);
    if (withinLimits && Math.max(info.width, info.height) <= RESIZE_ABOVE_SIDE_PX) {
        return unchanged(bytes, info);
    }
    const size = `${info.width}×${info.height} px`;
    if (info.mediaType === "image/webp") {
        // No pure-JS WebP decoder is small and maintained enough to bundle; the provider scales it.
        if (withinLimits) return unchanged(bytes, info);
        return {
            ok: false,
            reason: `the WebP image is ${size}, ${formatImageBytes(bytes.length)}; models take at most 8000 px a side and ${formatImageBytes(MAX_IMAGE_SEND_BYTES)}, and North cannot scale WebP down (save it as PNG or JPEG, and North will)`,
        };
    }
    const megapixels = (info.width * info.height) / 1_000_000;
    if (megapixels > MAX_DECODE_MEGAPIXELS) {
        if (withinLimits) return unchanged(bytes, info);
        return {
            ok: false,
            reason: `the image is ${size} (${Math.round(megapixels)} megapixels); North scales images down up to ${MAX_DECODE_MEGAPIXELS} megapixels`,
        };
    }
    const outcome = await scaleOffThread({
        bytes,
        mediaType: info.mediaType,
        maxMegapixels: MAX_DECODE_MEGAPIXELS,
        target: targetSize(info.width, info.height),
        maxBytes: MAX_IMAGE_SEND_BYTES,
    });
    if (!outcome.ok) {
        return {
            ok: false,
            reason: `the ${info.mediaType.slice(6).toUpperCase()} could not be decoded (the file is corrupt): ${outcome.corrupt}`,
        };
    }
    return {
        ok: true,
        image: {
            mediaType: outcome.mediaType,
            bytes: Buffer.from(
                outcome.bytes.buffer,
                outcome.bytes.byteOffset,
                outcome.bytes.byteLength
            ),
            width: outcome.width,
            height: outcome.height,
            original: { ...info, bytes: bytes.length },
        },
    };
}

/** The bundled worker entry beside the bundle; absent when running from source. */
function workerEntry(): string | undefined {
    return fileBesideBundle("image-resize-worker.js");
}

/**
 * Scales in a worker thread (seconds of CPU for a 12-megapixel photo would
 * otherwise stop the chat from drawing); in this thread when there is no
 * bundled worker (tests from source) or it cannot start.
 */
async function scaleOffThread(job: ScaleJob): Promise<ScaleOutcome> {
    const entry = workerEntry();
    if (entry) {
        // Imported here: worker_threads costs every run's start-up, and few runs scale an image.
        const { Worker } = await import("node:worker_threads");
        const outcome = await new Promise<ScaleOutcome | undefined>((resolve) => {
            const worker = new Worker(entry);
            const finish = (value: ScaleOutcome | undefined) => {
                resolve(value);
                void worker.terminate();
            };
            worker.once("message", (value: ScaleOutcome) => finish(value));
            worker.once("error", () => finish(undefined));
            worker.once("exit", () => finish(undefined));
            worker.postMessage(job);
        });
        if (outcome) return outcome;
    }
    const codecs = await import("./image-resize-codecs");
    return codecs.scaleImage(job);
}
