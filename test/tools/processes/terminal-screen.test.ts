import { afterEach, describe, expect, it } from "vitest";
import {
    createTerminalScreen,
    type HeadlessTerminalScreen,
} from "../../../src/tools/processes/terminal-screen";

const screens: HeadlessTerminalScreen[] = [];
function screen(cols: number, rows: number, onReply?: (data: string) => void) {
    const created = createTerminalScreen(cols, rows, { onReply });
    screens.push(created);
    return created;
}

afterEach(() => {
    for (const created of screens.splice(0)) created.dispose();
});

describe("a terminal screen", () => {
    it("shows what a terminal shows: escapes applied, trailing blanks and empty rows dropped", async () => {
        const term = screen(40, 10);
        term.write("\x1b[1;31mred\x1b[0m title   \r\nsecond\r\n\r\n");
        term.write(Buffer.from("third line\x1b[2;1H\x1b[2KSECOND"));
        await term.flush();
        expect(term.text()).toBe("red title\nSECOND\n\nthird line");
        expect(term.cursorLine()).toBe("SECOND");
    });

    it("after a write, flush() makes the next read show it", async () => {
        const term = screen(20, 5);
        term.write("before");
        await term.flush();
        term.write("\rafter ");
        expect(term.pending()).toBe(true);
        await term.flush();
        expect(term.pending()).toBe(false);
        expect(term.text()).toBe("after");
    });

    it("is a full-screen program's current screen, not its history", async () => {
        const term = screen(20, 3);
        for (let line = 1; line <= 10; line++) term.write(`line ${line}\r\n`);
        await term.flush();
        expect(term.text()).toBe("line 9\nline 10");
        // The alternate screen (vi, top), cleared and drawn at a position.
        term.write("\x1b[?1049h\x1b[H\x1b[2J\x1b[3;5Hbottom");
        await term.flush();
        expect(term.text()).toBe("\n\n    bottom");
        term.write("\x1b[?1049l");
        await term.flush();
        expect(term.text()).toBe("line 9\nline 10");
    });

    it("answers the program's queries (cursor position) through onReply", async () => {
        const replies: string[] = [];
        const term = screen(20, 5, (data) => replies.push(data));
        term.write("ab\x1b[6n");
        await term.flush();
        expect(replies).toEqual(["\x1b[1;3R"]);
    });

    it("reports when the program asks for application cursor keys", async () => {
        const term = screen(20, 5);
        expect(term.keyModes()).toEqual({ applicationCursorKeys: false });
        term.write("\x1b[?1h");
        await term.flush();
        expect(term.keyModes()).toEqual({ applicationCursorKeys: true });
    });

    it("resizes", async () => {
        const term = screen(10, 2);
        term.write("0123456789abc");
        await term.flush();
        expect(term.text()).toBe("0123456789\nabc");
        term.resize(20, 2);
        term.write("\x1b[2J\x1b[H0123456789abc");
        await term.flush();
        expect(term.text()).toBe("0123456789abc");
    });
});
