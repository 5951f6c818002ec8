/**
 * Decoding, area-averaged scaling and re-encoding of PNG, JPEG and GIF in
 * pure JavaScript. Loaded only when an image must be scaled down, so the
 * codecs stay in their own chunk (see image-resize.ts).
 */
import jpeg from "jpeg-js";
import omggif from "omggif";
import pngjs from "pngjs";
import { inflateSync } from "node:zlib";

/** 8-bit RGBA pixels, row by row. */
export interface RgbaImage {
    width: number;
    height: number;
    data: Uint8Array;
}

export type DecodableType = "image/png" | "image/jpeg" | "image/gif";

const PNG_CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/**
 * Inflates the PNG's pixel data with zlib's public API and checks it is all
 * there. pngjs's sync reader drives zlib's private handle for non-interlaced
 * images, and once bundled it let a cut-short body through as blank pixels.
 */
function assertPngBodyComplete(bytes: Buffer): void {
    const width = bytes.readUInt32BE(16);
    const height = bytes.readUInt32BE(20);
    const [depth, colorType, , , interlace] = bytes.subarray(24, 29);
    const channels = PNG_CHANNELS[colorType!];
    if (!channels) throw new Error(`unknown colour type ${colorType}`);
    const idat: Buffer[] = [];
    for (let at = 8; at + 8 <= bytes.length;) {
        const length = bytes.readUInt32BE(at);
        const type = bytes.toString("latin1", at + 4, at + 8);
        if (at + 12 + length > bytes.length) throw new Error(`the ${type} chunk is cut short`);
        if (type === "IDAT") idat.push(bytes.subarray(at + 8, at + 8 + length));
        if (type === "IEND") break;
        at += 12 + length;
    }
    if (idat.length === 0) throw new Error("no image data (IDAT)");
    // Interlaced images are inflated by pngjs with the public zlib.inflateSync, which checks.
    if (interlace !== 0) return;
    const expected = (Math.ceil((width * channels * depth!) / 8) + 1) * height;
    const inflated = inflateSync(Buffer.concat(idat), { maxOutputLength: expected });
    if (inflated.length < expected) throw new Error("the image data is cut short");
}

/** Decodes PNG, JPEG or a GIF's first frame to RGBA. Throws on a corrupt body. */
export function decodeRgba(bytes: Buffer, type: DecodableType, maxMegapixels: number): RgbaImage {
    if (type === "image/png") {
        assertPngBodyComplete(bytes);
        const png = pngjs.PNG.sync.read(bytes);
        return { width: png.width, height: png.height, data: png.data };
    }
    if (type === "image/jpeg") {
        const decoded = jpeg.decode(bytes, {
            useTArray: true,
            formatAsRGBA: true,
            maxResolutionInMP: maxMegapixels,
            maxMemoryUsageInMB: Math.ceil(maxMegapixels * 4 * 2),
        });
        return { width: decoded.width, height: decoded.height, data: decoded.data };
    }
    const reader = new omggif.GifReader(bytes);
    const data = new Uint8Array(reader.width * reader.height * 4);
    reader.decodeAndBlitFrameRGBA(0, data);
    return { width: reader.width, height: reader.height, data };
}

/** True when some pixel is not fully opaque. */
export function hasTransparency(image: RgbaImage): boolean {
    for (let i = 3; i < image.data.length; i += 4) if (image.data[i]! < 255) return true;
    return false;
}

/**
 * Weights of each source pixel in each destination pixel along one axis:
 * the share of the destination pixel's footprint the source pixel covers.
 */
function areaWeights(
    sourceSize: number,
    targetSize: number
): Array<{ first: number; weights: number[] }> {
    const scale = sourceSize / targetSize;
    const spans: Array<{ first: number; weights: number[] }> = [];
    for (let t = 0; t < targetSize; t++) {
        const start = t * scale;
        const end = Math.min(sourceSize, start + scale);
        const first = Math.floor(start);
        const weights: number[] = [];
        for (let s = first; s < end; s++) {
            const covered = Math.min(end, s + 1) - Math.max(start, s);
            weights.push(covered / scale);
        }
        spans.push({ first, weights });
    }
    return spans;
}

