/**
 * Editing the prompt as in the other agents, through the real terminal:
 * Ctrl+G opens the draft in $EDITOR and takes back what it saved (a failing
 * or missing editor keeps the draft and says why); /copy puts the last
 * answer on the clipboard through OSC 52 and wl-copy (or says what to
 * install); Ctrl+V attaches the clipboard's image. The clipboard programs
 * are small scripts on PATH. Needs `node scripts/build.mjs` first.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pngImage } from "../../kit/images";
import { type NorthPtySession, startNorthSession } from "../../kit/pty";

const TIMEOUT = 60_000;
const SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin";

let session: NorthPtySession | undefined;
let tools: string;
beforeEach(() => {
    tools = mkdtempSync(join(tmpdir(), "north-compose-tools-"));
});
afterEach(async () => {
    await session?.dispose();
    session = undefined;
    rmSync(tools, { recursive: true, force: true });
});

function script(name: string, body: string): string {
    const path = join(tools, name);
    writeFileSync(path, `#!/bin/sh\n${body}\n`);
    chmodSync(path, 0o755);
    return path;
}

/** The composer's rows (from the first "❯ " row to the end of the screen). */
function composerText(session: NorthPtySession): string {
    const rows = session.north.screenText().split("\n");
    const first = rows.findIndex((row) => row.includes("❯ "));
    return first === -1 ? "" : rows.slice(first).join("\n");
}

describe("Ctrl+G: the draft in $EDITOR", () => {
    it(
        "the editor gets the draft, what it saved becomes the draft, and Enter sends it",
        async () => {
            const seen = join(tools, "seen.txt");
            const editor = script(
                "rewrite.sh",
                `cp "$1" "${seen}"\nprintf 'rewritten by the editor\\nsecond line\\n' > "$1"`
            );
            session = await startNorthSession({ env: { EDITOR: editor, NO_COLOR: "1" } });
            const { north, server } = session;
            north.type("draft before");
            await north.waitForText("❯ draft before");
            north.type("\x07");
            await north.waitFor(
                () => composerText(session!).includes("second line"),
                20_000,
                "the edited draft in the composer"
            );
            expect(readFileSync(seen, "utf8")).toBe("draft before");
            expect(composerText(session)).toContain("❯ rewritten by the editor");
            server.enqueue({ text: "Got the edited prompt." });
            north.type("\r");
            await north.waitForText("Got the edited prompt.");
            expect(session.lastRequest()).toContain("rewritten by the editor\\nsecond line");
        },
        TIMEOUT
    );

    it(
        "an editor that exits 1 keeps the draft and says so",
        async () => {
            const editor = script("fail.sh", `printf 'half-saved' > "$1"\nexit 1`);
            session = await startNorthSession({ env: { EDITOR: editor, NO_COLOR: "1" } });
            const { north } = session;
            north.type("keep me");
            await north.waitForText("❯ keep me");
            north.type("\x07");
            await north.waitForText("exited with status 1;");
            await north.waitForText("unchanged");
            expect(composerText(session)).toContain("❯ keep me");
            expect(north.screenText()).not.toContain("half-saved");
        },
        TIMEOUT
    );

    it(
        "an $EDITOR that does not exist keeps the draft and names it",
        async () => {
            session = await startNorthSession({
                env: { EDITOR: "/no/such/editor --wait", NO_COLOR: "1" },
            });
            const { north } = session;
            north.type("still here");
            await north.waitForText("❯ still here");
            north.type("\x07");
            await north.waitForText("the editor $EDITOR (/no/such/editor --wait) was not found");
            await north.waitForText("the draft is unchanged");
            expect(composerText(session)).toContain("❯ still here");
        },
        TIMEOUT
    );
});

