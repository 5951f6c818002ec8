/**
 * Issue 36, part 2: a message whose first word is `/name` is a command (an
 * unknown one is refused and never sent), paths are text, `!command` runs a
 * shell command the user typed. The built `north` in a real pty, the model a
 * fake server that records every request. Needs `node scripts/build.mjs` first.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeLlmServer } from "../../kit/fake-llm-server";
import {
    EMPTY_COMPOSER,
    type NorthPtySession,
    PICKER_READY,
    spawnNorthPty,
    startNorthSession,
} from "../../kit/pty";
import { isolatedHome, runNorth } from "../../kit/run-north";

const TIMEOUT = 60_000;

let session: NorthPtySession | undefined;
afterEach(async () => {
    await session?.dispose();
    session = undefined;
});

/** The composer's row (the last one with the prompt mark). */
const composerRow = (s: NorthPtySession): string =>
    s.north
        .screenText()
        .split("\n")
        .findLast((row) => row.includes("❯ ")) ?? "";

/** The user messages' text of request `index`, joined. */
function userText(s: NorthPtySession, index: number): string {
    const body = s.server.requests[index]?.body as { messages?: unknown[] } | undefined;
    return JSON.stringify(
        (body?.messages ?? []).filter((m) => (m as { role?: string }).role === "user")
    );
}

function alive(pid: number): boolean {
    try {
        process.kill(pid, 0);
        return true;
    } catch {
        return false;
    }
}

describe("the first word decides: command, text or shell", () => {
    it(
        "a mistyped /clera says did you mean /clear, sends nothing, and Up brings it back",
        async () => {
            session = await startNorthSession();
            const { north, server, submit } = session;
            await submit("/clera the screen");
            await north.waitForText("unknown command /clera — did you mean /clear");
            expect(north.screenText()).toContain("Nothing was sent.");
            north.type("\x1b[A");
            await north.waitFor(
                () => composerRow(session!).includes("/clera the screen"),
                10_000,
                "the draft back in the composer"
            );
            expect(server.requests).toHaveLength(0);
        },
        TIMEOUT
    );

    it(
        "/ alone and / with spaces give a hint and send nothing",
        async () => {
            session = await startNorthSession();
            const { north, server } = session;
            // Spaces after the /: no name to complete, Enter sends.
            north.type("/   ");
            await north.waitFor(() => composerRow(session!).includes("/"), 10_000, "the /");
            north.type("\r");
            await north.waitForText("/ starts a command: type its name");
            // A lone / opens the command list: Esc closes it, then Enter sends the /.
            north.type("/");
            await north.waitForText("/conversations");
            north.type("\x1b");
            await north.waitFor(
                () => !north.screenText().includes("/conversations"),
                10_000,
                "the list closed"
            );
            north.type("\r");
            await north.waitFor(
                () => north.screenText().split("/ starts a command").length === 3,
                10_000,
                "a second hint"
            );
            expect(server.requests).toHaveLength(0);
        },
        TIMEOUT
    );

    it(
        "paths are text: /etc/hosts is missing and //path are sent to the model",
        async () => {
            session = await startNorthSession();
            const { north, server, submit } = session;
            server.enqueue({ text: "Hosts answer." }, { text: "Path answer." });
            await submit("/etc/hosts is missing");
            await north.waitForText("Hosts answer.");
            expect(userText(session, 0)).toContain("/etc/hosts is missing");
            await submit("//srv/share/readme");
            await north.waitForText("Path answer.");
            expect(userText(session, 1)).toContain("//srv/share/readme");
            expect(north.screenText()).not.toContain("unknown command");
        },
        TIMEOUT
    );

    it(
        "/clear starts a new conversation and /compact summarises, as /new and /summarize",
        async () => {
            session = await startNorthSession();
            const { north, server, submit } = session;
            await submit("/compact");
            await north.waitForText("nothing to summarise");
            await submit("/clear");
            await north.waitForText("Started a new conversation.");
            expect(server.requests).toHaveLength(0);
        },
        TIMEOUT
    );
});

