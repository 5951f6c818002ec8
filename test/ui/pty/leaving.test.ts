/**
 * Leaving is deliberate and the repository stays quiet (issue 36, parts 3, 8
 * and the `#` notes): Ctrl+C at the idle composer asks first, a cleared draft
 * stays in the history, Ctrl+D exits, a start-and-quit leaves no
 * conversation, `/quit` is not saved, and what North writes on its own lands
 * in its data folder. Needs `node scripts/build.mjs` first.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type HeldLlmServer, startHeldLlmServer } from "../../kit/held-llm-server";
import {
    answerReview,
    EMPTY_COMPOSER,
    isAppReady,
    keysRead,
    type NorthPtySession,
    PICKER_READY,
    type PtyNorth,
    spawnNorthPty,
    startNorthSession,
} from "../../kit/pty";

const TIMEOUT = 90_000;
const CTRL_C = "\x03";
const CTRL_D = "\x04";
const UP = "\x1b[A";
const EXIT_HINT = "Press Ctrl+C again to exit";

let session: NorthPtySession | undefined;
let held: HeldLlmServer | undefined;
const extra: PtyNorth[] = [];
afterEach(async () => {
    for (const north of extra.splice(0)) north.kill();
    await session?.dispose();
    session = undefined;
    await held?.close();
    held = undefined;
});

/** The composer's first row ("❯ text"), trailing spaces trimmed. */
function composerRow(north: PtyNorth): string {
    const rows = north.screenText().split("\n");
    return (rows.findLast((row) => row.trimStart().startsWith("❯")) ?? "").trim();
}

/** Waits for the composer to hold `text` ("": empty, its placeholder showing). */
async function composerShows(north: PtyNorth, text: string): Promise<void> {
    const holds = (row: string): boolean =>
        text === "" ? row.includes(EMPTY_COMPOSER) : row === `❯ ${text}`;
    await north.waitFor(() => holds(composerRow(north)), 15_000, `the composer: ❯ ${text}`);
}

/** Another North on the same project and home, ready for keys. */
async function another(s: NorthPtySession, args: string[] = []): Promise<PtyNorth> {
    const north = spawnNorthPty({ args: ["--path", s.repo, ...args], env: s.env, cwd: s.repo });
    extra.push(north);
    await north.waitFor(() => isAppReady(north), 20_000, "the status line");
    await keysRead(north);
    return north;
}

function conversationFiles(s: NorthPtySession): string[] {
    const dir = join(s.env.NORTH_DATA_DIR!, "conversations");
    return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".jsonl")) : [];
}

