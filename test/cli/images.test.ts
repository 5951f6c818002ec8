/**
 * Images through the built CLI: `@pic.png` in print mode reaches each wire
 * protocol as its image block, read_file returns a picture, bad images stop
 * before any request, a model without image input gets a note, and a
 * resumed conversation sends the image again.
 */
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { decodeJpeg, decodePng, encodeJpeg, encodePng } from "../kit/image-pixels";
import { jpegImage, pngImage, webpImage } from "../kit/images";
import { isolatedHome, runNorth } from "../kit/run-north";

let server: FakeLlmServer;
let repo: string;
let home: string;
let env: NodeJS.ProcessEnv;
const png = pngImage(3, 2);
const base64 = png.toString("base64");

beforeAll(async () => {
    server = await startFakeLlmServer();
});
afterAll(async () => {
    await server.close();
});
beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), "north-images-repo-"));
    writeFileSync(join(repo, "pic.png"), png);
    const isolated = isolatedHome();
    home = isolated.home;
    env = { ...isolated.env, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.anthropicBaseUrl };
    server.requests.length = 0;
});
afterEach(() => {
    expect(server.remaining()).toBe(0);
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

/** A local Chat Completions model; `images` as its catalogue entry says. */
function localModel(images: boolean | undefined): void {
    const configDir = join(home, "config");
    mkdirSync(configDir, { recursive: true });
    writeFileSync(
        join(configDir, "config.json"),
        JSON.stringify({
            providers: { local: { api: "openai-chat", baseUrl: server.openaiBaseUrl } },
            models: [
                { alias: "local", id: "llava:7b", provider: "local", display: "Llava", images },
            ],
        })
    );
}

type Body = Record<string, unknown> & { messages?: unknown[]; input?: unknown[] };
const body = (n = 0) => server.requests[n]!.body as Body;

describe("@image attachments in print mode", () => {
    it("reach Anthropic as a base64 image block beside the prompt", async () => {
        server.enqueue({ text: "A grey square." });
        const run = await runNorth(["-p", "describe @pic.png", "--path", repo], { env });
        expect(run.code, run.stderr).toBe(0);
        expect(run.stdout).toBe("A grey square.\n");
        expect(body().messages!.at(-1)).toMatchObject({
            role: "user",
            content: [
                { type: "text", text: expect.stringContaining("describe @pic.png") },
                {
                    type: "image",
                    source: { type: "base64", media_type: "image/png", data: base64 },
                },
            ],
        });
    });

    it("reach OpenAI Responses as input_image with a data URL", async () => {
        server.enqueue({ text: "grey" });
        const openaiEnv = { ...env, OPENAI_API_KEY: "k", OPENAI_BASE_URL: server.openaiBaseUrl };
        const run = await runNorth(
            ["-p", "describe @pic.png", "--path", repo, "--model", "gpt-5.1"],
            {
                env: openaiEnv,
            }
        );
        expect(run.code, run.stderr).toBe(0);
        expect(server.requests[0]!.path).toBe("/v1/responses");
        const user = body().input!.at(-1) as { content: unknown[] };
        expect(user.content).toContainEqual({
            type: "input_image",
            image_url: `data:image/png;base64,${base64}`,
            detail: "auto",
        });
    });

    it("reach Chat Completions as an image_url part when the model accepts images", async () => {
        localModel(true);
        server.enqueue({ text: "grey" });
        const run = await runNorth(
            ["-p", "describe @pic.png", "--path", repo, "--model", "local"],
            {
                env,
            }
        );
        expect(run.code, run.stderr).toBe(0);
        const user = body().messages!.at(-1) as { content: unknown[] };
        expect(user.content).toContainEqual({
            type: "image_url",
            image_url: { url: `data:image/png;base64,${base64}` },
        });
    });

    it("become a note for a model without image input, and the user is warned", async () => {
        localModel(undefined);
        server.enqueue({ text: "I cannot see it." });
        const run = await runNorth(
            ["-p", "describe @pic.png", "--path", repo, "--model", "local"],
            {
                env,
            }
        );
        expect(run.code, run.stderr).toBe(0);
        expect(run.stderr).toContain("model Llava does not accept images; the image was not sent");
        const sent = JSON.stringify(body());
        expect(sent).not.toContain(base64);
        expect(sent).toContain("[Image: pic.png 1 KB] model Llava does not accept images");
    });

    it("stop before any request when the PNG is corrupt or 30 MB, saying why", async () => {
        const bad = pngImage(3, 2);
        bad[29] = bad[29]! ^ 0xff;
        writeFileSync(join(repo, "bad.png"), bad);
        const corrupt = await runNorth(["-p", "describe @bad.png", "--path", repo], { env });
        expect(corrupt.code).toBe(2);
        expect(corrupt.stderr).toContain(
            "not attached: bad.png: the PNG header fails its CRC check (the file is corrupt)"
        );
        writeFileSync(join(repo, "huge.png"), pngImage(4000, 4000));
        truncateSync(join(repo, "huge.png"), 30 * 1024 * 1024);
        const huge = await runNorth(["-p", "describe @huge.png", "--path", repo], { env });
        expect(huge.code).toBe(2);
        expect(huge.stderr).toContain("not attached: huge.png: the image is 30.0 MB");
        expect(server.requests).toHaveLength(0);
    });

    it("attach an SVG as text, not as an image", async () => {
        writeFileSync(
            join(repo, "logo.svg"),
            '<svg xmlns="http://www.w3.org/2000/svg"><rect/></svg>\n'
        );
        server.enqueue({ text: "a rectangle" });
        const run = await runNorth(["-p", "what is @logo.svg", "--path", repo], { env });
        expect(run.code, run.stderr).toBe(0);
        const sent = JSON.stringify(body());
        expect(sent).toContain("<rect/>");
        expect(sent).not.toContain('"type":"image"');
    });

    it("are sent again after --continue: the image survives in the stored conversation", async () => {
        server.enqueue({ text: "grey" }, { text: "still grey" });
        const first = await runNorth(["-p", "describe @pic.png", "--path", repo], { env });
        expect(first.code, first.stderr).toBe(0);
        const second = await runNorth(["-p", "and now?", "--path", repo, "--continue"], { env });
        expect(second.code, second.stderr).toBe(0);
        expect(body(1).messages![0]).toMatchObject({
            role: "user",
            content: [
                { type: "text" },
                {
                    type: "image",
                    source: { type: "base64", media_type: "image/png", data: base64 },
                },
            ],
        });
    });
});

describe("read_file on an image", () => {
    it("returns the picture inside the Anthropic tool_result", async () => {
        server.enqueue(
            { toolCalls: [{ name: "read_file", input: { path: "pic.png" } }] },
            { text: "It is grey." }
        );
        const run = await runNorth(["-p", "look at the picture", "--path", repo], { env });
        expect(run.code, run.stderr).toBe(0);
        const results = body(1).messages!.at(-1) as { content: Array<Record<string, unknown>> };
        expect(results.content[0]).toMatchObject({
            type: "tool_result",
            content: [
                { type: "text", text: expect.stringContaining("3×2 image/png image") },
                {
                    type: "image",
                    source: { type: "base64", media_type: "image/png", data: base64 },
                },
            ],
        });
    });

    it("goes inside function_call_output on OpenAI Responses", async () => {
        server.enqueue(
            { toolCalls: [{ name: "read_file", input: { path: "pic.png" } }] },
            { text: "It is grey." }
        );
        const openaiEnv = { ...env, OPENAI_API_KEY: "k", OPENAI_BASE_URL: server.openaiBaseUrl };
        const run = await runNorth(["-p", "look", "--path", repo, "--model", "gpt-5.1"], {
            env: openaiEnv,
        });
        expect(run.code, run.stderr).toBe(0);
        const output = (body(1).input as Array<Record<string, unknown>>).find(
            (item) => item.type === "function_call_output"
        );
        expect(output!.output).toEqual([
            { type: "input_text", text: expect.stringContaining("3×2 image/png image") },
            { type: "input_image", image_url: `data:image/png;base64,${base64}`, detail: "auto" },
        ]);
    });

    it("follows the tool message as a user image on Chat Completions", async () => {
        localModel(true);
        server.enqueue(
            { toolCalls: [{ name: "read_file", input: { path: "pic.png" } }] },
            { text: "It is grey." }
        );
        const run = await runNorth(["-p", "look", "--path", repo, "--model", "local"], { env });
        expect(run.code, run.stderr).toBe(0);
        const messages = body(1).messages as Array<{ role: string; content: unknown }>;
        expect(messages.at(-2)!.role).toBe("tool");
        expect(messages.at(-1)).toEqual({
            role: "user",
            content: [{ type: "image_url", image_url: { url: `data:image/png;base64,${base64}` } }],
        });
    });
});

describe("large images are scaled down", () => {
    // Built once: encoding 12 megapixels in pure JS takes seconds on a loaded machine.
    let photoPng: Buffer;
    let photoJpeg: Buffer;
    beforeAll(() => {
        photoPng = encodePng(4000, 3000);
        photoJpeg = encodeJpeg(4000, 3000);
    }, 120_000);

    /** The one image block of the last user message Anthropic got. */
    function sentImage(): { media_type: string; data: string } {
        const user = body().messages!.at(-1) as {
            content: Array<{ type: string; source?: { media_type: string; data: string } }>;
        };
        const images = user.content.filter((part) => part.type === "image");
        expect(images).toHaveLength(1);
        return images[0]!.source!;
    }

    it("a 4000×3000 PNG and JPEG arrive as JPEGs of 1238×929 under the limits, and the user is told", async () => {
        writeFileSync(join(repo, "photo.png"), photoPng);
        writeFileSync(join(repo, "photo.jpg"), photoJpeg);
        for (const name of ["photo.png", "photo.jpg"]) {
            server.requests.length = 0;
            server.enqueue({ text: "a gradient" });
            const run = await runNorth(["-p", `describe @${name}`, "--path", repo], { env });
            expect(run.code, run.stderr).toBe(0);
            expect(run.stderr).toMatch(
                new RegExp(
                    `north: ${name}: scaled down from 4000×3000 (PNG|JPEG) \\([\\d.]+ MB\\) to 1238×929 JPEG \\(\\d+ KB\\)`
                )
            );
            const image = sentImage();
            expect(image.media_type).toBe("image/jpeg");
            expect(image.data.length).toBeLessThan(5 * 1024 * 1024);
            const decoded = decodeJpeg(Buffer.from(image.data, "base64"));
            expect([decoded.width, decoded.height]).toEqual([1238, 929]);
        }
    }, 120_000);

    it("a large PNG with transparency stays a PNG", async () => {
        writeFileSync(join(repo, "overlay.png"), encodePng(2400, 1800, 90));
        server.enqueue({ text: "see-through" });
        const run = await runNorth(["-p", "describe @overlay.png", "--path", repo], { env });
        expect(run.code, run.stderr).toBe(0);
        const image = sentImage();
        expect(image.media_type).toBe("image/png");
        const decoded = decodePng(Buffer.from(image.data, "base64"));
        expect([decoded.width, decoded.height, decoded.data[3]]).toEqual([1238, 929, 90]);
    }, 120_000);

    it("read_file on a large image tells the model it was scaled down", async () => {
        writeFileSync(join(repo, "photo.jpg"), photoJpeg);
        server.enqueue(
            { toolCalls: [{ name: "read_file", input: { path: "photo.jpg" } }] },
            { text: "A gradient." }
        );
        const run = await runNorth(["-p", "look at photo.jpg", "--path", repo], { env });
        expect(run.code, run.stderr).toBe(0);
        const results = body(1).messages!.at(-1) as { content: Array<Record<string, unknown>> };
        expect(results.content[0]).toMatchObject({
            type: "tool_result",
            content: [
                {
                    type: "text",
                    text: expect.stringContaining("scaled down from 4000×3000 JPEG"),
                },
                { type: "image", source: { type: "base64", media_type: "image/jpeg" } },
            ],
        });
    }, 120_000);

    it("a decompression bomb, a corrupt body and a huge WebP stop before any request, saying why", async () => {
        writeFileSync(join(repo, "bomb.png"), pngImage(30000, 30000));
        writeFileSync(join(repo, "broken.png"), pngImage(3000, 2000));
        writeFileSync(join(repo, "broken.jpg"), jpegImage(4000, 3000));
        writeFileSync(join(repo, "huge.webp"), webpImage(9000, 6000));
        const expected: Record<string, string> = {
            "bomb.png":
                "not attached: bomb.png: the image is 30000×30000 px (900 megapixels); North scales images down up to 50 megapixels",
            "broken.png":
                "not attached: broken.png: the PNG could not be decoded (the file is corrupt)",
            "broken.jpg":
                "not attached: broken.jpg: the JPEG could not be decoded (the file is corrupt)",
            "huge.webp": "North cannot scale WebP down (save it as PNG or JPEG, and North will)",
        };
        for (const [name, message] of Object.entries(expected)) {
            const run = await runNorth(["-p", `describe @${name}`, "--path", repo], { env });
            expect(run.code, run.stderr).toBe(2);
            expect(run.stderr).toContain(message);
        }
        expect(server.requests).toHaveLength(0);
    }, 120_000);
});