/**
 * Shrinks by area averaging (each target pixel is the mean of the source
 * pixels under it), one axis at a time. Colour is weighted by alpha so
 * transparent pixels do not darken the edges they touch.
 */
export function downscaleRgba(source: RgbaImage, width: number, height: number): RgbaImage {
    const columns = areaWeights(source.width, width);
    const rows = areaWeights(source.height, height);
    // Horizontal pass into floats: premultiplied RGB and alpha.
    const wide = new Float32Array(width * source.height * 4);
    for (let y = 0; y < source.height; y++) {
        const sourceRow = y * source.width * 4;
        for (let x = 0; x < width; x++) {
            const { first, weights } = columns[x]!;
            let r = 0;
            let g = 0;
            let b = 0;
            let a = 0;
            for (let k = 0; k < weights.length; k++) {
                const at = sourceRow + (first + k) * 4;
                const alpha = source.data[at + 3]! * weights[k]!;
                r += source.data[at]! * alpha;
                g += source.data[at + 1]! * alpha;
                b += source.data[at + 2]! * alpha;
                a += alpha;
            }
            const out = (y * width + x) * 4;
            wide[out] = r;
            wide[out + 1] = g;
            wide[out + 2] = b;
            wide[out + 3] = a;
        }
    }
    const data = new Uint8Array(width * height * 4);
    for (let y = 0; y < height; y++) {
        const { first, weights } = rows[y]!;
        for (let x = 0; x < width; x++) {
            let r = 0;
            let g = 0;
            let b = 0;
            let a = 0;
            for (let k = 0; k < weights.length; k++) {
                const at = ((first + k) * width + x) * 4;
                const weight = weights[k]!;
                r += wide[at]! * weight;
                g += wide[at + 1]! * weight;
                b += wide[at + 2]! * weight;
                a += wide[at + 3]! * weight;
            }
            const out = (y * width + x) * 4;
            if (a > 0) {
                data[out] = Math.round(r / a);
                data[out + 1] = Math.round(g / a);
                data[out + 2] = Math.round(b / a);
            }
            data[out + 3] = Math.round(a);
        }
    }
    return { width, height, data };
}

/** PNG (keeps transparency) or JPEG at `quality` (1–100). */
export function encodeRgba(image: RgbaImage, as: "image/png" | "image/jpeg", quality = 85): Buffer {
    if (as === "image/jpeg") {
        return jpeg.encode({ width: image.width, height: image.height, data: image.data }, quality)
            .data;
    }
    const png = new pngjs.PNG({ width: image.width, height: image.height });
    png.data = Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength);
    return pngjs.PNG.sync.write(png, { colorType: 6 });
}

/** What a scaling job needs; plain data, so it can cross to a worker thread. */
export interface ScaleJob {
    bytes: Uint8Array;
    mediaType: DecodableType;
    maxMegapixels: number;
    /** The first size tried; each retry shrinks it by 0.7 until the encoding fits `maxBytes`. */
    target: { width: number; height: number };
    maxBytes: number;
}

export type ScaleOutcome =
    | {
          ok: true;
          mediaType: "image/png" | "image/jpeg";
          bytes: Uint8Array;
          width: number;
          height: number;
      }
    | { ok: false; corrupt: string };

/** Decodes, scales and re-encodes (JPEG, or PNG when transparent) until the result fits. */
export function scaleImage(job: ScaleJob): ScaleOutcome {
    let decoded: RgbaImage;
    try {
        const bytes = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength);
        decoded = decodeRgba(bytes, job.mediaType, job.maxMegapixels);
    } catch (error) {
        return { ok: false, corrupt: error instanceof Error ? error.message : String(error) };
    }
    const mediaType = hasTransparency(decoded) ? "image/png" : "image/jpeg";
    let target = job.target;
    // A noisy picture can still be too large as PNG: shrink further until it fits.
    for (;;) {
        const encoded = encodeRgba(downscaleRgba(decoded, target.width, target.height), mediaType);
        if (encoded.length <= job.maxBytes || target.width * target.height <= 1) {
            return { ok: true, mediaType, bytes: encoded, ...target };
        }
        target = {
            width: Math.max(1, Math.round(target.width * 0.7)),
            height: Math.max(1, Math.round(target.height * 0.7)),
        };
    }
}
