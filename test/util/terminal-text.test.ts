import { describe, expect, it } from "vitest";
import { sanitizeText } from "../../src/ui/render/sanitize";
import { terminalSafeText } from "../../src/util/terminal-text";

// eslint-disable-next-line no-control-regex
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
const noControls = (text: string): boolean => !UNSAFE.test(text.replace(/\r\n/g, "\n"));

/** [what, input, expected]: every sequence goes whole, its payload included. */
const HOSTILE: Array<[string, string, string]> = [
    ["OSC 52 clipboard write (BEL)", "a\x1b]52;c;cm0gLXJmIH4=\x07b", "ab"],
    ["OSC 52 clipboard write (ST)", "a\x1b]52;c;cm0gLXJmIH4=\x1b\\b", "ab"],
    ["OSC 0 title", "before\x1b]0;pwned title\x07after", "beforeafter"],
    ["OSC 8 hyperlink", "\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\", "link"],
    ["clear screen", "x\x1b[2Jy", "xy"],
    ["home, clear, clear scrollback", "\x1b[H\x1b[2J\x1b[3Jrest", "rest"],
    ["colours", "\x1b[1;38;2;255;0;0mred\x1b[0m", "red"],
    ["private mode (alt screen off)", "a\x1b[?1049lb", "ab"],
    ["DCS", "a\x1bPq#0;2;0;0;0#1~-\x1b\\b", "ab"],
    ["DCS tmux passthrough", "a\x1bPtmux;\x1b\x1b]52;c;eA==\x07\x1b\\b", "ab"],
    ["APC, PM, SOS", "a\x1b_apc\x1b\\b\x1b^pm\x1b\\c\x1bXsos\x1b\\d", "abcd"],
    ["8-bit CSI", "a\x9b2Jb", "ab"],
    ["8-bit CSI with parameters", "a\x9b38;5;1mb", "ab"],
    ["8-bit OSC ended by 8-bit ST", "a\x9d0;title\x9cb", "ab"],
    ["8-bit OSC ended by BEL", "a\x9d52;c;eA==\x07b", "ab"],
    ["8-bit DCS", "a\x90q#0\x9cb", "ab"],
    ["8-bit APC", "a\x9fpayload\x9cb", "ab"],
    ["full reset (ESC c)", "a\x1bcb", "ab"],
    ["charset switch (ESC ( 0)", "a\x1b(0b", "ab"],
    ["save / restore cursor", "a\x1b7b\x1b8c", "abc"],
    ["lone ESC at the end", "text\x1b", "text"],
    ["ESC [ at the end", "text\x1b[", "text"],
    ["CSI cut after its parameters", "text\x1b[12;3", "text"],
    ["unterminated OSC ends with its line", "a\x1b]0;title\nnext line", "a\nnext line"],
    ["unterminated 8-bit OSC ends with its line", "a\x9d0;title\nnext", "a\nnext"],
    ["OSC cut short by another sequence", "a\x1b]0;t\x1b[2Jb", "ab"],
    ["C0 controls", "a\x00\x07\x08\x0b\x0c\x0e\x1fb", "ab"],
    ["DEL and other C1 controls", "a\x7f\x80\x85\x8e\x9cb", "ab"],
    ["lone carriage return", "safe\rEVIL", "safeEVIL"],
];

describe("terminalSafeText", () => {
    it.each(HOSTILE)("%s", (_what, input, expected) => {
        const out = terminalSafeText(input);
        expect(out).toBe(expected);
        expect(noControls(out)).toBe(true);
    });

    it("passes text without controls through unchanged (the same string)", () => {
        const text =
            "héllo — 日本語 🎉 👨‍👩‍👧 e\u0301 \u00a0nbsp ÿ\ttab\nnew line\r\nCRLF kept\n```ts\nconst x = 1;\n```";
        expect(terminalSafeText(text)).toBe(text);
        expect(terminalSafeText("")).toBe("");
        const plain = "plain text ".repeat(10_000);
        expect(terminalSafeText(plain)).toBe(plain);
    });

    it("keeps carriage returns only when asked", () => {
        expect(terminalSafeText("10%\r50%\r\n")).toBe("10%50%\r\n");
        expect(terminalSafeText("10%\r50%\x1b[K\r\n", { keepCarriageReturns: true })).toBe(
            "10%\r50%\r\n"
        );
    });

    it("strips many hostile sequences in one long text in linear time", () => {
        // Introducers with no terminator must not make each scan run to the end.
        const text = "\x9d".repeat(50_000) + "\n" + "x".repeat(50_000) + "\x1b]".repeat(50_000);
        const out = terminalSafeText(text);
        expect(out === "\n" + "x".repeat(50_000)).toBe(true);
    });
});

describe("the chat while an answer streams", () => {
    // The chat redraws the whole text received so far after each delta: whatever
    // delta boundary falls inside a sequence, no state may show a control or payload.
    const streamed =
        "Start \x1b]52;c;SGVsbG8gd29ybGQ=\x07 mid \x9d0;title\x9c \x1b[2J end \x1bP1$r\x1b\\ done";

    it("never shows a control or a payload, at any delta boundary", () => {
        for (let cut = 0; cut <= streamed.length; cut++) {
            const shown = sanitizeText(streamed.slice(0, cut));
            expect(noControls(shown), JSON.stringify(shown)).toBe(true);
            expect(shown).not.toMatch(/SGVs|title|\[2J|1\$r/);
        }
        expect(sanitizeText(streamed)).toBe("Start  mid   end  done");
    });

    it("keeps what a progress bar wrote last", () => {
        expect(sanitizeText("10%\r50%\r\x9b2K100%\nnext\r\n")).toBe("100%\nnext\n");
    });
});
