/** Real, decodable pictures built with the same codecs North scales images with. */
import jpeg from "jpeg-js";
import pngjs from "pngjs";

/** RGBA pixels of a smooth colour gradient with a little texture, like a photo. */
export function gradientPixels(width: number, height: number, alpha = 255): Buffer {
    const data = Buffer.alloc(width * height * 4);
    for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
            const at = (y * width + x) * 4;
            data[at] = Math.round((x / width) * 255);
            data[at + 1] = Math.round((y / height) * 255);
            data[at + 2] = (x * 7 + y * 13) % 64;
            data[at + 3] = alpha;
        }
    }
    return data;
}

export function encodePng(width: number, height: number, alpha = 255): Buffer {
    const png = new pngjs.PNG({ width, height });
    png.data = gradientPixels(width, height, alpha);
    return pngjs.PNG.sync.write(png, { colorType: alpha === 255 ? 2 : 6 });
}

export function encodeJpeg(width: number, height: number): Buffer {
    return jpeg.encode({ width, height, data: gradientPixels(width, height) }, 90).data;
}

export function decodePng(bytes: Buffer): { width: number; height: number; data: Buffer } {
    return pngjs.PNG.sync.read(bytes);
}

export function decodeJpeg(bytes: Buffer): { width: number; height: number; data: Uint8Array } {
    return jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true });
}
