import omggif from "omggif";
import { describe, expect, it } from "vitest";
import { downscaleRgba } from "../../src/util/image-resize-codecs";
import { fitImage, targetSize } from "../../src/util/image-resize";
import { decodeJpeg, decodePng, encodeJpeg, encodePng } from "../kit/image-pixels";
import { jpegImage, pngImage, webpImage } from "../kit/images";

const SLOW = 120_000;

describe("target size", () => {
    it("keeps the aspect ratio within 1568 px and ~1.15 megapixels, never enlarging", () => {
        expect(targetSize(4000, 3000)).toEqual({ width: 1238, height: 929 });
        expect(targetSize(6000, 1000)).toEqual({ width: 1568, height: 261 });
        expect(targetSize(800, 600)).toEqual({ width: 800, height: 600 });
    });
});

describe("area-averaged downscaling", () => {
    it("turns a one-pixel checkerboard into even grey, where nearest-neighbour would keep black or white", () => {
        const data = new Uint8Array(4 * 4 * 4);
        for (let i = 0; i < 16; i++) {
            const v = (Math.floor(i / 4) + (i % 4)) % 2 ? 255 : 0;
            data.set([v, v, v, 255], i * 4);
        }
        const out = downscaleRgba({ width: 4, height: 4, data }, 2, 2);
        for (let i = 0; i < 4; i++)
            expect([...out.data.subarray(i * 4, i * 4 + 4)]).toEqual([128, 128, 128, 255]);
    });

    it("does not darken colour next to transparent pixels", () => {
        const data = new Uint8Array([255, 0, 0, 255, 0, 0, 0, 0]);
        const out = downscaleRgba({ width: 2, height: 1, data }, 1, 1);
        expect([...out.data]).toEqual([255, 0, 0, 128]);
    });
});

describe("fitting an image to send", () => {
    it("sends a small image unchanged", async () => {
        const png = encodePng(640, 480);
        const fit = await fitImage(png);
        expect(fit).toMatchObject({
            ok: true,
            image: { mediaType: "image/png", width: 640, height: 480 },
        });
        if (fit.ok) {
            expect(fit.image.bytes.equals(png)).toBe(true);
            expect(fit.image.original).toBeUndefined();
        }
    });

    it(
        "scales a large opaque PNG down to a JPEG of the target size, keeping its colours",
        async () => {
            const png = encodePng(2400, 1800);
            const fit = await fitImage(png);
            expect(fit.ok).toBe(true);
            if (!fit.ok) return;
            expect(fit.image).toMatchObject({
                mediaType: "image/jpeg",
                width: 1238,
                height: 929,
                original: { mediaType: "image/png", width: 2400, height: 1800, bytes: png.length },
            });
            const decoded = decodeJpeg(fit.image.bytes);
            expect([decoded.width, decoded.height]).toEqual([1238, 929]);
            // The gradient's red runs 0 → 255 left to right: the middle stays near half.
            const middle = (464 * 1238 + 619) * 4;
            expect(decoded.data[middle]).toBeGreaterThan(110);
            expect(decoded.data[middle]).toBeLessThan(145);
        },
        SLOW
    );

    it(
        "keeps a large PNG with transparency a PNG, alpha intact",
        async () => {
            const fit = await fitImage(encodePng(2400, 1800, 100));
            expect(fit).toMatchObject({
                ok: true,
                image: { mediaType: "image/png", width: 1238, height: 929 },
            });
            if (!fit.ok) return;
            const decoded = decodePng(fit.image.bytes);
            expect([decoded.width, decoded.height]).toEqual([1238, 929]);
            expect(decoded.data[3]).toBe(100);
        },
        SLOW
    );

    it(
        "scales a large JPEG down",
        async () => {
            const fit = await fitImage(encodeJpeg(3000, 2000));
            expect(fit).toMatchObject({ ok: true, image: { mediaType: "image/jpeg" } });
            if (fit.ok)
                expect(Math.max(fit.image.width, fit.image.height)).toBeLessThanOrEqual(1568);
        },
        SLOW
    );

    it(
        "scales a large GIF's first frame down, its transparency kept as PNG",
        async () => {
            const [width, height] = [2400, 1800];
            const out = Buffer.alloc(width * height + 4096);
            const writer = new omggif.GifWriter(out, width, height, {
                palette: [0xff0000, 0x0000ff],
            });
            const indices = new Array<number>(width * height);
            for (let i = 0; i < indices.length; i++) indices[i] = i % width < width / 2 ? 0 : 1;
            writer.addFrame(0, 0, width, height, indices, { transparent: 1 });
            const fit = await fitImage(out.subarray(0, writer.end()));
            expect(fit).toMatchObject({
                ok: true,
                image: {
                    mediaType: "image/png",
                    width: 1238,
                    height: 929,
                    original: { mediaType: "image/gif" },
                },
            });
            if (!fit.ok) return;
            const decoded = decodePng(fit.image.bytes);
            expect([...decoded.data.subarray(0, 4)]).toEqual([255, 0, 0, 255]);
            expect(decoded.data[(1238 - 1) * 4 + 3]).toBe(0);
        },
        SLOW
    );

    it("refuses a decompression bomb from its header, before decoding", async () => {
        // 30000×30000 declared in a file of a few bytes: decoding would need 3.6 GB.
        expect(await fitImage(pngImage(30000, 30000))).toEqual({
            ok: false,
            reason: "the image is 30000×30000 px (900 megapixels); North scales images down up to 50 megapixels",
        });
    });

    it("refuses a PNG or JPEG whose body is corrupt after a sound header, saying so", async () => {
        const png = await fitImage(pngImage(3000, 2000));
        expect(png).toEqual({
            ok: false,
            reason: expect.stringContaining("the PNG could not be decoded (the file is corrupt)"),
        });
        const jpeg = await fitImage(jpegImage(4000, 3000));
        expect(jpeg).toEqual({
            ok: false,
            reason: expect.stringContaining("the JPEG could not be decoded (the file is corrupt)"),
        });
    });

    it("refuses a WebP over the limits, as North cannot scale WebP; a smaller one goes as it is", async () => {
        expect(await fitImage(webpImage(9000, 6000))).toEqual({
            ok: false,
            reason: expect.stringContaining("North cannot scale WebP down (save it as PNG or JPEG"),
        });
        expect(await fitImage(webpImage(3000, 2000))).toMatchObject({
            ok: true,
            image: { mediaType: "image/webp", width: 3000, height: 2000 },
        });
    });
});
