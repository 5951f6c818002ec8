import { describe, expect, it } from "vitest";
import { createInputJoiner, parseInput } from "../../src/ui/input/keys";

const key = (
    name: string,
    mods: Partial<{ ctrl: boolean; meta: boolean; shift: boolean }> = {}
) => ({
    type: "key",
    name,
    ctrl: false,
    meta: false,
    shift: false,
    ...mods,
});

describe("input parsing", () => {
    it("tells Enter from Ctrl+J, Shift+Enter and Alt+Enter", () => {
        expect(parseInput("\r")).toEqual([key("return")]);
        expect(parseInput("\n")).toEqual([key("newline")]);
        expect(parseInput("\x1b\r")).toEqual([key("newline")]);
        expect(parseInput("\x1b[13;2u")).toEqual([key("newline")]);
        expect(parseInput("\x1b[27;2;13~")).toEqual([key("newline")]);
    });

    it("names editing and navigation keys", () => {
        expect(parseInput("\x7f")).toEqual([key("backspace")]);
        expect(parseInput("\x1b[3~")).toEqual([key("delete")]);
        expect(parseInput("\x1b[A")).toEqual([key("up")]);
        expect(parseInput("\x1bOB")).toEqual([key("down")]);
        expect(parseInput("\x1b[1;2A")).toEqual([key("up", { shift: true })]);
        expect(parseInput("\x1b[1;5C")).toEqual([key("right", { ctrl: true })]);
        expect(parseInput("\x1b[5~")).toEqual([key("pageup")]);
        expect(parseInput("\x1b[6~")).toEqual([key("pagedown")]);
        expect(parseInput("\x1b[H")).toEqual([key("home")]);
        expect(parseInput("\x1b[4~")).toEqual([key("end")]);
        expect(parseInput("\t")).toEqual([key("tab")]);
        expect(parseInput("\x1b[Z")).toEqual([key("backtab")]);
        expect(parseInput("\x1b")).toEqual([key("escape")]);
        expect(parseInput("\x1bb")).toEqual([key("left", { meta: true })]);
    });

    it("names control chords", () => {
        expect(parseInput("\x03")).toEqual([
            { type: "chord", letter: "c", ctrl: true, meta: false },
        ]);
        expect(parseInput("\x15")).toEqual([
            { type: "chord", letter: "u", ctrl: true, meta: false },
        ]);
    });

    it("reads bracketed paste markers and plain text", () => {
        expect(parseInput("\x1b[200~")).toEqual([{ type: "paste-start" }]);
        expect(parseInput("\x1b[201~")).toEqual([{ type: "paste-end" }]);
        expect(parseInput("héllo 👋")).toEqual([{ type: "text", text: "héllo 👋" }]);
        expect(parseInput("é")).toEqual([{ type: "text", text: "é" }]);
    });

    it("splits a trailing Enter off typed-ahead text, keeps other line breaks as text", () => {
        expect(parseInput("hello\r")).toEqual([{ type: "text", text: "hello" }, key("return")]);
        expect(parseInput("a\r\nb\rc")).toEqual([{ type: "text", text: "a\nb\nc" }]);
        expect(parseInput("ab\x7f\x7f")).toEqual([
            { type: "text", text: "ab" },
            key("backspace"),
            key("backspace"),
        ]);
    });
});

describe("escape sequences split across reads", () => {
    it("joins a mouse report cut in two, so no half of it is typed", () => {
        const joiner = createInputJoiner();
        expect(joiner.push("\x1b[<65")).toEqual([]);
        expect(joiner.holding()).toBe(true);
        expect(joiner.push(";20;10Mcd")).toEqual(["\x1b[<65;20;10M", "cd"]);
        expect(parseInput("\x1b[<65;20;10M")).toEqual([
            { type: "unknown", sequence: "\x1b[<65;20;10M" },
        ]);
        // Cut twice, and a bracketed paste marker cut after its first bytes.
        expect(joiner.push("\x1b[<6")).toEqual([]);
        expect(joiner.push("5;2")).toEqual([]);
        expect(joiner.push("0;10M")).toEqual(["\x1b[<65;20;10M"]);
        expect(joiner.push("\x1b[")).toEqual([]);
        expect(joiner.push("200~")).toEqual(["\x1b[200~"]);
    });

    it("never holds a lone Esc or plain text", () => {
        const joiner = createInputJoiner();
        expect(joiner.push("\x1b")).toEqual(["\x1b"]);
        expect(joiner.holding()).toBe(false);
        expect(joiner.push("plain text [x]")).toEqual(["plain text [x]"]);
        expect(joiner.push("\x1b[1;")).toEqual([]);
        expect(joiner.push("5A")).toEqual(["\x1b[1;5A"]);
        expect(joiner.holding()).toBe(false);
    });
});
