/**
 * Background processes in the chat (issue 35, parts 1, 3 and 5), through a
 * real pseudo-terminal: a scripted model starts a background command, the
 * status line counts it, `/ps` lists it, shows its output and stops it with
 * a key; Ctrl+B moves a running command into the background; a password a
 * program asks for is typed into a masked field and is found nowhere on disk
 * (prompt history, conversation log, view records, anything under North's
 * folders or the project) nor in anything North drew.
 * Needs `node scripts/build.mjs` first.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { answerReview, type NorthPtySession, startNorthSession } from "../../kit/pty";

const TIMEOUT = 120_000;
const CTRL_B = "\x02";
const ESC = "\x1b";
/** The processes view takes keys once this shows (processes-dialog.tsx's PROCESSES_HINT). */
const PROCESSES_READY = "↑/↓ choose · Enter output · S stop · Esc close";
/** The password field takes keys once this shows (secret-review.tsx). */
const SECRET_READY = "[Enter] send";

let session: NorthPtySession | undefined;
/** A word in every command a test starts, to find what North left running. */
let token = "";

/** Pids of live processes whose command line holds `word`. */
function processesWith(word: string): number[] {
    const pids: number[] = [];
    for (const entry of readdirSync("/proc")) {
        if (!/^\d+$/.test(entry)) continue;
        try {
            const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
            if (cmdline.includes(word) && Number(entry) !== process.pid) pids.push(Number(entry));
        } catch {
            // gone meanwhile
        }
    }
    return pids;
}

afterEach(async () => {
    await session?.dispose();
    session = undefined;
    // A failed test may leave its commands behind: end exactly those.
    if (token !== "") {
        for (const pid of processesWith(token)) {
            try {
                process.kill(pid, "SIGKILL");
            } catch {
                // already gone
            }
        }
    }
    token = "";
});

function newToken(): string {
    token = `bgtest${process.pid}x${Math.random().toString(36).slice(2, 8)}`;
    return token;
}

/** The status line: the last row that is not empty. */
function statusRow(s: NorthPtySession): string {
    return (
        s.north
            .screenText()
            .split("\n")
            .findLast((row) => row.trim() !== "") ?? ""
    );
}

/** North exits with Ctrl+C when idle; its background processes end with it. */
async function exitNorth(s: NorthPtySession, word: string): Promise<void> {
    const exited = await s.north.exit(30_000);
    expect(exited.exitCode).toBe(0);
    await s.north.waitFor(
        () => processesWith(word).length === 0,
        20_000,
        "North's background processes to end with it"
    );
}

/** Every regular file under `dir`, depth first. */
function filesUnder(dir: string): string[] {
    const out: string[] = [];
    for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        const info = statSync(path, { throwIfNoEntry: false });
        if (info?.isDirectory()) out.push(...filesUnder(path));
        else if (info?.isFile()) out.push(path);
    }
    return out;
}

