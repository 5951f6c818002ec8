import { existsSync } from "node:fs";
import { join } from "node:path";
import { type ConversationStore, createConversationStore } from "../storage/conversations";
import type { RewindScope } from "../agent/protocol";
import {
    type CheckpointStore,
    type PlanResult,
    createCheckpointStore,
} from "../storage/checkpoints";
import { dataDir } from "../storage/paths";
import type { CliArgs } from "./args";
import { terminalSafeText, writeStderr, writeStdout } from "../util/terminal-text";
import { entryIdsFrom, isPromptEntry, promptText } from "../agent/conversation-log";
import { oneLine } from "../util/short-text";
import {
    SHELL_NOT_TRACKED,
    fileNote,
    filesToRestore,
    reportLines,
    restorePlan,
} from "../agent/host/rewind-restore";

type Result = { ok: true } | { ok: false; error: string };

export interface RewindDeps {
    store: Pick<ConversationStore, "load" | "resolveId">;
    checkpoints: CheckpointStore;
    /** Takes conversation `id` back to just before entry `entryId`. */
    rewindConversation(id: string, entryId: string): Result;
    out(text: string): void;
    err(text: string): void;
}

interface Prompt {
    entryId: string;
    text: string;
    /**
     * Its entry id and every later one: the changes recorded under any of them
     * (a prompt, or an entry the session added after it) came after it.
     */
    fromHere: string[];
}

/** The conversation half: a `rewound` event in its log (the log keeps everything). */
export function rewindConversationLog(
    store: Pick<ConversationStore, "open">,
    id: string,
    entryId: string
): Result {
    const opened = store.open(id, { ifOpenElsewhere: "fail" });
    if (!opened.ok) return opened;
    const appended = opened.log.append({ type: "rewound", entryId });
    opened.log.close();
    return appended;
}

function defaultDeps(): RewindDeps {
    const store = createConversationStore(join(dataDir(), "conversations"));
    return {
        store,
        checkpoints: createCheckpointStore(),
        rewindConversation: (id, entryId) => rewindConversationLog(store, id, entryId),
        out: writeStdout,
        err: writeStderr,
    };
}

function filesLine(plan: PlanResult): string {
    if (!plan.ok) return "";
    const files = filesToRestore(plan.plan);
    if (files.length === 0) return "\n     restores: no file (North changed none since)";
    return `\n     restores: ${files.map(fileNote).join(", ")}`;
}

async function listPrompts(
    id: string,
    repoRoot: string,
    prompts: readonly Prompt[],
    deps: RewindDeps
): Promise<number> {
    if (prompts.length === 0) {
        deps.out(`Conversation ${id} has no prompts to rewind to.\n`);
        return 0;
    }
    const plans = await deps.checkpoints.forConversation(id).planRestores(
        prompts.map((p) => p.fromHere),
        repoRoot
    );
    const lines = prompts.map(
        (p, i) =>
            `${String(i + 1).padStart(3)}. ${oneLine(terminalSafeText(p.text), 70)}${filesLine(plans[i] as PlanResult)}`
    );
    const gone = plans.find((p) => !p.ok);
    const flagged = plans.some((p) => p.ok && p.plan.files.some((f) => f.changedSince));
    deps.out(
        [
            `Conversation ${id} (${repoRoot}): rewinding to before prompt N restores the code as it was then.`,
            ...lines,
            "",
            ...(gone && !gone.ok
                ? [`Code: ${gone.error}; --conversation still rewinds the conversation.`]
                : []),
            ...(flagged
                ? [
                      "[changed since]: changed by something other than North after North did; kept unless --force.",
                  ]
                : []),
            SHELL_NOT_TRACKED,
            `Rewind with: north rewind ${id} --to N [--code | --conversation] [--force]`,
            "",
        ].join("\n")
    );
    return 0;
}

