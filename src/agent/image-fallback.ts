/**
 * Images in the transcript stay there whatever the model; a request to a
 * model that does not read images carries a note in each one's place, so a
 * model switch mid-conversation neither fails nor loses them.
 */
import type { ModelInfo } from "../providers/catalogue";
import type { ImageBlock, Message, TextBlock, ToolResultBlock } from "../providers/types";
import { formatImageBytes } from "../util/image-format";

/** What the user is told when a request leaves images out. */
export function noImagesWarning(model: Pick<ModelInfo, "display">): string {
    return `model ${model.display} does not accept images; the image was not sent`;
}

function imageRefusalNote(model: Pick<ModelInfo, "display">, image: ImageBlock): string {
    return `[Image: ${image.name} ${formatImageBytes(image.bytes)}] ${noImagesWarning(model)}`;
}

function hasImages(message: Message): boolean {
    if (message.role !== "user" || typeof message.content === "string") return false;
    return message.content.some(
        (b) => b.type === "image" || (b.type === "tool_result" && (b.images?.length ?? 0) > 0)
    );
}

/** The newest message carries images (a warning is due once, not on every later request). */
export function lastMessageHasImages(messages: readonly Message[]): boolean {
    const last = messages[messages.length - 1];
    return last !== undefined && hasImages(last);
}

/** `messages` with every image replaced by a note naming the model (the same array when there are none). */
export function withoutImages(messages: Message[], model: Pick<ModelInfo, "display">): Message[] {
    if (!messages.some(hasImages)) return messages;
    return messages.map((message): Message => {
        if (message.role !== "user" || typeof message.content === "string") return message;
        if (!hasImages(message)) return message;
        const content = message.content.map((block): TextBlock | ToolResultBlock => {
            if (block.type === "image")
                return { type: "text", text: imageRefusalNote(model, block) };
            if (block.type === "tool_result" && block.images?.length) {
                const { images, ...rest } = block;
                const notes = images.map((image) => imageRefusalNote(model, image));
                return { ...rest, content: [block.content, ...notes].join("\n") };
            }
            return block;
        });
        return { role: "user", content };
    });
}
