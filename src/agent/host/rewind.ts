/**
 * The host's rewind and fork: the conversation's prompts as rewind points,
 * taking the code and/or the conversation back, and continuing in a copy.
 */
import type { CheckpointStore, PlanResult } from "../../storage/checkpoints";
import { oneLine } from "../../util/short-text";
import type { ConversationKeeper } from "./conversation-keeper";
import {
    SHELL_NOT_TRACKED,
    fileNote,
    filesToRestore,
    reportLines,
    restorePlan,
} from "./rewind-restore";
import type { OpOf, OpReply, Outcome, RewindPoint, RewindPoints } from "../protocol";

/** A run still going would write after the switch: rewind and fork wait for it. */
const BUSY = "wait for the answer to finish (or cancel it with Ctrl+C) first";

const busy = (engine: ConversationKeeper) => engine.session.state().running;

/** The code half of a rewind: what it did, or why nothing was changed. */
async function rewindCode(
    checkpoints: CheckpointStore,
    engine: Pick<ConversationKeeper, "sessionId" | "addedRoots">,
    point: RewindPoint,
    overwriteChanged: boolean
): Promise<{ lines: string[]; complete: boolean } | { error: string }> {
    if (!point.code.ok) return { error: point.code.error };
    const outcome = await restorePlan(
        checkpoints.forConversation(engine.sessionId),
        point.code.plan,
        overwriteChanged,
        engine.addedRoots
    );
    if (!outcome.ok) return { error: outcome.error };
    return {
        lines: reportLines(outcome.report).map((line) => `  ${line}`),
        complete: outcome.report.skipped.length === 0,
    };
}

export async function rewindPointsOf(
    engine: ConversationKeeper,
    checkpoints: CheckpointStore
): Promise<RewindPoints> {
    if (busy(engine)) return { ok: false, error: `Cannot rewind now: ${BUSY}.` };
    if (!engine.log) {
        return { ok: false, error: "This conversation is not saved, so it cannot be rewound." };
    }
    const prompts = engine.prompts();
    // Changes are recorded under the prompt that was current: the target's and every
    // later one's, prompts an earlier conversation rewind took away included.
    const plans = await checkpoints.forConversation(engine.sessionId).planRestores(
        prompts.map((p) => p.fromHere),
        engine.repoRoot
    );
    const points = prompts.map((prompt, i): RewindPoint => {
        const code = plans[i] as PlanResult;
        const files = code.ok ? filesToRestore(code.plan) : [];
        return {
            number: i + 1,
            entryId: prompt.entryId,
            text: prompt.text,
            code,
            files: files.map(fileNote),
            changedSince: files.filter((f) => f.changedSince && !f.problem).map((f) => f.path),
        };
    });
    return { ok: true, points, notTracked: SHELL_NOT_TRACKED };
}

export async function rewindConversation(
    engine: ConversationKeeper,
    checkpoints: CheckpointStore,
    { point, scope, overwriteChanged }: OpOf<"rewind">
): Promise<Outcome> {
    if (busy(engine)) return { message: `Cannot rewind now: ${BUSY}.`, isError: true };
    const id = engine.sessionId;
    const lines: string[] = [];
    let complete = true;
    if (scope !== "conversation") {
        const code = await rewindCode(checkpoints, engine, point, overwriteChanged);
        if ("error" in code) {
            // "Both" stops here: a conversation rewound without its code would not match it.
            const rest = scope === "both" ? "; the conversation was not rewound either" : "";
            return { message: `The code was not restored: ${code.error}${rest}.`, isError: true };
        }
        lines.push(`Code back to before prompt ${point.number}:`, ...code.lines);
        complete = code.complete;
    }
    if (scope !== "code") {
        const rewound = engine.rewindConversation(point.entryId);
        if (rewound.ok) {
            lines.push(
                `Conversation ${id} rewound to before prompt ${point.number} (${oneLine(point.text, 60)}); the prompt is back in the composer.`,
                ...rewound.warnings.map((w) => `warning: ${w}`)
            );
        } else {
            lines.push(`The conversation was not rewound: ${rewound.error}`);
            complete = false;
        }
    }
    if (scope !== "conversation") lines.push(SHELL_NOT_TRACKED);
    return complete ? { message: lines.join("\n") } : { message: lines.join("\n"), isError: true };
}

export async function forkConversation(
    engine: ConversationKeeper,
    promptNumber: number | undefined
): Promise<OpReply<"fork">> {
    if (busy(engine)) return { message: `Cannot fork now: ${BUSY}.`, isError: true };
    let before: { entryId: string; text: string } | undefined;
    if (promptNumber !== undefined) {
        const prompts = engine.prompts();
        before = prompts[promptNumber - 1];
        if (!before) {
            return {
                message:
                    prompts.length === 0
                        ? "This conversation has no prompt yet; /fork alone copies it as it is."
                        : `/fork ${promptNumber}: choose a prompt from 1 to ${prompts.length} (/rewind lists them)`,
                isError: true,
            };
        }
    }
    const parent = engine.sessionId;
    const forked = engine.forkConversation(before?.entryId);
    if (!forked.ok) return { message: forked.error, isError: true };
    const where = promptNumber ? ` before prompt ${promptNumber}` : "";
    return {
        message: [
            `Forked conversation ${parent} into ${engine.sessionId}${where}; the original stays as it was: /resume ${parent}`,
            ...forked.warnings.map((w) => `warning: ${w}`),
        ].join("\n"),
        promptText: before?.text,
    };
}
