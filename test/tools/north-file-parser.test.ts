import { describe, expect, it } from "vitest";
import type { FileBlockEvent } from "../../src/tools/north-file/parser";
import { FileBlockParser, parseOpenTag } from "../../src/tools/north-file/parser";

/** Feeds `chunks`, ends the stream, and merges adjacent text events for comparison. */
function parse(chunks: string[]): FileBlockEvent[] {
    const parser = new FileBlockParser();
    const events = [...chunks.flatMap((c) => parser.push(c)), ...parser.end()];
    const merged: FileBlockEvent[] = [];
    for (const event of events) {
        const last = merged[merged.length - 1];
        if (
            last &&
            (event.type === "display_text" || event.type === "session_content") &&
            last.type === event.type
        ) {
            merged[merged.length - 1] = { ...last, text: last.text + event.text };
        } else merged.push(event);
    }
    return merged;
}

const DOC =
    'Here is the file:\n<NORTH_FILE path="src/a.ts">\nexport const a = 1;\nconst s = "<b>x</b>";\n</NORTH_FILE>\nDone.';

const EXPECTED: FileBlockEvent[] = [
    { type: "display_text", text: "Here is the file:\n" },
    { type: "session_start", path: "src/a.ts", mode: "create" },
    { type: "session_content", text: 'export const a = 1;\nconst s = "<b>x</b>";\n' },
    { type: "session_complete", path: "src/a.ts" },
    { type: "display_text", text: "Done." },
];

describe("FileBlockParser", () => {
    it("parses a whole block", () => {
        expect(parse([DOC])).toEqual(EXPECTED);
    });

    it("gives the same events for a split at every offset", () => {
        for (let i = 0; i <= DOC.length; i++) {
            expect(parse([DOC.slice(0, i), DOC.slice(i)]), `split at ${i}`).toEqual(EXPECTED);
        }
    });

    it("gives the same events for every two-split and for one character at a time", () => {
        for (let i = 0; i <= DOC.length; i += 3) {
            for (let j = i; j <= DOC.length; j += 5) {
                expect(parse([DOC.slice(0, i), DOC.slice(i, j), DOC.slice(j)])).toEqual(EXPECTED);
            }
        }
        expect(parse([...DOC])).toEqual(EXPECTED);
    });

    it("never emits tag text as display text or content", () => {
        const parser = new FileBlockParser();
        const events = [...DOC].flatMap((c) => parser.push(c));
        const shown = events.map((e) => ("text" in e ? e.text : "")).join("");
        expect(shown).not.toContain("NORTH_FILE");
        expect(shown).not.toContain("<NORTH");
    });

    it("reads mode=append and single quotes", () => {
        expect(parseOpenTag(`<NORTH_FILE path='x.py' mode="append">`)).toEqual({
            path: "x.py",
            mode: "append",
        });
        expect(parseOpenTag(`<NORTH_FILE mode="create" path="y">`)).toEqual({
            path: "y",
            mode: "create",
        });
        expect(parseOpenTag(`<NORTH_FILE>`)).toBeNull();
    });

    it("handles a path containing > inside quotes", () => {
        expect(parse(['<NORTH_FILE path="a>b.txt">x</NORTH_FILE>'])).toEqual([
            { type: "session_start", path: "a>b.txt", mode: "create" },
            { type: "session_content", text: "x" },
            { type: "session_complete", path: "a>b.txt" },
        ]);
    });

    it("treats look-alikes as text", () => {
        const text = "Use <NORTH_FILES> or <NORTH_FILE> without a path, and a < b.";
        expect(parse([text])).toEqual([{ type: "display_text", text }]);
        expect(parse(["ends with <NORTH_FI"])).toEqual([
            { type: "display_text", text: "ends with <NORTH_FI" },
        ]);
    });

    it("keeps text that only looks like a tag start inside content", () => {
        const doc = '<NORTH_FILE path="t.html">\n<div></NORTH></div>\n</NORTH_FILE>';
        expect(parse([doc])).toEqual([
            { type: "session_start", path: "t.html", mode: "create" },
            { type: "session_content", text: "<div></NORTH></div>\n" },
            { type: "session_complete", path: "t.html" },
        ]);
    });

    it("reports a block that never closes and drops a cut-off close tag", () => {
        const parser = new FileBlockParser();
        const events = [
            ...parser.push('<NORTH_FILE path="p.ts">\nline 1\nline 2\n</NORTH_F'),
            ...parser.end(),
        ];
        expect(events).toEqual([
            { type: "session_start", path: "p.ts", mode: "create" },
            { type: "session_content", text: "line 1\nline 2\n" },
            { type: "session_incomplete", path: "p.ts" },
        ]);
        expect(parser.activePath).toBeNull();
    });

    it("parses two blocks and CRLF after the tags", () => {
        const doc =
            'a<NORTH_FILE path="1">\r\none\r\n</NORTH_FILE>\r\nb<NORTH_FILE path="2" mode="append">two</NORTH_FILE>c';
        expect(parse([doc])).toEqual([
            { type: "display_text", text: "a" },
            { type: "session_start", path: "1", mode: "create" },
            { type: "session_content", text: "one\r\n" },
            { type: "session_complete", path: "1" },
            { type: "display_text", text: "b" },
            { type: "session_start", path: "2", mode: "append" },
            { type: "session_content", text: "two" },
            { type: "session_complete", path: "2" },
            { type: "display_text", text: "c" },
        ]);
    });

    it("streams content before the block closes", () => {
        const parser = new FileBlockParser();
        parser.push('<NORTH_FILE path="s">\n');
        expect(parser.activePath).toBe("s");
        expect(parser.push("first line\nsecond")).toEqual([
            { type: "session_content", text: "first line\nsecond" },
        ]);
    });
});
