/**
 * Scrolling and keys (issue 18, parts 6 and 11): Home/End (and G in the
 * empty composer while reading back) move the transcript, idle or busy; the
 * mouse wheel scrolls in the alternate screen and never types; mouse
 * reporting can be turned off (Alt+M, or `"mouse": false`) and is always
 * turned off on exit; keybindings.json rebinds keys and reports what is
 * wrong. Needs `npm run build` first.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { answerReview, keysRead, type NorthPtySession, startNorthSession } from "../../kit/pty";

const TIMEOUT = 60_000;
const HOME = "\x1b[H";
const END = "\x1b[F";
const WHEEL_UP = "\x1b[<64;20;10M";
const WHEEL_DOWN = "\x1b[<65;20;10M";
const CLICK = "\x1b[<0;20;10M\x1b[<0;20;10m";
const MOUSE_ON = "\x1b[?1000h";
const MOUSE_OFF = "\x1b[?1000l";
const ALT_M = "\x1bm";
const CTRL_E = "\x05";
const CTRL_O = "\x0f";
const CTRL_J = "\n";

/** An answer of 120 numbered rows: far more than a 100×30 screen. */
const LONG = Array.from({ length: 120 }, (_, i) => `row-${String(i + 1).padStart(3, "0")}`).join(
    "\n\n"
);

