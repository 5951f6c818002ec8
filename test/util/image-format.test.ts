import { describe, expect, it } from "vitest";
import {
    MAX_IMAGE_SEND_BYTES,
    checkImage,
    formatImageBytes,
    sniffImageType,
} from "../../src/util/image-format";
import { gifImage, jpegImage, pngImage, webpImage } from "../kit/images";

describe("image checks", () => {
    it("reads the format and size from the bytes of PNG, JPEG, GIF and WebP", () => {
        expect(checkImage(pngImage(3, 5))).toEqual({
            ok: true,
            info: { mediaType: "image/png", width: 3, height: 5 },
        });
        expect(checkImage(jpegImage(640, 480))).toEqual({
            ok: true,
            info: { mediaType: "image/jpeg", width: 640, height: 480 },
        });
        expect(checkImage(gifImage(16, 9))).toEqual({
            ok: true,
            info: { mediaType: "image/gif", width: 16, height: 9 },
        });
        expect(checkImage(webpImage(1200, 800))).toEqual({
            ok: true,
            info: { mediaType: "image/webp", width: 1200, height: 800 },
        });
    });

    it("goes by the bytes, not the name: text is no image", () => {
        expect(sniffImageType(Buffer.from("just text, named pic.png"))).toBeUndefined();
    });

    it("refuses a PNG whose header fails its CRC", () => {
        const png = pngImage(4, 4);
        png[20] = 0x7f; // height's top byte: the IHDR CRC no longer matches
        const check = checkImage(png);
        expect(check.ok).toBe(false);
        if (!check.ok) expect(check.reason).toContain("CRC");
    });

    it("refuses a PNG cut short inside its header", () => {
        const check = checkImage(pngImage(4, 4).subarray(0, 20));
        expect(check).toEqual({ ok: false, reason: expect.stringContaining("cut short") });
    });

    it("refuses SVG as a vector image and says to read it as text", () => {
        const svg = Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>');
        const check = checkImage(svg);
        expect(check).toEqual({
            ok: false,
            reason: expect.stringContaining("SVG is a vector image"),
        });
    });

    it("refuses a side over 8000 px and an image over the send cap", () => {
        expect(checkImage(pngImage(9000, 10))).toEqual({
            ok: false,
            reason: expect.stringContaining("9000×10 px"),
        });
        const big = Buffer.concat([pngImage(100, 100), Buffer.alloc(MAX_IMAGE_SEND_BYTES)]);
        expect(checkImage(big)).toEqual({
            ok: false,
            reason: expect.stringContaining(`at most ${formatImageBytes(MAX_IMAGE_SEND_BYTES)}`),
        });
    });

    it("refuses a GIF that claims a size of zero", () => {
        expect(checkImage(gifImage(0, 10)).ok).toBe(false);
    });
});
