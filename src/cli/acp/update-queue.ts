/**
 * A session's `session/update` notifications, sent one after another in the
 * order they were made. While one is being written, streamed text that
 * follows text of the same kind joins it: an editor that reads slowly gets
 * fewer, longer chunks instead of a growing backlog of one-word lines.
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk";

type TextChunk = Extract<
    SessionUpdate,
    { sessionUpdate: "agent_message_chunk" | "agent_thought_chunk" }
> & { content: { type: "text"; text: string } };

function textChunk(update: SessionUpdate): TextChunk | null {
    if (
        update.sessionUpdate !== "agent_message_chunk" &&
        update.sessionUpdate !== "agent_thought_chunk"
    )
        return null;
    if (update.content.type !== "text" || update.messageId || update._meta) return null;
    return update as TextChunk;
}

export class UpdateQueue {
    private readonly waiting: SessionUpdate[] = [];
    private draining: Promise<void> | null = null;

    constructor(private readonly notify: (update: SessionUpdate) => Promise<void>) {}

    /** Queues `update`; resolves once everything queued so far is written. */
    send(update: SessionUpdate): Promise<void> {
        const last = this.waiting.at(-1);
        const lastText = last ? textChunk(last) : null;
        const text = textChunk(update);
        if (lastText && text && lastText.sessionUpdate === text.sessionUpdate) {
            lastText.content.text += text.content.text;
        } else {
            // A copy: a text chunk may be appended to while it waits.
            this.waiting.push(text ? { ...text, content: { ...text.content } } : update);
        }
        this.draining ??= this.drain();
        return this.draining;
    }

    /** Resolves once everything queued so far is written. */
    flushed(): Promise<void> {
        return this.draining ?? Promise.resolve();
    }

    private async drain(): Promise<void> {
        for (let next = this.waiting.shift(); next; next = this.waiting.shift()) {
            try {
                await this.notify(next);
            } catch {
                // The editor gone: the turn still ends and the conversation is saved.
            }
        }
        this.draining = null;
    }
}
