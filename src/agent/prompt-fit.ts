import type { ModelInfo } from "../providers/catalogue";
import type { Message, ToolSchema } from "../providers/types";
import { withSummary } from "./summary-text";
import { estimatePromptTokens } from "./tokens";

/**
 * A prompt no request can carry is not kept: kept, it would make every later
 * request of the conversation too large as well.
 */
const NOT_KEPT = "The prompt was not kept; the conversation goes on without it.";
const SMALLER_PROMPT =
    "Send a smaller part (one file, a narrower diff), or pick a model with a larger window (/model in the chat, --model).";
const SMALLER_CONVERSATION =
    "Start over with /new, or pick a model with a larger window (/model in the chat, --model).";

/** What every request of a run sends besides the transcript. */
export interface RequestFrame {
    system: string;
    schemas: ToolSchema[];
    attachedFiles: string | undefined;
}

/** Tokens of the prompt as sent (with this run's attached files ahead of it). */
function promptTokens(prompt: Message, attachedFiles: string | undefined): number {
    return estimatePromptTokens("", withSummary([prompt], null, attachedFiles)).total;
}

/**
 * Why no request can carry `prompt`, or null: the system prompt, the tools
 * and the prompt alone are over the model's window, so no summary of the
 * conversation could make room. Checked before the prompt joins the
 * transcript, so nothing of it is kept or summarised for nothing.
 */
export function promptAloneTooLarge(
    prompt: Message,
    frame: RequestFrame,
    model: Pick<ModelInfo, "display" | "contextLimitTokens">
): string | null {
    const limit = model.contextLimitTokens;
    if (limit <= 0) return null;
    const messages = withSummary([prompt], null, frame.attachedFiles);
    const total = estimatePromptTokens(frame.system, messages, frame.schemas).total;
    if (total <= limit) return null;
    const own = promptTokens(prompt, frame.attachedFiles);
    return (
        `not sent: the prompt is about ${own} tokens; with the system prompt and tools (about ${total - own}) ` +
        `the request would be about ${total} tokens, more than ${model.display}'s ${limit}-token window. ` +
        `${NOT_KEPT} ${SMALLER_PROMPT}`
    );
}

/**
 * The error of a run whose first request was over the window even after
 * summarising, the prompt already taken back (`withdrawn`) or still kept.
 */
export function conversationTooLarge(
    fitted: { estimate: number; limit: number },
    model: string,
    withdrawn: { prompt: Message; attachedFiles: string | undefined } | null
): string {
    const share = Math.round((fitted.estimate / fitted.limit) * 100);
    const size = `about ${fitted.estimate} tokens, ${share}% of ${model}'s ${fitted.limit}-token window, even after summarising.`;
    if (!withdrawn) return `not sent: the conversation is ${size} ${SMALLER_CONVERSATION}`;
    const own = promptTokens(withdrawn.prompt, withdrawn.attachedFiles);
    // Without the prompt the conversation fits: the prompt is what to change.
    const advice = fitted.estimate - own <= fitted.limit ? SMALLER_PROMPT : SMALLER_CONVERSATION;
    return `not sent: with this prompt (about ${own} tokens) the conversation is ${size} ${NOT_KEPT} ${advice}`;
}

/** A provider's refusal of the first request for its size, the prompt taken back. */
export function providerRefusedPrompt(message: string): string {
    return `${message.replace(/[.\s]*$/, "")}. ${NOT_KEPT} ${SMALLER_PROMPT}`;
}