describe("/copy", () => {
    it(
        "copies the last answer through OSC 52 and wl-copy, and /copy 2 the one before",
        async () => {
            const copied = join(tools, "copied.txt");
            script("wl-copy", `cat > "${copied}"`);
            session = await startNorthSession({
                env: {
                    NO_COLOR: "1",
                    WAYLAND_DISPLAY: "wayland-test",
                    PATH: `${tools}:${SYSTEM_PATH}`,
                },
            });
            const { north, server, submit } = session;
            server.enqueue({ text: "The first **answer**." });
            await submit("one");
            await north.waitForText("The first answer.");
            server.enqueue({ text: "The second answer." });
            await submit("two");
            await north.waitForText("The second answer.");

            await submit("/copy");
            await north.waitForText("copied 18 characters (OSC 52 + wl-copy)");
            expect(readFileSync(copied, "utf8")).toBe("The second answer.");
            const osc52 = `\x1b]52;c;${Buffer.from("The second answer.").toString("base64")}\x07`;
            expect(north.output()).toContain(osc52);

            await submit("/copy 2");
            await north.waitForText("copied 21 characters (OSC 52 + wl-copy)");
            // The markdown source, not what was drawn.
            expect(readFileSync(copied, "utf8")).toBe("The first **answer**.");

            await submit("/copy 5");
            await north.waitForText("nothing to copy: there are fewer than 5 answers");
        },
        TIMEOUT
    );

    it(
        "before any answer says there is nothing to copy, and without wl-copy names what to install",
        async () => {
            session = await startNorthSession({
                env: { NO_COLOR: "1", WAYLAND_DISPLAY: "wayland-test", PATH: SYSTEM_PATH },
            });
            const { north, server, submit } = session;
            await submit("/copy");
            await north.waitForText("nothing to copy: no answer yet");
            server.enqueue({ text: "An answer." });
            await submit("hello");
            await north.waitForText("An answer.");
            await submit("/copy");
            await north.waitForText("copied 10 characters (OSC 52)");
            await north.waitForText("install wl-clipboard");
        },
        TIMEOUT
    );
});

describe("Ctrl+V: an image from the clipboard", () => {
    it(
        "attaches the clipboard's PNG, which reaches the model as an image",
        async () => {
            const png = pngImage(3, 2);
            const source = join(tools, "clip.png");
            writeFileSync(source, png);
            script("wl-paste", `cat "${source}"`);
            session = await startNorthSession({
                cols: 160,
                env: {
                    NO_COLOR: "1",
                    WAYLAND_DISPLAY: "wayland-test",
                    PATH: `${tools}:${SYSTEM_PATH}`,
                },
            });
            const { north, server } = session;
            north.type("what is this ");
            await north.waitForText("❯ what is this");
            north.type("\x16");
            await north.waitForText(/❯ what is this @\S+clipboard\.png/);
            const path = /@(\S+clipboard\.png)/.exec(north.screenText())![1]!;
            expect(existsSync(path)).toBe(true);
            server.enqueue({ text: "Three by two pixels." });
            north.type("\r");
            await north.waitForText("Three by two pixels.");
            const user = (server.requests.at(-1)!.body as { messages: unknown[] }).messages.at(-1);
            expect(user).toMatchObject({
                role: "user",
                content: [
                    { type: "text" },
                    { type: "image", source: { data: png.toString("base64") } },
                ],
            });
        },
        TIMEOUT
    );

    it(
        "says when the clipboard holds no image, and which program to install when none reads it",
        async () => {
            script("wl-paste", `printf 'just text'`);
            session = await startNorthSession({
                env: {
                    NO_COLOR: "1",
                    WAYLAND_DISPLAY: "wayland-test",
                    PATH: `${tools}:${SYSTEM_PATH}`,
                },
            });
            session.north.type("\x16");
            await session.north.waitForText("no image in the clipboard");
            await session.dispose();

            session = await startNorthSession({
                env: { NO_COLOR: "1", DISPLAY: ":99", PATH: SYSTEM_PATH },
            });
            session.north.type("\x16");
            await session.north.waitForText("cannot read images from the clipboard: install xclip");
        },
        TIMEOUT
    );
});
