import { describe, expect, it } from "vitest";
import {
    MAX_NOTE_CHARS,
    newMemoryIndexText,
    noteFault,
    noteLine,
    noteText,
} from "../../src/util/memory-note";

describe("memory notes", () => {
    it("saves a note as one trimmed bullet line, keeping the file's line ends", () => {
        expect(noteText("  Use pnpm,\r\n   not npm  ")).toBe("Use pnpm, not npm");
        expect(noteLine(" Use pnpm\n please ")).toBe("- Use pnpm please\n");
        expect(noteLine("Tests need Docker", "\r\n")).toBe("- Tests need Docker\r\n");
        expect(newMemoryIndexText("\r\n")).toBe("# Memory\r\n\r\n");
    });

    it("refuses an empty note and one longer than the cap, counting the saved line", () => {
        expect(noteFault(" \n\t ")).toEqual({ empty: true });
        expect(noteFault("x".repeat(MAX_NOTE_CHARS))).toBeNull();
        expect(noteFault("x".repeat(MAX_NOTE_CHARS + 1))).toEqual({
            tooLong: MAX_NOTE_CHARS + 1,
            max: MAX_NOTE_CHARS,
        });
        // Line breaks are joined before counting: what is kept is what is measured.
        expect(noteFault(`${"x".repeat(500)}\n    \n${"y".repeat(499)}`)).toBeNull();
    });
});
