import type { Message, ToolSchema } from "../providers/types";
import {
    CHARS_PER_TOKEN,
    PER_MESSAGE_OVERHEAD_TOKENS as PER_MESSAGE_OVERHEAD,
    TOKEN_SAFETY_MARGIN as SAFETY_MARGIN,
} from "../tools/limits";

/** Providers scale an image to about 1,600 tokens at most (Anthropic: 1568 px long edge). */
const IMAGE_CHARS = 1600 * CHARS_PER_TOKEN;

export interface PromptEstimate {
    system: number;
    messages: number;
    overhead: number;
    total: number;
}

function tokensOfChars(chars: number): number {
    return Math.ceil((chars / CHARS_PER_TOKEN) * SAFETY_MARGIN);
}

function messageChars(message: Message): number {
    if (typeof message.content === "string") return message.content.length;
    let chars = 0;
    for (const block of message.content) {
        switch (block.type) {
            case "text":
                chars += block.text.length;
                break;
            case "tool_result":
                chars += block.content.length + (block.images?.length ?? 0) * IMAGE_CHARS;
                break;
            case "image":
                chars += IMAGE_CHARS;
                break;
            case "tool_call":
                chars += block.name.length + block.rawInput.length;
                break;
            case "thinking":
                chars += block.thinking.length;
                break;
            case "redacted_thinking":
                chars += block.data.length;
                break;
            case "reasoning":
                chars += block.summary.length;
                break;
            case "web_search":
                // The results go back whole (encrypted page text included) and are billed as input.
                chars += JSON.stringify(block.wire).length;
                break;
        }
    }
    return chars;
}

/** Heuristic size of a request before it is sent: 3.5 characters a token, plus 10 %. */
export function estimatePromptTokens(
    system: string,
    messages: Message[],
    tools: ToolSchema[] = []
): PromptEstimate {
    const systemTokens = tokensOfChars(system.length);
    let messageTokens = 0;
    for (const message of messages) messageTokens += tokensOfChars(messageChars(message));
    const toolChars = tools.reduce(
        (sum, t) =>
            sum + t.name.length + t.description.length + JSON.stringify(t.inputSchema).length,
        0
    );
    const overhead = messages.length * PER_MESSAGE_OVERHEAD + tokensOfChars(toolChars);
    return {
        system: systemTokens,
        messages: messageTokens,
        overhead,
        total: systemTokens + messageTokens + overhead,
    };
}
