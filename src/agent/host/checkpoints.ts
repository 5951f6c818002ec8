import type { CheckpointStore } from "../../storage/checkpoints";
import type { FileCheckpointer } from "../../tools/types";

/** Before the first prompt of a process (nothing edits then; a name that is no entry id). */
const NO_PROMPT = "before-first-prompt";

/**
 * The checkpointer of one conversation, recording each change under the entry
 * id of the latest user prompt; `onPrompt` is the conversation sink's hook.
 */
export function conversationCheckpoints(
    store: CheckpointStore,
    conversationId: string
): { checkpointer: FileCheckpointer; onPrompt(entryId: string): void } {
    let promptId = NO_PROMPT;
    const checkpointer = store.forConversation(conversationId).checkpointer(() => promptId);
    return {
        checkpointer,
        onPrompt: (entryId) => {
            promptId = entryId;
        },
    };
}