/** Restores the code to before the prompt whose id is first in `promptIds`; true when complete. */
async function rewindCode(
    id: string,
    repoRoot: string,
    promptIds: readonly string[],
    force: boolean,
    deps: RewindDeps
): Promise<boolean> {
    if (!existsSync(repoRoot)) {
        deps.err(
            `north: the conversation's project ${repoRoot} no longer exists; no code was restored\n`
        );
        return false;
    }
    const checkpoints = deps.checkpoints.forConversation(id);
    const planned = await checkpoints.planRestore(promptIds, repoRoot);
    if (!planned.ok) {
        deps.err(`north: ${planned.error}\n`);
        return false;
    }
    const outcome = await restorePlan(checkpoints, planned.plan, force);
    if (!outcome.ok) {
        deps.err(`north: rewind: ${outcome.error}\n`);
        return false;
    }
    deps.out(
        reportLines(outcome.report)
            .map((l) => `  ${l}\n`)
            .join("")
    );
    const changed = outcome.report.skipped.filter((s) => s.changed);
    if (changed.length > 0) {
        deps.err(
            `north: ${changed.length === 1 ? "1 file was" : `${changed.length} files were`} changed since North changed ` +
                `${changed.length === 1 ? "it" : "them"} and kept as they are; run again with --force to overwrite ${changed.length === 1 ? "it" : "them"}.\n`
        );
    }
    return outcome.report.skipped.length === 0;
}

function scopeOf(args: CliArgs): RewindScope {
    if (args.rewindCode) return "code";
    if (args.rewindConversation) return "conversation";
    return "both";
}

/**
 * `north rewind ID [--to N] [--code|--conversation] [--force]`: without
 * `--to`, lists the conversation's prompts and what rewinding to each would
 * restore; with it, restores the code and/or the conversation to before
 * prompt N. Exit 0 when everything asked was done, 1 when something was
 * kept or failed, 2 for a usage error.
 */
export async function runRewindCommand(
    args: CliArgs,
    deps: RewindDeps = defaultDeps()
): Promise<number> {
    const wanted = args.prompt?.trim();
    if (!wanted || /\s/.test(wanted)) {
        deps.err("north: rewind needs one conversation id (see north list)\n");
        return 2;
    }
    if (args.rewindCode && args.rewindConversation) {
        deps.err("north: --code and --conversation exclude each other; give neither for both\n");
        return 2;
    }
    const resolved = deps.store.resolveId(wanted);
    if (!resolved.ok) {
        deps.err(`north: ${resolved.error}\n`);
        return 2;
    }
    const id = resolved.id;
    const loaded = deps.store.load(id);
    if (!loaded.ok) {
        deps.err(`north: ${loaded.error}\n`);
        return 2;
    }
    const conversation = loaded.conversation;
    const { repoRoot, entries } = conversation;
    const prompts: Prompt[] = entries.flatMap((e) =>
        isPromptEntry(e)
            ? [{ entryId: e.id, text: promptText(e), fromHere: entryIdsFrom(conversation, e.id) }]
            : []
    );
    if (args.rewindTo === undefined) return listPrompts(id, repoRoot, prompts, deps);

    const n = /^\d+$/.test(args.rewindTo) ? Number(args.rewindTo) : NaN;
    if (!(n >= 1 && n <= prompts.length)) {
        deps.err(
            prompts.length === 0
                ? `north: conversation ${id} has no prompts to rewind to\n`
                : `north: --to ${args.rewindTo}: choose a prompt from 1 to ${prompts.length} (north rewind ${id} lists them)\n`
        );
        return 2;
    }
    const prompt = prompts[n - 1] as Prompt;
    const scope = scopeOf(args);
    let complete = true;
    if (scope !== "conversation") {
        deps.out(`Code of ${repoRoot}, back to before prompt ${n}:\n`);
        complete = await rewindCode(id, repoRoot, prompt.fromHere, args.force, deps);
    }
    if (scope !== "code") {
        const rewound = deps.rewindConversation(id, prompt.entryId);
        if (rewound.ok) {
            deps.out(
                `Conversation ${id} rewound to before prompt ${n} (${oneLine(terminalSafeText(prompt.text), 60)}); continue it with north resume ${id}.\n`
            );
        } else {
            deps.err(`north: the conversation was not rewound: ${rewound.error}\n`);
            complete = false;
        }
    }
    if (scope !== "conversation") deps.out(`${SHELL_NOT_TRACKED}\n`);
    return complete ? 0 : 1;
}
