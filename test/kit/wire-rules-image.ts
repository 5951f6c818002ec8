/**
 * What a fake API can tell about a base64 picture without decoding it: its real
 * format from the magic bytes and its size from the header, as the providers
 * check a declared media type and the pixel limits before reading the picture.
 */

export type ImageFormat = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

export interface ImageFacts {
    /** The format the bytes are in, or undefined when they are none of the four. */
    format: ImageFormat | undefined;
    /** Pixel size when the header tells it (PNG, GIF, JPEG, WebP). */
    width?: number;
    height?: number;
    /** Decoded size in bytes. */
    bytes: number;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Whether the text is strict base64 (what the APIs decode). */
export function isBase64(text: string): boolean {
    return text.length % 4 === 0 && BASE64.test(text);
}

export function imageFacts(base64: string): ImageFacts {
    const bytes = Buffer.from(base64, "base64");
    const facts: ImageFacts = { format: formatOf(bytes), bytes: bytes.length };
    const size = facts.format ? sizeOf(facts.format, bytes) : undefined;
    if (size) {
        facts.width = size.width;
        facts.height = size.height;
    }
    return facts;
}

function formatOf(b: Buffer): ImageFormat | undefined {
    if (b.length >= 8 && b.readUInt32BE(0) === 0x89504e47) return "image/png";
    if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
    if (b.length >= 6 && b.toString("latin1", 0, 4) === "GIF8") return "image/gif";
    if (b.length >= 12 && b.toString("latin1", 0, 4) === "RIFF") {
        if (b.toString("latin1", 8, 12) === "WEBP") return "image/webp";
    }
    return undefined;
}

function sizeOf(format: ImageFormat, b: Buffer): { width: number; height: number } | undefined {
    switch (format) {
        case "image/png":
            return b.length >= 24
                ? { width: b.readUInt32BE(16), height: b.readUInt32BE(20) }
                : undefined;
        case "image/gif":
            return b.length >= 10
                ? { width: b.readUInt16LE(6), height: b.readUInt16LE(8) }
                : undefined;
        case "image/jpeg":
            return jpegSize(b);
        case "image/webp":
            return webpSize(b);
    }
}

/** The size in the first start-of-frame marker. */
function jpegSize(b: Buffer): { width: number; height: number } | undefined {
    let at = 2;
    while (at + 9 < b.length) {
        if (b[at] !== 0xff) return undefined;
        const marker = b[at + 1] ?? 0;
        const length = b.readUInt16BE(at + 2);
        const isFrame = marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker);
        if (isFrame) return { height: b.readUInt16BE(at + 5), width: b.readUInt16BE(at + 7) };
        at += 2 + length;
    }
    return undefined;
}

function webpSize(b: Buffer): { width: number; height: number } | undefined {
    const chunk = b.toString("latin1", 12, 16);
    if (chunk === "VP8 " && b.length >= 30) {
        return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
    }
    if (chunk === "VP8L" && b.length >= 25) {
        const bits = b.readUInt32LE(21);
        return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
    }
    if (chunk === "VP8X" && b.length >= 30) {
        return { width: b.readUIntLE(24, 3) + 1, height: b.readUIntLE(27, 3) + 1 };
    }
    return undefined;
}
