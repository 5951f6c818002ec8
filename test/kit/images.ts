/** Tiny, valid image files built in memory (headers real enough for North's checks). */
import { deflateSync } from "node:zlib";

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
});

function crc32(bytes: Buffer): number {
    let crc = 0xffffffff;
    for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
    return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
}

/** A grey RGB PNG of `width`×`height` (pixel rows are only written for small images). */
export function pngImage(width = 2, height = 2): Buffer {
    const header = Buffer.alloc(13);
    header.writeUInt32BE(width, 0);
    header.writeUInt32BE(height, 4);
    header.set([8, 2, 0, 0, 0], 8);
    const rows =
        width * height <= 4096 ? Buffer.alloc((width * 3 + 1) * height, 0x80) : Buffer.alloc(1);
    return Buffer.concat([
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
        chunk("IHDR", header),
        chunk("IDAT", deflateSync(rows)),
        chunk("IEND", Buffer.alloc(0)),
    ]);
}

export function gifImage(width: number, height: number): Buffer {
    const head = Buffer.alloc(13);
    head.write("GIF89a", 0, "latin1");
    head.writeUInt16LE(width, 6);
    head.writeUInt16LE(height, 8);
    return Buffer.concat([head, Buffer.from([0x3b])]);
}

/** A WebP with an extended (VP8X) header. */
export function webpImage(width: number, height: number): Buffer {
    const out = Buffer.alloc(30);
    out.write("RIFF", 0, "latin1");
    out.writeUInt32LE(22, 4);
    out.write("WEBPVP8X", 8, "latin1");
    out.writeUInt32LE(10, 16);
    out.writeUIntLE(width - 1, 24, 3);
    out.writeUIntLE(height - 1, 27, 3);
    return out;
}

/** SOI, an APP0 segment, then a baseline frame header (SOF0). */
export function jpegImage(width: number, height: number): Buffer {
    const app0 = Buffer.from([
        0xff,
        0xe0,
        0x00,
        0x10,
        ...Buffer.from("JFIF\0", "latin1"),
        1,
        1,
        0,
        0,
        1,
        0,
        1,
        0,
        0,
    ]);
    const sof = Buffer.alloc(19);
    sof.set([0xff, 0xc0, 0x00, 0x11, 8]);
    sof.writeUInt16BE(height, 5);
    sof.writeUInt16BE(width, 7);
    sof.set([3, 1, 0x11, 0, 2, 0x11, 1, 3, 0x11, 1], 9);
    return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof, Buffer.from([0xff, 0xd9])]);
}
