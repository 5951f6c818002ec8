/**
 * Large images are scaled in a worker thread so the chat keeps drawing: the
 * bundled worker entry must exist beside the bundle and do the whole job.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { decodeJpeg, encodePng } from "../kit/image-pixels";

const dist = join(import.meta.dirname, "../../dist");

describe("the image-scaling worker in dist/", () => {
    it("scales a 3000×2000 PNG to the target size as JPEG off the main thread", async () => {
        const entry = join(dist, "image-resize-worker.js");
        expect(existsSync(entry)).toBe(true);
        const png = encodePng(3000, 2000);
        const worker = new Worker(entry);
        try {
            const outcome = await new Promise<{
                ok: boolean;
                mediaType?: string;
                bytes?: Uint8Array;
                width?: number;
                height?: number;
            }>((resolve, reject) => {
                worker.once("message", resolve);
                worker.once("error", reject);
                worker.postMessage({
                    bytes: new Uint8Array(png),
                    mediaType: "image/png",
                    maxMegapixels: 50,
                    target: { width: 1309, height: 873 },
                    maxBytes: 3_750_000,
                });
            });
            expect(outcome).toMatchObject({ ok: true, mediaType: "image/jpeg", width: 1309 });
            const decoded = decodeJpeg(Buffer.from(outcome.bytes!));
            expect([decoded.width, decoded.height]).toEqual([1309, 873]);
        } finally {
            await worker.terminate();
        }
    });

    it("is found from the chunk that scales images (dist/ or dist/chunks/)", () => {
        const chunks = readdirSync(join(dist, "chunks"))
            .filter((name) => name.endsWith(".js"))
            .map((name) => join(dist, "chunks", name));
        const users = [join(dist, "cli.js"), join(dist, "api.js"), ...chunks].filter((file) =>
            readFileSync(file, "utf8").includes("image-resize-worker.js")
        );
        expect(users.length).toBeGreaterThan(0);
    });
});
