/**
 * kill -9 of the built CLI while it applies a checkpointed edit (a batch over
 * a 20,000-line file and a small one), then resume and `north rewind --to 1
 * --code`: shared by test/cli/rewind-kill.test.ts and `npm run bench --
 * checkpoints`.
 */
import { once } from "node:events";
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PacedLlmServer } from "./paced-llm-server";
import { type NorthRun, isolatedHome, runNorth } from "./run-north";

const BIG_LINES = 20_000;

export const KILL_FILES: Record<string, Buffer> = {
    "big.ts": Buffer.from(
        Array.from({ length: BIG_LINES }, (_, i) => `export const value${i} = ${i};`).join("\r\n") +
            "\r\n"
    ),
    "small.ts": Buffer.from("\uFEFFexport const small = 1;\n", "utf8"),
};

const EDIT = {
    name: "edit_apply_batch",
    input: {
        edits: [
            {
                tool: "edit_replace_exact",
                path: "big.ts",
                old_text: "value10000 = 10000;",
                new_text: "value10000 = -1;",
            },
            {
                tool: "edit_replace_exact",
                path: "small.ts",
                old_text: "small = 1",
                new_text: "small = 2",
            },
            { tool: "edit_create_file", path: "made/new.ts", content: "new\n" },
        ],
    },
};

export type FileState = "original" | "edited" | "mixed";

export interface KillOutcome {
    /** North died from the kill (false: it finished first). */
    killed: boolean;
    /** The files when North died: all as before, all edited, or some of each. */
    atKill: FileState;
    /** Checkpoint records written before the kill. */
    records: number;
    /** Every file byte-identical to its original after resume + rewind. */
    exact: boolean;
    /** What went wrong, for the report. */
    detail: string;
}

export function writeKillFiles(repo: string): void {
    for (const [name, bytes] of Object.entries(KILL_FILES)) writeFileSync(join(repo, name), bytes);
    rmSync(join(repo, "made"), { recursive: true, force: true });
}

function stateOf(repo: string): FileState {
    const same = Object.entries(KILL_FILES).map(([name, bytes]) =>
        readFileSync(join(repo, name)).equals(bytes)
    );
    same.push(!existsSync(join(repo, "made", "new.ts")));
    if (same.every(Boolean)) return "original";
    return same.some(Boolean) ? "mixed" : "edited";
}

function conversationId(dataDir: string): string | null {
    const logs = readdirSync(join(dataDir, "conversations")).filter((n) =>
        /^[0-9a-f]{6}\.jsonl$/.test(n)
    );
    return logs.length === 1 ? (logs[0] as string).slice(0, 6) : null;
}

function recordCount(dataDir: string, id: string): number {
    const manifest = join(dataDir, "checkpoints", id, "manifest.jsonl");
    if (!existsSync(manifest)) return 0;
    return readFileSync(manifest, "utf8")
        .split("\n")
        .filter((l) => l.trim() !== "").length;
}

/** Milliseconds from the end of the answer asking for the edit to North's next request. */
export async function measureEditWindow(
    server: PacedLlmServer,
    repo: string,
    baseEnv: NodeJS.ProcessEnv
): Promise<number> {
    const { home, env } = isolatedHome();
    try {
        writeKillFiles(repo);
        server.enqueue({ toolCalls: [EDIT] }, { text: "Done." });
        const run = runNorth(["-p", "edit it", "--path", repo, "--allow-edits"], {
            env: { ...baseEnv, ...env },
        });
        await once(server.events, "done");
        const answered = performance.now();
        await once(server.events, "request");
        const window = performance.now() - answered;
        const ended = await run;
        if (ended.code !== 0) throw new Error(`the calibration run failed: ${ended.stderr}`);
        return window;
    } finally {
        rmSync(home, { recursive: true, force: true });
    }
}

/** Resolves once a checkpoint record is on disk (or `stop` resolves first). */
async function checkpointWritten(dataDir: string, stop: Promise<unknown>): Promise<void> {
    let stopped = false;
    void stop.then(() => (stopped = true));
    const dir = join(dataDir, "checkpoints");
    while (!stopped) {
        for (const id of existsSync(dir) ? readdirSync(dir) : []) {
            if (recordCount(dataDir, id) > 0) return;
        }
        await new Promise((resolve) => setImmediate(resolve));
    }
}

/**
 * When the kill is aimed: `killAfterMs` after the answer asking for the edit
 * was sent ("answer"), or after the first checkpoint record appeared
 * ("checkpoint": between the record and the renames).
 */
export type KillAim = "answer" | "checkpoint";

/** One kill during the edit, then resume and rewind. */
export async function killDuringEdit(
    server: PacedLlmServer,
    repo: string,
    baseEnv: NodeJS.ProcessEnv,
    killAfterMs: number,
    aim: KillAim = "answer"
): Promise<KillOutcome> {
    const { home, env: isolated } = isolatedHome();
    const env = { ...baseEnv, ...isolated };
    const dataDir = isolated.NORTH_DATA_DIR as string;
    try {
        writeKillFiles(repo);
        server.enqueue({ toolCalls: [EDIT] }, { text: "Done." });
        let kill = (): void => undefined;
        const run = runNorth(["-p", "edit it", "--path", repo, "--allow-edits"], {
            env,
            onSpawn: (child) => (kill = () => void child.kill("SIGKILL")),
        });
        await Promise.race([once(server.events, "done"), run]);
        if (aim === "checkpoint") await checkpointWritten(dataDir, run);
        const timer = setTimeout(() => kill(), killAfterMs);
        const ended = await run;
        clearTimeout(timer);
        const killed = ended.signal === "SIGKILL";
        const atKill = stateOf(repo);
        const id = conversationId(dataDir);
        if (!id) return { killed, atKill, records: 0, exact: false, detail: "no conversation" };
        const records = recordCount(dataDir, id);
        if (server.remaining() === 0) server.enqueue({ text: "ok" });
        const resumed = await runNorth(["-p", "--resume", id, "carry on", "--path", repo], {
            env,
        });
        const rewound = await runNorth(["rewind", id, "--to", "1", "--code"], { env });
        const exact = stateOf(repo) === "original";
        const detail = exact ? "" : describe(resumed, rewound);
        return { killed, atKill, records, exact, detail };
    } finally {
        rmSync(home, { recursive: true, force: true });
    }
}

function describe(resumed: NorthRun, rewound: NorthRun): string {
    return `resume exit ${resumed.code}: ${resumed.stderr.trim()} | rewind exit ${rewound.code}: ${rewound.stdout.trim()} ${rewound.stderr.trim()}`;
}