describe("background processes in the chat", () => {
    it(
        "counts a background command in the status line; /ps lists it, shows its output and stops it with S",
        async () => {
            const word = newToken();
            session = await startNorthSession({ cols: 100, rows: 40 });
            const s = session;
            s.server.enqueue(
                {
                    toolCalls: [
                        {
                            name: "shell_run",
                            input: {
                                command: `echo ready-${word}; echo second-line; sleep 600; echo never-${word}`,
                                background: true,
                            },
                        },
                    ],
                },
                { text: "The server runs." }
            );
            await s.submit("start the server");
            await s.north.waitForText("Run this command?");
            await answerReview(s.north, { option: 1 });
            await s.north.waitForText("The server runs.", 30_000);
            await s.north.waitFor(
                () => statusRow(s).includes("1 process"),
                20_000,
                "the status line to count the process"
            );
            expect(s.north.screenText()).toMatch(/p1 `echo ready-\S+ .*` runs in the background/);
            expect(processesWith(word).length).toBeGreaterThan(0);

            await s.submit("/ps");
            await s.north.waitForText(PROCESSES_READY, 20_000);
            expect(s.north.screenText()).toMatch(/› p1 {2}running {2}\d+s {2}\d+ B {2}echo ready-/);
            s.north.type("\r");
            await s.north.waitForText("── p1 output: last", 20_000);
            await s.north.waitFor(
                () => /── p1 output[^]*second-line/.test(s.north.screenText()),
                20_000,
                "p1's output in the view"
            );

            s.north.type("s");
            await s.north.waitForText("Stopped p1", 30_000);
            await s.north.waitFor(
                () => /p1 {2}stopped/.test(s.north.screenText()),
                20_000,
                "the list to show p1 stopped"
            );
            await s.north.waitFor(
                () => !statusRow(s).includes("process"),
                20_000,
                "the status line without processes"
            );
            expect(processesWith(word)).toEqual([]);
            s.north.type(ESC);
            await s.north.waitFor(
                () => !s.north.screenText().includes(PROCESSES_READY),
                20_000,
                "the view closed"
            );
            await exitNorth(s, word);
        },
        TIMEOUT
    );

    it(
        "moves a running command into the background with Ctrl+B; it keeps running until North exits",
        async () => {
            const word = newToken();
            session = await startNorthSession({ cols: 100, rows: 40 });
            const s = session;
            s.server.enqueue(
                {
                    toolCalls: [
                        {
                            name: "shell_run",
                            input: {
                                command: `echo started-${word}; sleep 600; echo never-${word}`,
                            },
                        },
                    ],
                },
                { text: "Moved on." }
            );
            // With no command running, Ctrl+B is the composer's: the cursor goes left.
            s.north.type("ac");
            await s.north.waitForText("❯ ac");
            s.north.type(CTRL_B);
            s.north.type("b");
            await s.north.waitForText("❯ abc");
            s.north.type("\x03");
            await s.north.waitFor(
                () => !s.north.screenText().includes("❯ abc"),
                20_000,
                "the composer cleared"
            );
            await s.submit("run the long thing");
            await s.north.waitForText("Run this command?");
            await answerReview(s.north, { option: 1 });
            await s.north.waitForText(new RegExp(`^ +started-${word}$`, "m"), 30_000);
            s.north.type(CTRL_B);
            await s.north.waitForText("moved to the background as p1", 30_000);
            await s.north.waitForText("Moved on.", 30_000);
            await s.north.waitFor(
                () => statusRow(s).includes("1 process"),
                20_000,
                "the status line to count the process"
            );
            expect(processesWith(word).length).toBeGreaterThan(0);
            await exitNorth(s, word);
        },
        TIMEOUT
    );

    it(
        "asks for a password in a masked field; the secret reaches the program and nothing else",
        async () => {
            const word = newToken();
            const secret = `Zq9pw${word}`;
            session = await startNorthSession({ cols: 100, rows: 40 });
            const s = session;
            s.server.enqueue(
                {
                    toolCalls: [
                        {
                            name: "shell_run",
                            input: {
                                command: `read -r -s -p 'Password: ' pw; echo; echo "got \${#pw} chars ${word}"; sleep 600; echo never-${word}`,
                                tty: true,
                            },
                        },
                    ],
                },
                { toolCalls: [{ name: "process_send", input: { id: "p1", askUser: true } }] },
                { text: "Sent it." }
            );
            await s.submit("log in");
            await s.north.waitForText("Run this command?");
            await answerReview(s.north, { option: 1 });
            // Typing into a program is reviewed like a command unless a rule covers it.
            await s.north.waitForText("Asking you to answer p1", 30_000);
            await s.north.waitFor(
                () =>
                    s.north.screenText().includes("asks for a password") ||
                    s.north.screenText().includes("Enter to choose"),
                30_000,
                "the password field (or the review of the input)"
            );
            if (!s.north.screenText().includes("asks for a password")) {
                await answerReview(s.north, { option: 1 });
            }
            await s.north.waitForText(SECRET_READY, 30_000);
            for (const ch of secret) s.north.type(ch);
            await s.north.waitForText("•".repeat(secret.length), 20_000);
            expect(s.north.screenText()).not.toContain(secret);
            s.north.type("\r");
            await s.north.waitForText("Sent it.", 30_000);

            // The program got it: its output, read through /ps.
            await s.submit("/ps");
            await s.north.waitForText(PROCESSES_READY, 20_000);
            s.north.type("\r");
            await s.north.waitForText("── p1 ", 20_000);
            await s.north.waitForText(`got ${secret.length} chars ${word}`, 20_000);
            s.north.type(ESC);
            await s.north.waitFor(
                () => !s.north.screenText().includes(PROCESSES_READY),
                20_000,
                "the view closed"
            );
            await exitNorth(s, word);

            // Nothing North drew, and no file it wrote, holds the secret.
            expect(s.north.output()).not.toContain(secret);
            const home = s.env.HOME!;
            const files = [...filesUnder(home), ...filesUnder(s.repo)];
            expect(files.some((f) => f.includes("history"))).toBe(true);
            const holding = files.filter((f) => readFileSync(f).includes(secret));
            expect(holding).toEqual([]);
            // The conversation says a password was asked for and answered, nothing more.
            const logs = files.filter((f) => f.endsWith(".jsonl"));
            expect(logs.some((f) => readFileSync(f, "utf8").includes("asked for a password"))).toBe(
                true
            );
        },
        TIMEOUT
    );
});