describe("leaving the chat", () => {
    it(
        "Ctrl+C clears a draft (Up brings it back), then asks for a second Ctrl+C, whose window closes",
        async () => {
            session = await startNorthSession();
            const { north } = session;
            north.type("a draft worth keeping");
            await composerShows(north, "a draft worth keeping");
            north.type(CTRL_C);
            await composerShows(north, "");
            expect(north.screenText()).not.toContain(EXIT_HINT);
            north.type(UP);
            await composerShows(north, "a draft worth keeping");

            // Clear, then at once another Ctrl+C: it only asks.
            north.type(CTRL_C);
            await composerShows(north, "");
            north.type(CTRL_C);
            await north.waitForText(EXIT_HINT);
            expect(north.hasExited()).toBe(false);
            // The window closes and the hint goes; the next Ctrl+C asks again.
            await north.waitFor(
                () => !north.screenText().includes(EXIT_HINT),
                15_000,
                "the hint gone"
            );
            expect(north.hasExited()).toBe(false);
            north.type(CTRL_C);
            await north.waitForText(EXIT_HINT);
            north.type(CTRL_C);
            expect((await north.exited).exitCode).toBe(0);
        },
        TIMEOUT
    );

    it(
        "three Ctrl+C at once with a draft exit with nothing lost: the answer saved, the draft in the history",
        async () => {
            session = await startNorthSession();
            const { north, server, submit } = session;
            server.enqueue({ text: "An answer worth keeping." });
            await submit("a question");
            await north.waitForText("An answer worth keeping.");
            north.type("half a thought");
            await composerShows(north, "half a thought");
            north.type(CTRL_C + CTRL_C + CTRL_C);
            expect((await north.exited).exitCode).toBe(0);

            const resumed = await another(session, ["--continue"]);
            await resumed.waitForText("An answer worth keeping.");
            resumed.type(UP);
            await composerShows(resumed, "half a thought");
        },
        TIMEOUT
    );

    it(
        "three Ctrl+C at once while North works cancel the run and do not exit; two more exit",
        async () => {
            held = await startHeldLlmServer();
            session = await startNorthSession({
                env: { ANTHROPIC_BASE_URL: held.anthropicBaseUrl },
            });
            const { north, submit } = session;
            await submit("tell me a story");
            await held.requested(1);
            await north.waitForText("Ctrl+C to cancel");
            north.type(CTRL_C + CTRL_C + CTRL_C);
            await north.waitForText("[Cancelled]");
            await composerShows(north, "");
            expect(north.hasExited()).toBe(false);
            north.type(CTRL_C);
            await north.waitForText(EXIT_HINT);
            north.type(CTRL_C);
            expect((await north.exited).exitCode).toBe(0);

            // The cancelled prompt is kept with its conversation.
            const resumed = await another(session, ["--continue"]);
            await resumed.waitForText("tell me a story");
        },
        TIMEOUT
    );

    it(
        "Ctrl+D deletes forward in a draft and exits at the empty composer",
        async () => {
            session = await startNorthSession();
            const { north } = session;
            north.type("abc");
            await composerShows(north, "abc");
            north.type("\x01" + CTRL_D); // Ctrl+A: to the start, then delete forward
            await composerShows(north, "bc");
            expect(north.hasExited()).toBe(false);
            north.type("\x05\x15"); // Ctrl+E, Ctrl+U: empty again
            await composerShows(north, "");
            north.type(CTRL_D);
            expect((await north.exited).exitCode).toBe(0);
        },
        TIMEOUT
    );

    it(
        "a start-and-quit leaves no conversation, --continue opens the last real one, and /quit is not in it",
        async () => {
            session = await startNorthSession();
            const { north, server, submit } = session;
            server.enqueue({ text: "The real answer." });
            await submit("the real question");
            await north.waitForText("The real answer.");
            await submit("/quit");
            expect((await north.exited).exitCode).toBe(0);
            expect(conversationFiles(session)).toHaveLength(1);

            const idle = await another(session);
            idle.type(CTRL_D);
            expect((await idle.exited).exitCode).toBe(0);
            expect(idle.output()).not.toContain("Continue this conversation");
            expect(conversationFiles(session)).toHaveLength(1);

            const resumed = await another(session, ["--continue"]);
            await resumed.waitForText("The real answer.");
            const screen = resumed.screenText();
            expect(screen).toContain("the real question");
            expect(screen).not.toContain("/quit");
            expect(screen).not.toContain("Bye.");
        },
        TIMEOUT
    );
});

describe("# notes", () => {
    it(
        "hint while typing; Enter asks project or user memory; Esc keeps the note in the composer",
        async () => {
            session = await startNorthSession();
            const { north, repo, env, server } = session;
            north.type("# run tests with pnpm");
            await composerShows(north, "# run tests with pnpm");
            await north.waitForText("# note → memory");
            north.type("\r");
            await north.waitForText("Save this note to");
            await north.waitForText(PICKER_READY);
            north.type("\x1b");
            await composerShows(north, "# run tests with pnpm");
            expect(north.screenText()).not.toContain(PICKER_READY);

            north.type("\r");
            await north.waitForText(PICKER_READY);
            north.type("\x1b[B");
            await north.waitForText("› User memory");
            north.type("\r");
            await north.waitForText("Saved to user memory");
            const memory = join(env.NORTH_DATA_DIR!, "memory", "MEMORY.md");
            expect(readFileSync(memory, "utf8")).toContain("run tests with pnpm");
            expect(existsSync(join(repo, ".north"))).toBe(false);
            expect(server.requests).toHaveLength(0);
        },
        TIMEOUT
    );
});

describe("a quiet repository", () => {
    it(
        'a session that answers "always", adds a note, exports and quits leaves git status clean but for what the user made',
        async () => {
            session = await startNorthSession({ files: { "app.ts": "export {};\n" } });
            const { north, server, submit, repo } = session;
            const git = (...args: string[]) =>
                execFileSync("git", args, { cwd: repo, encoding: "utf8" });
            git("init", "-q");
            git("add", ".");
            git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start");

            server.enqueue(
                { toolCalls: [{ name: "shell_run", input: { command: "touch made.txt" } }] },
                { text: "Made it." }
            );
            await submit("make a file");
            await north.waitForText("don't ask again");
            await answerReview(north, { option: 2 });
            await north.waitForText("Made it.");

            await submit("# the user's own note");
            await north.waitForText(PICKER_READY);
            north.type("\x1b[B");
            await north.waitForText("› User memory");
            north.type("\r");
            await north.waitForText("Saved to user memory");

            await submit("/export");
            await north.waitForText("Exported the conversation to");
            await submit("/quit");
            expect((await north.exited).exitCode).toBe(0);
            expect(git("status", "--porcelain").trim()).toBe("?? made.txt");
        },
        TIMEOUT
    );
});
