import { existsSync } from "node:fs";
import type { StructuredSummary } from "../agent/context";
import type { TranscriptSink } from "../agent/session";
import type { Message } from "../providers/types";
import type {
    ConversationLog,
    ConversationStore,
    LoadedConversation,
} from "../storage/conversations";

/** Persists engine transcript changes as conversation log events, one entry per message. */
export function createConversationSink(
    log: ConversationLog,
    onError: (message: string) => void
): TranscriptSink {
    let counter = 0;
    let failed = false;
    const nextId = (): string => `m${++counter}`;
    const append = (result: { ok: true } | { ok: false; error: string }): void => {
        if (!result.ok && !failed) {
            failed = true; // report once; the conversation goes on in memory
            onError(`could not save the conversation: ${result.error}`);
        }
    };
    const entry = (message: Message) => ({ id: nextId(), ...message });
    return {
        messageAdded: (message) =>
            append(log.append({ type: "entry_added", entry: entry(message) })),
        transcriptReplaced: (messages) =>
            append(log.append({ type: "transcript_replaced", entries: messages.map(entry) })),
        summarySet: (summary) => append(log.append({ type: "rolling_summary_set", summary })),
        modelChanged: (modelId) => append(log.append({ type: "model_changed", model: modelId })),
    };
}

/** The engine's view of a stored conversation. */
export function restoreConversation(conversation: LoadedConversation): {
    messages: Message[];
    rollingSummary: StructuredSummary | null;
} {
    const messages: Message[] = [];
    for (const entry of conversation.entries) {
        const { id: _id, ...rest } = entry;
        if ((rest.role === "user" || rest.role === "assistant") && rest.content !== undefined) {
            messages.push(rest as unknown as Message);
        }
    }
    return {
        messages,
        rollingSummary: (conversation.rollingSummary as StructuredSummary | null) ?? null,
    };
}

export type ResumeTarget =
    | { ok: true; log: ConversationLog; conversation: LoadedConversation; warnings: string[] }
    | { ok: false; error: string };

/** Opens `--resume ID` or, with `--continue`, the latest conversation of the repo. */
export function openForResume(
    store: ConversationStore,
    request: { resumeId?: string; continueRepo?: string }
): ResumeTarget {
    let id = request.resumeId;
    if (!id && request.continueRepo) {
        const latest = store.latestForRepo(request.continueRepo);
        if (!latest)
            return {
                ok: false,
                error: `no earlier conversation in ${request.continueRepo} to continue`,
            };
        id = latest.id;
    }
    if (!id) return { ok: false, error: "no conversation given" };
    const opened = store.open(id);
    if (!opened.ok) return opened;
    const warnings = [...opened.warnings];
    if (!existsSync(opened.conversation.repoRoot)) {
        warnings.push(
            `the conversation's project ${opened.conversation.repoRoot} no longer exists; pass --path to point it elsewhere`
        );
    }
    return { ok: true, log: opened.log, conversation: opened.conversation, warnings };
}