describe("!command", () => {
    it(
        "!echo runs without a review, shows its output, and the next request carries it as the user's",
        async () => {
            session = await startNorthSession();
            const { north, server, submit } = session;
            await submit("!echo hi-from-$((40+2))");
            await north.waitForText("hi-from-42");
            expect(server.requests).toHaveLength(0);
            server.enqueue({ text: "I saw it." });
            await submit("what did it print?");
            await north.waitForText("I saw it.");
            const sent = userText(session, 0);
            expect(sent).toContain("echo hi-from-$((40+2))");
            expect(sent).toContain("hi-from-42");
            expect(sent).toContain("exit code 0");
        },
        TIMEOUT
    );

    it(
        "! alone gives a hint and runs nothing",
        async () => {
            session = await startNorthSession();
            const { north, server } = session;
            north.type("!");
            await north.waitForText("! runs a shell command (no review");
            north.type("\r");
            await north.waitForText("! runs a shell command");
            expect(server.requests).toHaveLength(0);
        },
        TIMEOUT
    );

    it(
        "a command that never ends is stopped by Ctrl+C; the chat stays and the process is gone",
        async () => {
            session = await startNorthSession();
            const { north, server, submit, repo } = session;
            await submit("!sh -c 'echo $$ > sleeper.pid; echo sleeping; exec sleep 1000'");
            const pidFile = join(repo, "sleeper.pid");
            await north.waitFor(() => existsSync(pidFile), 15_000, "the sleeper to start");
            await north.waitFor(
                () => readFileSync(pidFile, "utf8").endsWith("\n"),
                15_000,
                "its pid"
            );
            const pid = Number(readFileSync(pidFile, "utf8").trim());
            expect(alive(pid)).toBe(true);
            north.type("\x03");
            await north.waitFor(() => !alive(pid), 15_000, "the sleeper to be killed");
            // Idle again: the entry is marked cancelled and the composer waits for a prompt.
            await north.waitFor(
                () =>
                    north.screenText().includes("cancelled ·") &&
                    composerRow(session!).includes(EMPTY_COMPOSER),
                15_000,
                "the chat to be idle"
            );
            expect(north.hasExited()).toBe(false);
            server.enqueue({ text: "Still here." });
            await submit("are you there?");
            await north.waitForText("Still here.");
            expect(userText(session, 0)).toContain("stopped by the user");
        },
        TIMEOUT
    );

    it(
        "a !command typed while busy queues on its own, runs when its turn comes, and a prompt after it sees it",
        async () => {
            session = await startNorthSession();
            const { north, server, submit, repo } = session;
            // Busy until the test creates `go`.
            await submit("!sh -c 'until [ -f go ]; do sleep 0.05; done; echo went'");
            await north.waitForText("Esc or Ctrl+C to cancel");
            await submit("!echo queued-$((6*7))");
            await north.waitForText("queued !echo queued-$((6*7))");
            server.enqueue({ text: "Both seen." });
            await submit("and explain");
            writeFileSync(join(repo, "go"), "");
            await north.waitForText("Both seen.");
            expect(north.screenText()).toContain("queued-42");
            const sent = userText(session, 0);
            expect(sent).toContain("went");
            expect(sent).toContain("queued-42");
            // The prompt went alone: the command was not joined into it.
            expect(sent).toContain('"and explain"');
        },
        TIMEOUT
    );

    it(
        "Ctrl+B moves a running !command to the background, as a model's command",
        async () => {
            session = await startNorthSession();
            const { north, server, submit, repo } = session;
            await submit("!sh -c 'echo $$ > bg.pid; exec sleep 1000'");
            const pidFile = join(repo, "bg.pid");
            await north.waitFor(
                () => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n"),
                15_000,
                "the command to start"
            );
            const pid = Number(readFileSync(pidFile, "utf8").trim());
            try {
                // Ctrl+B acts on a command the chat shows running (as the user sees it).
                await north.waitForText("Running sh -c");
                north.type("\x02");
                await north.waitForText("moved to the background as p1");
                expect(alive(pid)).toBe(true);
                server.enqueue({ text: "Noted." });
                await submit("is it running?");
                await north.waitForText("Noted.");
                expect(userText(session, 0)).toContain("moved to the background as p1");
            } finally {
                if (alive(pid)) process.kill(pid, "SIGKILL");
            }
        },
        TIMEOUT
    );

    it(
        "a !command is saved with the conversation: --continue shows it and its output",
        async () => {
            session = await startNorthSession();
            const { north, submit, env, repo } = session;
            await submit("!echo resumed-$((2+3))");
            await north.waitForText("resumed-5");
            await submit("/quit");
            await north.exited;
            const again = spawnNorthPty({ args: ["--path", repo, "--continue"], env, cwd: repo });
            try {
                await again.waitForText("resumed-5", 20_000);
                expect(again.screenText()).toContain("!echo resumed-$((2+3))");
            } finally {
                again.kill();
            }
        },
        TIMEOUT
    );

    it(
        "/rewind lists the prompts, not the !commands; rewinding to a later prompt keeps one run before it",
        async () => {
            session = await startNorthSession();
            const { north, server, submit } = session;
            server.enqueue({ text: "Answer one." }, { text: "Answer two." });
            await submit("first question");
            await north.waitForText("Answer one.");
            await submit("!echo mid-$((1+1))");
            await north.waitForText("mid-2");
            await submit("second question");
            await north.waitForText("Answer two.");
            await submit("/rewind");
            await north.waitForText(/› 2\. second question/);
            const picker = north.screenText();
            expect(picker).toContain("1. first question");
            expect(picker).not.toMatch(/\d\. .*echo mid/);
            await north.waitForText(PICKER_READY);
            north.type("\r");
            await north.waitForText("Before prompt 2: second question");
            await north.waitForText(PICKER_READY);
            north.type("\r");
            await north.waitForText("rewound to before prompt 2");
            north.type("\x15");
            server.enqueue({ text: "Answer three." });
            await submit("third question");
            await north.waitForText("Answer three.");
            const sent = userText(session, 2);
            expect(sent).toContain("mid-2");
            expect(sent).not.toContain("second question");
        },
        TIMEOUT
    );

    it(
        "a Bash deny rule refuses !rm, naming the rule",
        async () => {
            session = await startNorthSession({
                files: {
                    "keep.txt": "keep me",
                    ".north/settings.json": JSON.stringify({
                        permissions: { deny: ["Bash(rm:*)"] },
                    }),
                },
            });
            const { north, server, submit, repo } = session;
            await submit("!rm keep.txt");
            await north.waitForText("denied by the permission rule Bash(rm:*)");
            expect(existsSync(join(repo, "keep.txt"))).toBe(true);
            expect(server.requests).toHaveLength(0);
        },
        TIMEOUT
    );
});

describe("print mode", () => {
    it(
        'north -p "/nosuch" fails with a non-zero exit and sends no request',
        async () => {
            const server = await startFakeLlmServer();
            const isolated = isolatedHome();
            try {
                const run = await runNorth(["-p", "/nosuch thing"], {
                    env: {
                        ...isolated.env,
                        ANTHROPIC_API_KEY: "k",
                        ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
                    },
                    cwd: isolated.home,
                });
                expect(run.code).not.toBe(0);
                expect(run.stderr).toContain("unknown command /nosuch");
                expect(server.requests).toHaveLength(0);
            } finally {
                await server.close();
                rmSync(isolated.home, { recursive: true, force: true });
            }
        },
        TIMEOUT
    );
});