let session: NorthPtySession | undefined;
const dirs: string[] = [];
afterEach(async () => {
    await session?.dispose();
    session = undefined;
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A user config directory holding `files` (name → content), for NORTH_CONFIG_DIR. */
function configDirWith(files: Record<string, string>): string {
    const dir = mkdtempSync(join(tmpdir(), "north-keys-config-"));
    dirs.push(dir);
    for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
    return dir;
}

/** The composer's first text row (after "❯ "), without the empty composer's hint. */
function composerText(screen: string): string {
    const row = screen.split("\n").findLast((line) => line.includes("❯ ")) ?? "";
    return row
        .slice(row.indexOf("❯ ") + 2)
        .replace(/Enter to send ·.*$/, "")
        .trim();
}

async function longTranscript(options: Parameters<typeof startNorthSession>[0] = {}) {
    session = await startNorthSession(options);
    session.server.enqueue({ text: LONG });
    await session.submit("fill the screen");
    await session.north.waitForText("row-120");
    await keysRead(session.north);
    return session;
}

describe("scrolling the transcript", () => {
    it(
        "Home goes to the top and End to the bottom when the composer is empty; G follows again",
        async () => {
            const { north } = await longTranscript();
            north.type(HOME);
            await north.waitForText("[SCROLL]");
            await north.waitForText("fill the screen");
            expect(north.screenText()).not.toContain("row-120");
            expect(north.screenText()).toContain("North ·");
            north.type(END);
            await north.waitFor(() => !north.screenText().includes("[SCROLL]"), 5_000, "following");
            expect(north.screenText()).toContain("row-120");

            // G while reading back follows the end and types nothing.
            north.type(HOME);
            await north.waitForText("[SCROLL]");
            north.type("G");
            await north.waitFor(
                () =>
                    north.screenText().includes("row-120") &&
                    !north.screenText().includes("[SCROLL]"),
                10_000,
                "the end, following"
            );
            expect(north.screenText()).not.toContain("[SCROLL]");
            expect(composerText(north.screenText())).toBe("");
            // While following, G is a letter like any other.
            north.type("G");
            await north.waitFor(() => composerText(north.screenText()) === "G", 5_000, "G typed");

            // With text in the composer Home and End move the cursor, not the view.
            north.type(HOME + "x" + END + "y");
            await north.waitFor(
                () => composerText(north.screenText()) === "xGy",
                5_000,
                "xGy in the composer"
            );
            expect(north.screenText()).not.toContain("[SCROLL]");
        },
        TIMEOUT
    );

    it(
        "Home scrolls while a command runs, when the composer is empty",
        async () => {
            const { north, server, submit } = await longTranscript();
            server.enqueue({ toolCalls: [{ name: "shell_run", input: { command: "sleep 30" } }] });
            await submit("wait a while");
            await north.waitForText("Run this command?");
            await answerReview(north, { option: 1 });
            await north.waitForText("Esc or Ctrl+C to cancel");
            north.type(HOME);
            await north.waitForText("[SCROLL]");
            await north.waitForText("fill the screen");
            north.type(END);
            await north.waitFor(() => !north.screenText().includes("[SCROLL]"), 5_000, "following");
            expect(north.screenText()).toContain("Running sleep 30");
        },
        TIMEOUT
    );

    it(
        "scrolls with the mouse wheel, never types a report, and turns reporting off on exit",
        async () => {
            const { north } = await longTranscript();
            expect(north.output()).toContain(MOUSE_ON);
            expect(north.output()).toContain("\x1b[?1006h");
            north.type(WHEEL_UP);
            await north.waitForText("[SCROLL]");
            expect(north.screenText()).not.toContain("row-120");
            north.type(WHEEL_UP + WHEEL_UP);
            await north.waitFor(
                () => !north.screenText().includes("row-119"),
                5_000,
                "three notches up"
            );
            north.type(WHEEL_DOWN + WHEEL_DOWN + WHEEL_DOWN);
            await north.waitFor(() => !north.screenText().includes("[SCROLL]"), 5_000, "following");
            // Clicks and wheel reports split across writes are swallowed too.
            north.type(CLICK);
            north.type(WHEEL_UP.slice(0, 5));
            // The rest comes in a later read, as it can on a busy machine.
            await north.waitForQuiet(150);
            north.type(WHEEL_UP.slice(5));
            await north.waitForText("[SCROLL]");
            expect(composerText(north.screenText())).toBe("");
            expect(north.screenText()).not.toMatch(/64;|<0;|20;10/);

            const before = north.output().length;
            await north.exit();
            const tail = north.output().slice(before);
            expect(tail).toContain(MOUSE_OFF);
            expect(tail).toContain("\x1b[?1006l");
            expect(tail.lastIndexOf(MOUSE_OFF)).toBeLessThan(tail.lastIndexOf("\x1b[?1049l"));
        },
        TIMEOUT
    );

    it(
        "turns mouse reporting off for selecting text with Alt+M, and back on",
        async () => {
            const { north } = await longTranscript();
            const before = north.output().length;
            north.type(ALT_M);
            await north.waitForText("mouse off: drag selects text");
            expect(north.output().slice(before)).toContain(MOUSE_OFF);
            const middle = north.output().length;
            north.type(ALT_M);
            await north.waitForText("mouse on: the wheel scrolls");
            expect(north.output().slice(middle)).toContain(MOUSE_ON);
        },
        TIMEOUT
    );

    it(
        'leaves the mouse alone with "mouse": false and with --no-alt-screen',
        async () => {
            const config = configDirWith({ "config.json": JSON.stringify({ mouse: false }) });
            session = await startNorthSession({ env: { NORTH_CONFIG_DIR: config } });
            expect(session.north.output()).not.toContain(MOUSE_ON);
            await session.dispose();

            // The session starts once North reads keys: its start-up writes came before.
            session = await startNorthSession({ args: ["--no-alt-screen"] });
            expect(session.north.output()).not.toContain(MOUSE_ON);
        },
        TIMEOUT
    );
});

describe("keybindings.json", () => {
    it(
        "rebinds expand to Ctrl+E and unbinds Ctrl+O",
        async () => {
            const config = configDirWith({
                "keybindings.json": JSON.stringify({
                    bindings: [
                        { context: "Global", bindings: { "ctrl+e": "app:toggleExpand" } },
                        { context: "Global", bindings: { "ctrl+o": null } },
                    ],
                }),
            });
            session = await startNorthSession({ rows: 40, env: { NORTH_CONFIG_DIR: config } });
            const { north, server, submit } = session;
            expect(north.screenText()).not.toContain("keybindings.json");
            server.enqueue({
                thinking: {
                    text: "First I look at the files.\nThen the second thought.\nThird thought here.",
                    signature: "sig",
                },
                text: "Here is the answer.",
            });
            await submit("think about it");
            await north.waitForText("Here is the answer.");
            north.type(CTRL_O);
            // Keys are read in order: once a later one shows, Ctrl+O did what it does.
            await keysRead(north);
            expect(north.screenText()).not.toContain("Third thought here.");
            north.type(CTRL_E);
            await north.waitForText("Third thought here.");
        },
        TIMEOUT
    );

    it(
        "reports a conflicting file at start and keeps the defaults for what was wrong",
        async () => {
            const config = configDirWith({
                "keybindings.json": JSON.stringify({
                    bindings: [
                        {
                            context: "Chat",
                            bindings: {
                                "ctrl+j": "chat:submit",
                                "shift+enter": "chat:newline",
                                x: "scroll:top",
                                "ctrl+t": "chat:explode",
                            },
                        },
                    ],
                }),
            });
            session = await startNorthSession({ env: { NORTH_CONFIG_DIR: config } });
            const { north, server } = session;
            const screen = north.screenText();
            expect(screen).toContain("keybindings.json");
            expect(screen).toContain('"ctrl+j" and "shift+enter" are one key');
            expect(screen).toContain('Chat "x": a key that types text');
            expect(screen).toContain('unknown action "chat:explode"');
            expect(screen).toContain("The default keys stay for what was wrong.");
            // Ctrl+J still adds a line and x is still typed.
            server.enqueue({ text: "Got both lines." });
            north.type("first x" + CTRL_J + "second");
            await north.waitForText("second");
            north.type("\r");
            await north.waitForText("Got both lines.");
            expect(JSON.stringify(server.requests.at(-1)?.body)).toContain("first x\\nsecond");
        },
        TIMEOUT
    );
});
