/**
 * A screenshot's path pasted alone into the chat's composer (a terminal's
 * drag and drop) becomes an attachment and reaches the model as an image.
 * Needs `npm run build` first.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { pngImage } from "../../kit/images";
import { type NorthPtySession, startNorthSession } from "../../kit/pty";

const TIMEOUT = 40_000;
const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

let session: NorthPtySession | undefined;
afterEach(async () => {
    await session?.dispose();
    session = undefined;
});

describe("a pasted image path", () => {
    it(
        "becomes an @ attachment that reaches the model as an image block",
        async () => {
            session = await startNorthSession({ cols: 160 });
            const { north, server, repo } = session;
            const png = pngImage(5, 4);
            const path = join(repo, "my shot.png");
            writeFileSync(path, png);
            // Drag and drop escapes the space.
            north.type(`what is in ${PASTE_START}${path.replace(" ", "\\ ")}${PASTE_END}`);
            await north.waitForText(`❯ what is in @${path}`);
            server.enqueue({ text: "Five by four grey pixels." });
            north.type("\r");
            await north.waitForText("Five by four grey pixels.");
            const user = (server.requests.at(-1)!.body as { messages: unknown[] }).messages.at(-1);
            expect(user).toMatchObject({
                role: "user",
                content: [
                    { type: "text", text: expect.stringContaining(`what is in @${path}`) },
                    {
                        type: "image",
                        source: {
                            type: "base64",
                            media_type: "image/png",
                            data: png.toString("base64"),
                        },
                    },
                ],
            });
        },
        TIMEOUT
    );
});
