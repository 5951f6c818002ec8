/**
 * `npm run bench -- sessions`: appending to a conversation log, resuming a
 * 10,000-entry conversation in the chat, and `kill -9` at random moments.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createConversationStore } from "../src/storage/conversations";
import { median } from "./measure";
import { launch, makeFixture, writeConversation } from "./tui";

const KILLS = 100;

async function appendMedian(): Promise<number> {
    const dir = mkdtempSync(join(tmpdir(), "north-bench-append-"));
    try {
        const log = createConversationStore(dir).start({ repoRoot: "/repo", model: "m" });
        const times: number[] = [];
        for (let i = 0; i < 2000; i++) {
            const t = performance.now();
            log.append({
                type: "entry_added",
                entry: { id: `e${i}`, role: "assistant", content: "x".repeat(400) },
            });
            times.push(performance.now() - t);
        }
        log.close();
        return median(times);
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
}

async function resumeTenThousand(): Promise<{ fresh: number; resumed: number }> {
    const fixture = makeFixture("http://127.0.0.1:9");
    try {
        const id = writeConversation(fixture, 10_000);
        const fresh: number[] = [];
        const resumed: number[] = [];
        for (let i = 0; i < 5; i++) {
            const a = await launch(fixture);
            fresh.push(a.ms);
            a.north.kill();
            const b = await launch(fixture, ["--resume", id]);
            resumed.push(b.ms);
            b.north.kill();
        }
        return { fresh: median(fresh), resumed: median(resumed) };
    } finally {
        rmSync(fixture.repo, { recursive: true, force: true });
        rmSync(fixture.home, { recursive: true, force: true });
    }
}

async function killNine(): Promise<{ resumable: number; lost: number; entries: number }> {
    const writer = fileURLToPath(new URL("./fixtures/append-until-killed.ts", import.meta.url));
    let resumable = 0;
    let lost = 0;
    let entries = 0;
    for (let run = 0; run < KILLS; run++) {
        const dir = mkdtempSync(join(tmpdir(), "north-bench-kill-"));
        try {
            const child = spawn(process.execPath, ["--import", "tsx", writer, dir, "/repo"], {
                stdio: ["ignore", "pipe", "inherit"],
            });
            let out = "";
            child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
            // Kill at a random moment once it is writing.
            await new Promise<void>((resolve) => {
                const wait = (): void => {
                    if (out.includes("conversation "))
                        setTimeout(() => resolve(), Math.random() * 120);
                    else setTimeout(wait, 5);
                };
                wait();
            });
            child.kill("SIGKILL");
            await new Promise((resolve) => child.on("close", resolve));
            const id = /conversation ([0-9a-f]{6})/.exec(out)?.[1];
            const done = [...out.matchAll(/done (e\d+)/g)].map((m) => m[1]!);
            const loaded = id ? createConversationStore(dir).open(id) : null;
            if (loaded?.ok) {
                resumable++;
                const ids = new Set(loaded.conversation.entries.map((e) => e.id));
                lost += done.filter((d) => !ids.has(d)).length;
                entries += ids.size;
                loaded.log.close();
            }
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    }
    return { resumable, lost, entries };
}

export async function benchSessions(): Promise<void> {
    console.log("\n## Conversations");
    console.log(
        `append one entry, median of 2,000                 ${(await appendMedian()).toFixed(3)} ms  (target ≤ 1 ms)`
    );
    const resume = await resumeTenThousand();
    console.log(
        `chat to first frame: new ${resume.fresh.toFixed(0)} ms; resuming 10,000 entries ${resume.resumed.toFixed(0)} ms  (target ≤ 500 ms)`
    );
    const kills = await killNine();
    console.log(
        `kill -9 at random moments: ${kills.resumable}/${KILLS} resumable, ${kills.lost} completed entries lost (${kills.entries.toLocaleString()} entries checked)  (target 100 %, 0)`
    );
}
