import { describe, expect, it } from "vitest";
import { lastMessageHasImages, withoutImages } from "../../src/agent/image-fallback";
import type { ImageBlock, Message } from "../../src/providers/types";

const image: ImageBlock = {
    type: "image",
    mediaType: "image/png",
    data: "AAAA",
    name: "a.png",
    bytes: 2048,
};
const model = { display: "Tiny" };

describe("images for a model that does not read them", () => {
    it("become notes in user messages and in tool results; the transcript is untouched", () => {
        const messages: Message[] = [
            { role: "user", content: [{ type: "text", text: "look" }, image] },
            {
                role: "user",
                content: [
                    {
                        type: "tool_result",
                        toolCallId: "t1",
                        content: "{}",
                        isError: false,
                        images: [image],
                    },
                ],
            },
        ];
        const sent = withoutImages(messages, model);
        expect(sent).toEqual([
            {
                role: "user",
                content: [
                    { type: "text", text: "look" },
                    {
                        type: "text",
                        text: "[Image: a.png 2 KB] model Tiny does not accept images; the image was not sent",
                    },
                ],
            },
            {
                role: "user",
                content: [
                    {
                        type: "tool_result",
                        toolCallId: "t1",
                        content:
                            "{}\n[Image: a.png 2 KB] model Tiny does not accept images; the image was not sent",
                        isError: false,
                    },
                ],
            },
        ]);
        expect(messages[0]!.content).toContain(image);
        expect(lastMessageHasImages(messages)).toBe(true);
        expect(lastMessageHasImages([{ role: "user", content: "hi" }])).toBe(false);
    });

    it("leaves a conversation without images as it is", () => {
        const messages: Message[] = [{ role: "user", content: "hi" }];
        expect(withoutImages(messages, model)).toBe(messages);
    });
});
