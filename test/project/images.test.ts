import { mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { imageLabel, loadAttachedImages, loadImageFile } from "../../src/project/images";
import { encodePng } from "../kit/image-pixels";
import { pngImage } from "../kit/images";

let dir: string;
beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "north-images-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("image files", () => {
    it("loads a PNG as a base64 image block labelled with its name and size", async () => {
        const png = pngImage(2, 2);
        writeFileSync(join(dir, "shot.png"), png);
        const load = await loadImageFile(join(dir, "shot.png"));
        expect(load).toEqual({
            kind: "image",
            block: {
                type: "image",
                mediaType: "image/png",
                data: png.toString("base64"),
                name: "shot.png",
                bytes: png.length,
            },
        });
        if (load.kind === "image") expect(imageLabel(load.block)).toBe("[Image: shot.png 1 KB]");
    });

    it("refuses a 30 MB image before reading it, naming both sizes", async () => {
        const path = join(dir, "huge.png");
        writeFileSync(path, pngImage(4000, 4000));
        truncateSync(path, 30 * 1024 * 1024);
        expect(await loadImageFile(path)).toEqual({
            kind: "refused",
            reason: "the image is 30.0 MB; North sends images up to 20.0 MB on disk",
        });
    });

    it("scales a large image down and says how, for the user", async () => {
        writeFileSync(join(dir, "photo.png"), encodePng(2400, 1800));
        const loaded = await loadAttachedImages(dir, ["photo.png"]);
        expect(loaded.images).toMatchObject([{ mediaType: "image/jpeg", name: "photo.png" }]);
        expect(loaded.scaled).toEqual([
            {
                path: "photo.png",
                note: expect.stringMatching(
                    /^scaled down from 2400×1800 PNG \(.+\) to 1238×929 JPEG \(\d+ KB\)$/
                ),
            },
        ]);
    }, 120_000);

    it("leaves SVG and text to the text attachments", async () => {
        writeFileSync(join(dir, "logo.svg"), '<svg xmlns="http://www.w3.org/2000/svg"></svg>');
        writeFileSync(join(dir, "fake.png"), "not an image at all");
        const loaded = await loadAttachedImages(dir, ["logo.svg", "fake.png"]);
        expect(loaded.images).toEqual([]);
        expect([...loaded.handled]).toEqual([]);
    });

    it("reports a corrupt PNG as refused and keeps it out of the text attachments", async () => {
        const png = pngImage(4, 4);
        png[29] = png[29]! ^ 0xff;
        writeFileSync(join(dir, "bad.png"), png);
        const loaded = await loadAttachedImages(dir, ["bad.png", "missing.png"]);
        expect(loaded.refused).toEqual([
            { path: "bad.png", reason: "the PNG header fails its CRC check (the file is corrupt)" },
        ]);
        expect([...loaded.handled]).toEqual(["bad.png"]);
    });

    it("keeps an image a Read deny rule covers out", async () => {
        writeFileSync(join(dir, "secret.png"), pngImage());
        const denied: string[] = [];
        const loaded = await loadAttachedImages(
            dir,
            ["secret.png"],
            async () => "Read(*.png)",
            (path, rule) => denied.push(`${path} ${rule}`)
        );
        expect(loaded.images).toEqual([]);
        expect(denied).toEqual(["secret.png Read(*.png)"]);
    });
});
