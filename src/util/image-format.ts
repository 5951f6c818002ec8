/**
 * Raster images North can send to a model, recognised by their bytes (never
 * by the file's extension) and checked against the providers' limits.
 */

export type ImageMediaType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** Files above this are refused before they are read. */
export const MAX_IMAGE_FILE_BYTES = 20 * 1024 * 1024;
/** Anthropic refuses an image whose base64 text passes 5 MB; the one cap for every provider, so a model switch never strands an image. */
export const MAX_IMAGE_BASE64_CHARS = 5 * 1024 * 1024;
/** Raw bytes whose base64 text fits `MAX_IMAGE_BASE64_CHARS`. */
export const MAX_IMAGE_SEND_BYTES = Math.floor(MAX_IMAGE_BASE64_CHARS / 4) * 3;
/** Anthropic's largest side, in pixels. */
export const MAX_IMAGE_SIDE_PX = 8000;

export interface ImageInfo {
    mediaType: ImageMediaType;
    width: number;
    height: number;
}

export type ImageCheck = { ok: true; info: ImageInfo } | { ok: false; reason: string };

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function startsWith(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
    if (bytes.length < at + prefix.length) return false;
    return prefix.every((b, i) => bytes[at + i] === b);
}

function ascii(bytes: Uint8Array, at: number, length: number): string {
    return Buffer.from(bytes.subarray(at, at + length)).toString("latin1");
}

/** The raster format the bytes start with, or undefined. */
export function sniffImageType(bytes: Uint8Array): ImageMediaType | undefined {
    if (startsWith(bytes, PNG_SIGNATURE)) return "image/png";
    if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
    const head = ascii(bytes, 0, 6);
    if (head === "GIF87a" || head === "GIF89a") return "image/gif";
    if (ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 4) === "WEBP") return "image/webp";
    return undefined;
}

/** True for SVG text (an XML vector image: read as text, never sent as an image). */
export function looksLikeSvg(bytes: Uint8Array): boolean {
    const head = Buffer.from(bytes.subarray(0, 1024))
        .toString("utf8")
        .replace(/^\uFEFF/, "")
        .trimStart();
    return (head.startsWith("<?xml") || head.startsWith("<svg")) && head.includes("<svg");
}

/** The CRC-32 table (2,048 steps, built once at load: far below a millisecond). */
const CRC_TABLE: Readonly<Uint32Array> = (() => {
    const table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
        let c = n;
        for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
        table[n] = c >>> 0;
    }
    return table;
})();

function crc32(bytes: Uint8Array): number {
    let crc = 0xffffffff;
    for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
    return (crc ^ 0xffffffff) >>> 0;
}

function pngSize(bytes: Uint8Array): { width: number; height: number } | string {
    const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (bytes.length < 33) return "the PNG is cut short before its header ends";
    if (view.readUInt32BE(8) !== 13 || ascii(bytes, 12, 4) !== "IHDR") {
        return "the PNG has no IHDR header chunk";
    }
    if (crc32(bytes.subarray(12, 29)) !== view.readUInt32BE(29)) {
        return "the PNG header fails its CRC check (the file is corrupt)";
    }
    return { width: view.readUInt32BE(16), height: view.readUInt32BE(20) };
}

/** SOFn markers carry the frame size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but do not. */
function jpegSize(bytes: Uint8Array): { width: number; height: number } | string {
    const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let at = 2;
    while (at + 4 <= bytes.length) {
        if (bytes[at] !== 0xff) return "the JPEG's segments are corrupt";
        const marker = bytes[at + 1]!;
        if (marker === 0xff) {
            at++;
            continue;
        }
        if (marker === 0xd9 || marker === 0xda) break;
        const length = view.readUInt16BE(at + 2);
        const isFrame =
            marker >= 0xc0 &&
            marker <= 0xcf &&
            marker !== 0xc4 &&
            marker !== 0xc8 &&
            marker !== 0xcc;
        if (isFrame) {
            if (at + 9 > bytes.length) break;
            return { height: view.readUInt16BE(at + 5), width: view.readUInt16BE(at + 7) };
        }
        at += 2 + length;
    }
    return "the JPEG has no frame header (the file is corrupt or cut short)";
}

