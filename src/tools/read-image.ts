/**
 * read_file on a PNG, JPEG, GIF or WebP: the picture goes back to the model
 * as an image beside a short text result (models that do not read images get
 * a note in its place, see agent/image-fallback.ts).
 */
import { promises as fs } from "node:fs";
import { MAX_IMAGE_FILE_BYTES, formatImageBytes, sniffImageType } from "../util/image-format";
import { describeScaling, fitImage } from "../util/image-resize";
import { basename } from "node:path";
import type { ReadFileResult } from "./read-file";
import { type ToolResult, toolError } from "./types";

/** Null when `head` (the file's first bytes) is not a raster image. */
export async function readImageFile(
    realPath: string,
    relPath: string,
    size: number,
    head: Uint8Array
): Promise<ToolResult<ReadFileResult> | null> {
    if (!sniffImageType(head)) return null;
    if (size > MAX_IMAGE_FILE_BYTES) {
        return toolError(
            "binary_file",
            `${relPath} is an image of ${formatImageBytes(size)}; images over ${formatImageBytes(MAX_IMAGE_FILE_BYTES)} are not read.`
        );
    }
    const fit = await fitImage(await fs.readFile(realPath));
    if (!fit.ok)
        return toolError("binary_file", `${relPath} cannot be sent as an image: ${fit.reason}.`);
    const { mediaType, width, height, bytes } = fit.image;
    const scaled = describeScaling(fit.image);
    return {
        ok: true,
        data: {
            path: relPath,
            content: "",
            startLine: 1,
            endLine: 0,
            totalLines: 0,
            truncated: false,
            note: scaled
                ? `${relPath} is an image, ${scaled} to fit the model's limits; attached below.`
                : `${relPath} is a ${width}×${height} ${mediaType} image (${formatImageBytes(bytes.length)}), attached below.`,
        },
        images: [
            {
                type: "image",
                mediaType,
                data: bytes.toString("base64"),
                name: basename(relPath),
                bytes: bytes.length,
            },
        ],
    };
}
