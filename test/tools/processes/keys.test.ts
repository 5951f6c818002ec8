import { describe, expect, it } from "vitest";
import { keyBytes, keySignal, keysToBytes } from "../../../src/tools/processes/keys";
import { ProcessError } from "../../../src/tools/processes/types";

const tty = { tty: true };

describe("named keys", () => {
    it("are the bytes an xterm sends", () => {
        expect(keysToBytes(["enter", "tab", "esc", "backspace", "space"], tty)).toBe(
            "\r\t\x1b\x7f "
        );
        expect(keysToBytes(["up", "down", "right", "left", "home", "end"], tty)).toBe(
            "\x1b[A\x1b[B\x1b[C\x1b[D\x1b[H\x1b[F"
        );
        expect(keysToBytes(["pgup", "pgdn"], tty)).toBe("\x1b[5~\x1b[6~");
        expect(keysToBytes(["f1", "f4", "f5", "f12"], tty)).toBe("\x1bOP\x1bOS\x1b[15~\x1b[24~");
    });

    it("Ctrl with a letter is its control character; Ctrl+\\ is FS", () => {
        expect(keysToBytes(["ctrl+a", "ctrl+c", "ctrl+d", "ctrl+z"], tty)).toBe("\x01\x03\x04\x1a");
        expect(keyBytes("ctrl+\\", tty)).toBe("\x1c");
    });

    it("accept the usual other spellings, in any case", () => {
        expect(keysToBytes(["Enter", "RETURN", "Escape", "C-c", "Ctrl-D", "PageDown"], tty)).toBe(
            "\r\r\x1b\x03\x04\x1b[6~"
        );
    });

    it("send cursor keys in application mode once the program asks for it (vi, less)", () => {
        const modes = { applicationCursorKeys: true };
        expect(keysToBytes(["up", "left", "home"], { tty: true, modes })).toBe(
            "\x1bOA\x1bOD\x1bOH"
        );
    });

    it("Enter is a newline for a program on pipes, and Ctrl+C its SIGINT", () => {
        expect(keyBytes("enter", { tty: false })).toBe("\n");
        expect(keySignal("ctrl+c")).toBe("SIGINT");
        expect(keySignal("Ctrl+\\")).toBe("SIGQUIT");
        expect(keySignal("up")).toBeUndefined();
    });

    it("refuse an unknown name, listing the known ones, before anything is sent", () => {
        const attempt = () => keysToBytes(["enter", "ctrl+shift+q"], tty);
        expect(attempt).toThrow(ProcessError);
        expect(attempt).toThrow(
            /Unknown key "ctrl\+shift\+q"\. Known keys: enter, up, down, .*pgup, pgdn, .*f12, ctrl\+a … ctrl\+z/
        );
    });
});
