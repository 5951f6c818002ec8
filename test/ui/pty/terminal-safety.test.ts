/**
 * The chat never passes model text, thinking, tool titles, file names or
 * server errors to the terminal as control sequences, in their ESC or C1
 * (8-bit) forms. Needs `npm run build` first.
 */
import { afterEach, describe, expect, it } from "vitest";
import { keysRead, type NorthPtySession, startNorthSession } from "../../kit/pty";

const TIMEOUT = 30_000;

/** OSC 52 clipboard write, OSC 0 title, clear screen, DCS, 8-bit CSI clear and 8-bit OSC title. */
const HOSTILE =
    "A\x1b]52;c;cm0gLXJmIH4vKgo=\x07B\x1b]0;pwned-title\x07C\x1b[2J\x1b[3JD" +
    "\x1bPtmux;\x1b\x1b]52;c;eA==\x07\x1b\\E\x9b2JF\x9d0;pwned-8bit\x9cG";
const VISIBLE = "ABCDEFG";
const EVIL_NAME = "\x1b]0;pwned-name\x07\x9b2Jevil-name.txt";

const C1 = /[\x80-\x9f]/;

let session: NorthPtySession | undefined;
afterEach(async () => {
    await session?.dispose();
    session = undefined;
});

describe("terminal safety in the chat", () => {
    it(
        "shows hostile text without its sequences: the title stays, nothing is cleared",
        async () => {
            session = await startNorthSession({
                files: { [EVIL_NAME]: `inside ${HOSTILE}\n` },
            });
            const { north, server, submit } = session;
            const titles: string[] = [];
            north.term.onTitleChange((title) => titles.push(title));

            server.enqueue({ text: "MARKER-ONE is the first answer." });
            await submit("first");
            await north.waitForText("MARKER-ONE is the first answer.");
            const before = north.output().length;

            // Every sequence cut in two between deltas.
            const chunks = HOSTILE.match(/[\s\S]{1,5}/g)!;
            server.enqueue(
                {
                    thinking: { text: `musing ${HOSTILE}`, signature: "sig" },
                    toolCalls: [{ id: "toolu_1", name: "read_file", input: { path: EVIL_NAME } }],
                },
                { text: ["Answer: ", ...chunks, " done."] },
                { error: { status: 400, message: `refused ${HOSTILE}` } }
            );
            await submit("second");
            await north.waitForText(`Answer: ${VISIBLE} done.`);
            await submit("third");
            await north.waitForText(`refused ${VISIBLE}`);
            await keysRead(north);

            const screen = north.screenText();
            expect(screen).toContain("MARKER-ONE is the first answer.");
            expect(screen).toContain(`musing ${VISIBLE}`);
            expect(screen).toContain("evil-name.txt");
            expect(titles).toEqual([]);
            const written = north.output().slice(before);
            expect(written).not.toMatch(C1);
            expect(written).not.toContain("pwned");
            expect(written).not.toContain("]52;");
            expect(written).not.toContain("\x1bP");
        },
        TIMEOUT
    );

    it(
        "lists a file name with sequences in the @ suggestions without them",
        async () => {
            session = await startNorthSession({ files: { [EVIL_NAME]: "x\n" } });
            const { north } = session;
            const titles: string[] = [];
            north.term.onTitleChange((title) => titles.push(title));
            const before = north.output().length;
            north.type("@evil-na");
            await north.waitForText(/› .*evil-name\.txt/);
            // Esc closes the list: every write of the frames that showed it came before.
            north.type("\x1b");
            await north.waitFor(
                () => !/› .*evil-name\.txt/.test(north.screenText()),
                10_000,
                "the list closed"
            );
            expect(titles).toEqual([]);
            const written = north.output().slice(before);
            expect(written).not.toMatch(C1);
            expect(written).not.toContain("pwned");
        },
        TIMEOUT
    );
});
