/**
 * The chat's engine: the shared command host over the session handle, with a
 * switched model saved as the default, plus what the chat shows of the
 * conversation (context files, custom commands, the saved view).
 */
import { toolDisplaysOf } from "../agent/tool-displays";
import { createCommandHost } from "../commands/host";
import type { CheckpointStore } from "../storage/checkpoints";
import { saveSelectedModel } from "../storage/config";
import type { ProfileStore } from "../storage/profile";
import type { ChatEngine } from "../ui/command-context";
import { resolveReadyModel } from "./model-selection";
import type { SessionHandle } from "./session-start";

type Env = Record<string, string | undefined>;

export function createTuiEngine(
    handle: SessionHandle,
    deps: {
        profiles: ProfileStore;
        env?: Env;
        now?: () => number;
        /** Where the conversation's checkpoints are (default: North's data directory). */
        checkpoints?: CheckpointStore;
    }
): ChatEngine {
    const env = deps.env ?? process.env;
    const host = createCommandHost(handle, {
        resolveModel: (name) => resolveReadyModel(handle.catalogue, name, env),
        saveModel: (alias) => saveSelectedModel(alias, env),
        profiles: deps.profiles,
        now: deps.now,
        checkpoints: deps.checkpoints,
    });
    return {
        ...host,
        session: () => handle.session,
        conversationId: () => handle.sessionId,
        contextFiles: handle.extensions.contextFiles.map((file) => file.label),
        customCommands: handle.extensions.customCommands,
        history: () => handle.history(),
        toolDisplays: toolDisplaysOf(handle.tools),
        recordView: (action) => handle.recordView(action as unknown as Record<string, unknown>),
    };
}
