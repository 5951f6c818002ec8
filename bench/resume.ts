/**
 * `npm run bench -- resume`: a 10,000-entry conversation written over ten
 * chained processes (each one resumes the log, as `--continue` does, and
 * adds 1,000 entries with the view records the chat keeps), then opened with
 * `north --resume ID` in a real pseudo-terminal.
 *
 * - resume to the first frame showing the conversation's last answer
 *   (median; target ≤ 500 ms), next to a fresh chat's launch and bare node;
 * - every entry present: the log replays to 10,000 entries, and the chat's
 *   transcript (the same reducer the app runs) holds every prompt and answer.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { restoreConversation } from "../src/agent/conversation-log";
import { DEFAULT_MODEL_ID } from "../src/providers/catalogue";
import { createConversationStore } from "../src/storage/conversations";
import { storedHistoryActions } from "../src/ui/transcript/history";
import { createTranscriptState, replayActions } from "../src/ui/transcript/reducer";
import { median } from "./measure";
import { type Fixture, launch, makeFixture } from "./tui";

const RUNS = Number(process.env.BENCH_RESUME_RUNS ?? 5);
const PROCESSES = 10;
const ENTRIES_PER_PROCESS = 1000;

/** Ten "processes" in turn: open the log (the lock, the numbering), add 1,000 entries, close. */
export function writeChainedConversation(fixture: Fixture): { id: string; last: string } {
    const store = createConversationStore(join(fixture.home, "data", "conversations"));
    const first = store.start({ repoRoot: fixture.repo, model: DEFAULT_MODEL_ID });
    const id = first.id;
    first.close();
    let last = "";
    for (let p = 0; p < PROCESSES; p++) {
        const opened = store.open(id);
        if (!opened.ok) throw new Error(opened.error);
        const { log } = opened;
        for (let i = 0; i < ENTRIES_PER_PROCESS / 2; i++) {
            const n = p * (ENTRIES_PER_PROCESS / 2) + i;
            const question = `question ${n}: how does module ${n} of the pipeline work?`;
            last = `reply ${n}: module ${n} reads the queue, retries twice, then writes the result.`;
            log.append({ type: "view", record: { type: "user", text: question, attachments: [] } });
            log.append({
                type: "entry_added",
                entry: { id: log.newEntryId(), role: "user", content: question, prompt: true },
            });
            log.append({
                type: "view",
                record: { type: "engine", event: { type: "text_delta", text: last } },
            });
            log.append({
                type: "entry_added",
                entry: {
                    id: log.newEntryId(),
                    role: "assistant",
                    content: [{ type: "text", text: last }],
                },
            });
            log.append({
                type: "view",
                record: {
                    type: "engine",
                    event: {
                        type: "context",
                        usedTokens: 1000 + n,
                        limitTokens: 200_000,
                        usage: (1000 + n) / 200_000,
                    },
                },
            });
        }
        log.append({ type: "conversation_ended" });
        log.close();
    }
    return { id, last };
}

function verdict(ok: boolean): string {
    return ok ? "ok" : "MISSED";
}

export async function benchResume(): Promise<void> {
    const fixture = makeFixture("http://127.0.0.1:9");
    try {
        const { id, last } = writeChainedConversation(fixture);

        // Every entry present, through the same code the chat runs.
        const store = createConversationStore(join(fixture.home, "data", "conversations"));
        const loadStarted = performance.now();
        const loaded = store.load(id);
        if (!loaded.ok) throw new Error(loaded.error);
        const restored = restoreConversation(loaded.conversation);
        const actions = storedHistoryActions({
            view: loaded.conversation.view,
            messages: restored.messages,
            messagesBeforeView: loaded.conversation.entriesBeforeView,
        });
        const state = replayActions(createTranscriptState(), actions);
        const inProcessMs = performance.now() - loadStarted;
        const prompts = state.entries.filter((e) => e.kind === "user").length;
        const answers = state.entries.filter((e) => e.kind === "assistant").length;
        const total = PROCESSES * ENTRIES_PER_PROCESS;

        const fresh: number[] = [];
        const resumed: number[] = [];
        for (let i = 0; i <= RUNS; i++) {
            const plain = await launch(fixture);
            plain.north.kill();
            const started = performance.now();
            const { north } = await launch(fixture, ["--resume", id]);
            await north.waitFor(
                () => north.screenText().includes(last.slice(0, 40)),
                30_000,
                "the last answer"
            );
            const ms = performance.now() - started;
            north.kill();
            if (i === 0) continue; // the first run warms the disk cache
            fresh.push(plain.ms);
            resumed.push(ms);
        }
        const resumeMedian = median(resumed);
        const freshMedian = median(fresh);
        console.log(
            `\nResume of a ${total.toLocaleString("en")}-entry conversation (10 chained processes)`
        );
        console.log(
            `  entries in the log after replay: ${loaded.conversation.entries.length} of ${total} — ${verdict(loaded.conversation.entries.length === total)}`
        );
        console.log(
            `  chat transcript: ${prompts} prompts and ${answers} answers of ${total / 2} each — ${verdict(prompts === total / 2 && answers === total / 2)}`
        );
        console.log(`  load + replay in process: ${inProcessMs.toFixed(1)} ms`);
        console.log(
            `  --resume to the first frame with the last answer (median of ${RUNS}): ${resumeMedian.toFixed(1)} ms — target ≤ 500 ms: ${verdict(resumeMedian <= 500)}`
        );
        console.log(
            `  a fresh chat to its first frame (same run): ${freshMedian.toFixed(1)} ms — ratio ${(resumeMedian / freshMedian).toFixed(2)}×`
        );
    } finally {
        rmSync(fixture.home, { recursive: true, force: true });
        rmSync(fixture.repo, { recursive: true, force: true });
    }
}
