/**
 * Issue 36 part 5, "tell the user", through the real terminal: the
 * notification after an answer and while a review waits (OSC 9, the tmux
 * wrapping, the bell), none while the terminal reports focus; the statusLine
 * command's line; the git branch, following a `git switch`; an MCP server that
 * failed to start; the turn cap. Needs `node scripts/build.mjs` first.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
    EMPTY_COMPOSER,
    type NorthPtySession,
    REVIEW_READY,
    startNorthSession,
} from "../../kit/pty";

const TIMEOUT = 90_000;

let session: NorthPtySession | undefined;
let configDir: string | undefined;
afterEach(async () => {
    await session?.dispose();
    session = undefined;
    if (configDir) rmSync(configDir, { recursive: true, force: true });
    configDir = undefined;
});

/** A user config folder holding `settings`. */
function userConfig(settings: Record<string, unknown>): string {
    configDir = mkdtempSync(join(tmpdir(), "north-notify-config-"));
    writeFileSync(join(configDir, "config.json"), JSON.stringify(settings));
    return configDir;
}

const ANSWER_READY_OSC9 = "\x1b]9;North: the answer is ready\x07";

function count(haystack: string, needle: string): number {
    return haystack.split(needle).length - 1;
}

describe("notifications", () => {
    it(
        "sends OSC 9 when an answer ends and when a review waits; none while the terminal reports focus",
        async () => {
            session = await startNorthSession({
                env: {
                    NORTH_CONFIG_DIR: userConfig({ notifications: { afterSeconds: 0 } }),
                    TERM_PROGRAM: "WezTerm",
                },
            });
            const { north, server, submit } = session;
            // North asks the terminal for focus reports.
            expect(north.output()).toContain("\x1b[?1004h");

            server.enqueue({ text: "first answer" });
            await submit("one");
            await north.waitFor(
                () => north.output().includes(ANSWER_READY_OSC9),
                20_000,
                "the notification after the answer"
            );

            // The terminal says it has focus: the report is no text, and nothing is sent.
            north.type("\x1b[I");
            server.enqueue({ text: "second answer" });
            await submit("two");
            await north.waitForText("second answer");
            // The run has ended (the idle composer is drawn after it) before focus leaves.
            await north.waitForText(EMPTY_COMPOSER);
            // Focus leaves: the next answer notifies again, so exactly two were sent.
            north.type("\x1b[O");
            server.enqueue({ text: "third answer" });
            await submit("three");
            await north.waitFor(
                () => count(north.output(), ANSWER_READY_OSC9) === 2,
                20_000,
                "the third answer's notification"
            );
            expect(north.screenText()).not.toContain("[I");
            expect(north.screenText()).not.toContain("[O");

            server.enqueue(
                { toolCalls: [{ name: "shell_run", input: { command: "echo notified" } }] },
                { text: "ran it" }
            );
            await submit("run something");
            await north.waitForText(REVIEW_READY);
            await north.waitFor(
                () => north.output().includes("\x1b]9;North: a command waits for you\x07"),
                20_000,
                "the review's notification"
            );
            expect(count(north.output(), ANSWER_READY_OSC9)).toBe(2);
        },
        TIMEOUT
    );

    it(
        "wraps the sequence for tmux's passthrough when TMUX is set",
        async () => {
            session = await startNorthSession({
                env: {
                    NORTH_CONFIG_DIR: userConfig({ notifications: { afterSeconds: 0 } }),
                    TERM_PROGRAM: "WezTerm",
                    TMUX: "/tmp/tmux-1000/default,1234,0",
                },
            });
            const { north, server, submit } = session;
            server.enqueue({ text: "done" });
            await submit("go");
            await north.waitFor(
                () =>
                    north
                        .output()
                        .includes("\x1bPtmux;\x1b\x1b]9;North: the answer is ready\x07\x1b\\"),
                20_000,
                "the tmux-wrapped notification"
            );
        },
        TIMEOUT
    );

    it(
        "rings the bell in a terminal with no notification sequence known",
        async () => {
            session = await startNorthSession({
                env: { NORTH_CONFIG_DIR: userConfig({ notifications: { afterSeconds: 0 } }) },
            });
            const { north, server, submit } = session;
            expect(north.output()).not.toContain("\x07");
            server.enqueue({ text: "done" });
            await submit("go");
            await north.waitFor(() => north.output().includes("\x07"), 20_000, "the bell");
            expect(north.output()).not.toContain("\x1b]9;");
        },
        TIMEOUT
    );
});

describe("the status line", () => {
    it(
        "shows the statusLine command's first line, given the session on stdin",
        async () => {
            const script =
                'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>{const j=JSON.parse(s);' +
                'console.log("\\x1b[32mSL "+j.model.display_name+" "+j.hook_event_name+"\\x1b[0m");console.log("second")})';
            session = await startNorthSession({
                env: {
                    NORTH_CONFIG_DIR: userConfig({
                        statusLine: {
                            type: "command",
                            command: `"${process.execPath}" -e '${script}'`,
                        },
                    }),
                },
            });
            const { north } = session;
            await north.waitForText("SL Claude Opus 5.5 Status");
            expect(north.screenText()).not.toContain("second");
        },
        TIMEOUT
    );

    it(
        "shows the git branch and follows a git switch made elsewhere",
        async () => {
            // A repository from the start (git init keeps the HEAD it finds).
            session = await startNorthSession({ files: { ".git/HEAD": "ref: refs/heads/main\n" } });
            const { north, repo } = session;
            const git = (...args: string[]) =>
                execFileSync(
                    "git",
                    ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args],
                    {
                        cwd: repo,
                        env: { ...session!.env, GIT_CONFIG_NOSYSTEM: "1" },
                        stdio: "ignore",
                    }
                );
            git("init", "-q");
            git("commit", "-q", "--allow-empty", "-m", "start");
            await north.waitForText("⎇ main", 20_000);
            git("switch", "-q", "-c", "topic");
            await north.waitForText("⎇ topic", 20_000);
        },
        TIMEOUT
    );
});

describe("warnings in the transcript", () => {
    it(
        "says when an MCP server failed to start",
        async () => {
            session = await startNorthSession({
                env: {
                    NORTH_CONFIG_DIR: userConfig({
                        mcpServers: { broken: { command: "/nonexistent/mcp-server" } },
                    }),
                },
            });
            await session.north.waitForText(/MCP server broken failed to start: .*\/mcp for/);
        },
        TIMEOUT
    );

    it(
        "says when a prompt stopped at the turn cap, and which calls did not run",
        async () => {
            session = await startNorthSession({
                files: { "a.ts": "export const a = 1;\n" },
                env: { NORTH_CONFIG_DIR: userConfig({ maxTurns: 2 }) },
            });
            const { north, server, submit } = session;
            const read = { toolCalls: [{ name: "read_file", input: { path: "a.ts" } }] };
            server.enqueue(read, read);
            await submit("keep reading");
            await north.waitForText(
                "stopped after 2 model turns (setting maxTurns) — send a message to continue"
            );
            expect(north.screenText()).toContain("not run: the turn cap was reached");
            expect(server.requests).toHaveLength(2);
        },
        TIMEOUT
    );
});
