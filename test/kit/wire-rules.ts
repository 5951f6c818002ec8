/**
 * The request rules each wire's real API answers with a 400, checked by the
 * fakes on every request so a test cannot pass on a conversation the real
 * service would refuse. The Anthropic checker is also the one for the Messages
 * bodies sent to Bedrock, Vertex AI and Foundry:
 *
 *     const problems = anthropicMessagesProblems(body, "bedrock");
 *     if (problems.length > 0) answer400(wireProblemMessage(problems));
 */
import type { Wire } from "./fake-llm-wire";
import { anthropicMessagesProblems } from "./wire-rules-anthropic";
import { chatCompletionsProblems } from "./wire-rules-chat";
import { responsesProblems } from "./wire-rules-responses";

export { anthropicMessagesProblems, type MessagesHost } from "./wire-rules-anthropic";
export { chatCompletionsProblems } from "./wire-rules-chat";
export { responsesProblems } from "./wire-rules-responses";

/** One reason the real API would refuse a request. */
export interface WireProblem {
    /** Short name of the rule, e.g. "tool-use-answered" (what tests assert on). */
    rule: string;
    /** The API's own wording, where it has one. */
    message: string;
}

export function wireProblems(wire: Wire, body: unknown): WireProblem[] {
    switch (wire) {
        case "anthropic":
            return anthropicMessagesProblems(body);
        case "responses":
            return responsesProblems(body);
        case "chat":
            return chatCompletionsProblems(body);
    }
}

/** The message of a 400 answer: the API's words, then which rule of the fake said so. */
export function wireProblemMessage(problems: WireProblem[]): string {
    return problems.map((p) => `${p.message} (wire rule: ${p.rule})`).join("; ");
}
