/**
 * Project learning as ops: `learn_start` runs it in the background (the
 * user keeps chatting) and replies at once; progress and the end are host
 * events. `learn_stop` cancels it.
 */
import { runLearningSession } from "../learn";
import type { Outcome } from "../protocol";
import type { HostParts } from "./op-handlers";

/** Runs project learning with read-only tools, saves the profile and uses it from now on. */
async function learn(host: HostParts, signal: AbortSignal): Promise<Outcome> {
    const { deps, conversation } = host;
    deps.profiles.clearDeclined();
    const result = await runLearningSession({
        repoRoot: conversation.repoRoot,
        // A side job: the small fast model when one is set.
        model: deps.sideModel ?? conversation.session.state().model,
        providerFor: deps.providerFor,
        tools: deps.tools,
        logger: conversation.logger,
        signal,
        onProgress: (percent, topic) => {
            if (!signal.aborted) host.emit({ type: "learning", progress: { percent, topic } });
        },
        usageSink: host.spend.record,
    });
    if (result.cancelled) {
        return { message: "Learning cancelled; the profile was not changed.", isError: true };
    }
    const skipped = result.skipped.map((s) => `skipped ${s.topic}: ${s.reason}`);
    if (result.learned.length === 0) {
        return {
            message: ["Nothing was learned; the profile was not changed.", ...skipped].join("\n"),
            isError: true,
        };
    }
    deps.profiles.saveProfile(result.markdown);
    conversation.setProfile(result.markdown);
    const total = result.learned.length + result.skipped.length;
    return {
        message: [
            `Learned ${result.learned.length} of ${total} topics; the profile (${deps.profiles.profilePath}) is sent with every request from now on.`,
            ...skipped,
        ].join("\n"),
    };
}

export function startLearning(host: HostParts): Outcome {
    if (host.learning.current()) {
        return { message: "North is already learning this project; /learn stop cancels it." };
    }
    // Its own signal: learning goes on while the user chats, until learn_stop or the host closes.
    const controller = new AbortController();
    host.learning.set(controller);
    host.emit({ type: "learning", progress: { percent: 0, topic: "starting" } });
    const announce = (outcome: Outcome): void =>
        host.emit({
            type: "notice",
            level: outcome.isError ? "warning" : "info",
            text: outcome.message,
        });
    void learn(host, controller.signal)
        .then(announce, (error: unknown) =>
            announce({ message: `learning failed: ${(error as Error).message}`, isError: true })
        )
        .finally(() => {
            host.learning.set(null);
            host.emit({ type: "learning", progress: null });
            // Learning's own requests cost money too: the status line's figures changed.
            host.emit({ type: "state_changed" });
        });
    return {
        message:
            "Learning this project in the background (read-only, ten topics); keep chatting. Progress is in the status line; /learn stop cancels.",
    };
}

export function stopLearning(host: HostParts): Outcome {
    const running = host.learning.current();
    if (!running) return { message: "No learning is running." };
    running.abort();
    return { message: "Stopping the learning; the profile is not changed." };
}
