/**
 * One `session/prompt` turn: the editor's content blocks become North's
 * prompt (or slash commands, run as print mode runs them), the prompt runs,
 * and its end becomes a v1 stop reason. The events on the way are sent by
 * the session's subscription (session-engine.ts).
 */
import { type ContentBlock, type PromptResponse, RequestError } from "@agentclientprotocol/sdk";
import { promptSizeProblem } from "../prompt-size";
import { promptContentOf } from "./prompt-content";
import type { AcpEngine } from "./session-engine";
import { runSlashCommands } from "./slash-commands";

export interface PromptTurn {
    response: PromptResponse;
    /** The prompt as the model got it ("" when only commands ran). */
    promptText: string;
}

export async function runPromptTurn(
    { engine, translator }: AcpEngine,
    blocks: readonly ContentBlock[],
    signal: AbortSignal,
    say: (text: string) => Promise<void>
): Promise<PromptTurn> {
    const { host, extensions } = engine;
    const built = await promptContentOf(blocks, engine.repoRoot, async (path) => {
        const { rule } = await host.submit({ type: "read_denial", path });
        return rule;
    });
    if (!built.ok) throw RequestError.invalidParams(undefined, built.error);
    const { content } = built;
    for (const note of content.notes) await say(`(${note})\n\n`);
    const attached = content.attachedContext !== undefined || content.attachedImages.length > 0;
    if (content.text === "" && !attached) {
        throw RequestError.invalidParams(undefined, "the prompt is empty");
    }

    let text = content.text;
    if (text.startsWith("/")) {
        const run = await runSlashCommands(
            text,
            host,
            extensions.customCommands,
            extensions.skills
        );
        if (run.said.length > 0) await say(`${run.said.join("\n")}\n\n`);
        text = run.remainingText.trim();
        if (run.failed || (text === "" && !attached)) {
            return { response: { stopReason: "end_turn" }, promptText: "" };
        }
    }

    // Refused whole: kept, it would make every later request too large too.
    const sizeProblem = promptSizeProblem(text, host.state().model);
    if (sizeProblem !== null) throw RequestError.invalidParams(undefined, sizeProblem);
    // Saved with the conversation, so the chat shows the prompt when it resumes it.
    await host.submit({ type: "record_view", action: { type: "user", text, attachments: [] } });
    const result = await host.submit({
        type: "prompt",
        text,
        attachedContext: content.attachedContext,
        attachedImages: content.attachedImages,
        signal,
    });
    if (signal.aborted) return { response: { stopReason: "cancelled" }, promptText: text };
    const end = translator.turnEnd(result);
    // The chat's own words, not the SDK's "Internal error: …" prefix: editors show the message as it is.
    if ("error" in end) throw new RequestError(-32603, end.error);
    if (end.note !== undefined) await say(`\n\n${end.note}\n\n`);
    return { response: { stopReason: end.stopReason }, promptText: text };
}
