/**
 * A prompt that no request could carry is refused before anything is sent or
 * saved: kept in the conversation, it would make every later request of the
 * session too large as well.
 */
import { estimatePromptTokens } from "../agent/tokens";
import type { ModelInfo } from "../providers/catalogue";
import { MAX_PROMPT_BYTES } from "../tools/limits";
import { megabytes } from "../util/short-text";

/**
 * Why `prompt` cannot be sent to `model`, or null: over the 10 MB a program
 * may send, or more tokens than the model's whole context window (estimated
 * as the loop estimates a request: 3.5 characters a token, plus 10 %).
 */
export function promptSizeProblem(
    prompt: string,
    model: Pick<ModelInfo, "alias" | "contextLimitTokens">
): string | null {
    const bytes = Buffer.byteLength(prompt, "utf8");
    if (bytes > MAX_PROMPT_BYTES) {
        return `the prompt is ${megabytes(bytes)}, over the ${megabytes(MAX_PROMPT_BYTES)} limit of one prompt; nothing was sent or saved`;
    }
    const limit = model.contextLimitTokens;
    const tokens = estimatePromptTokens("", [{ role: "user", content: prompt }]).total;
    if (limit > 0 && tokens > limit) {
        return (
            `the prompt is about ${tokens} tokens (${megabytes(bytes)}), more than ${model.alias}'s ` +
            `${limit}-token context window; nothing was sent or saved. Send a smaller part ` +
            "(one file, a narrower diff) or a model with a larger window (--model)."
        );
    }
    return null;
}