function gifSize(bytes: Uint8Array): { width: number; height: number } | string {
    if (bytes.length < 10) return "the GIF is cut short before its header ends";
    const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return { width: view.readUInt16LE(6), height: view.readUInt16LE(8) };
}

function webpSize(bytes: Uint8Array): { width: number; height: number } | string {
    const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const chunk = ascii(bytes, 12, 4);
    if (chunk === "VP8X" && bytes.length >= 30) {
        return { width: view.readUIntLE(24, 3) + 1, height: view.readUIntLE(27, 3) + 1 };
    }
    if (chunk === "VP8L" && bytes.length >= 25 && bytes[20] === 0x2f) {
        const bits = view.readUInt32LE(21);
        return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
    }
    if (chunk === "VP8 " && bytes.length >= 30 && startsWith(bytes, [0x9d, 0x01, 0x2a], 23)) {
        return { width: view.readUInt16LE(26) & 0x3fff, height: view.readUInt16LE(28) & 0x3fff };
    }
    return "the WebP has no VP8, VP8L or VP8X header (the file is corrupt or cut short)";
}

/** The format and pixel size from the header, or why the bytes are no sound image. Limits are not checked. */
export function readImageInfo(bytes: Uint8Array): ImageCheck {
    const mediaType = sniffImageType(bytes);
    if (!mediaType) {
        if (looksLikeSvg(bytes)) {
            return {
                ok: false,
                reason: "SVG is a vector image, not a raster one: models take PNG, JPEG, GIF or WebP (read the SVG as text instead)",
            };
        }
        return { ok: false, reason: "not a PNG, JPEG, GIF or WebP image" };
    }
    const size =
        mediaType === "image/png"
            ? pngSize(bytes)
            : mediaType === "image/jpeg"
              ? jpegSize(bytes)
              : mediaType === "image/gif"
                ? gifSize(bytes)
                : webpSize(bytes);
    if (typeof size === "string") return { ok: false, reason: size };
    if (size.width === 0 || size.height === 0) {
        return {
            ok: false,
            reason: `the image header gives a size of ${size.width}×${size.height} px`,
        };
    }
    return { ok: true, info: { mediaType, ...size } };
}

/** True when the providers take the image as it is: no side over 8000 px, base64 within 5 MB. */
export function withinProviderLimits(info: ImageInfo, byteLength: number): boolean {
    return (
        info.width <= MAX_IMAGE_SIDE_PX &&
        info.height <= MAX_IMAGE_SIDE_PX &&
        byteLength <= MAX_IMAGE_SEND_BYTES
    );
}

/**
 * Checks that the bytes are a PNG, JPEG, GIF or WebP whose header is sound
 * and whose size the providers accept. The reason says what to do instead.
 */
export function checkImage(bytes: Uint8Array): ImageCheck {
    const read = readImageInfo(bytes);
    if (!read.ok) return read;
    const size = read.info;
    if (size.width > MAX_IMAGE_SIDE_PX || size.height > MAX_IMAGE_SIDE_PX) {
        return {
            ok: false,
            reason: `the image is ${size.width}×${size.height} px; models take at most ${MAX_IMAGE_SIDE_PX} px a side (scale it down first)`,
        };
    }
    if (bytes.length > MAX_IMAGE_SEND_BYTES) {
        return {
            ok: false,
            reason: `the image is ${formatImageBytes(bytes.length)}; models take at most ${formatImageBytes(MAX_IMAGE_SEND_BYTES)} (scale it down or save it as JPEG first)`,
        };
    }
    return read;
}

/** "120 KB", "3.4 MB". */
export function formatImageBytes(bytes: number): string {
    if (bytes < 1024 * 1024) return `${Math.max(1, Math.round(bytes / 1024))} KB`;
    return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
