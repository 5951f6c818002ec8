/**
 * Handing the terminal to $VISUAL / $EDITOR for `/memory edit`: which editor
 * runs, the clear errors when none can, and the screen modes put back as
 * they were around it.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
    type HandoverTerminal,
    createEditorHandover,
    runEditor,
} from "../../src/ui/terminal/editor-handover";
import {
    ENTER_ALT_SCREEN,
    LEAVE_ALT_SCREEN,
    MOUSE_OFF,
    MOUSE_ON,
} from "../../src/ui/terminal/terminal-guard";

let dir: string;
let file: string;
/** An editor that appends a line to the file it is given (and records its arguments). */
let appender: string;
beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "north-editor-"));
    file = join(dir, "MEMORY.md");
    writeFileSync(file, "# Memory\n\n");
    appender = join(dir, "append.sh");
    writeFileSync(appender, '#!/bin/sh\nprintf -- "- edited by %s\\n" "$0" >> "$1"\n');
    chmodSync(appender, 0o755);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const ENOENT = Object.assign(new Error("spawnSync vi ENOENT"), { code: "ENOENT" });

describe("runEditor", () => {
    it("runs $EDITOR (with its arguments) on the file; $VISUAL wins over it", () => {
        expect(runEditor(file, { EDITOR: `sh ${appender}` })).toEqual({ ok: true });
        expect(readFileSync(file, "utf8")).toBe(`# Memory\n\n- edited by ${appender}\n`);
        expect(runEditor(file, { VISUAL: appender, EDITOR: "/no/such/editor" })).toEqual({
            ok: true,
        });
        expect(
            readFileSync(file, "utf8")
                .split("\n")
                .filter((l) => l.startsWith("-"))
        ).toHaveLength(2);
    });

    it("says plainly when $EDITOR does not exist, and does not fall back to another editor", () => {
        const result = runEditor(file, { EDITOR: "/no/such/editor --wait" });
        expect(result).toEqual({
            ok: false,
            error: `the editor $EDITOR (/no/such/editor --wait) was not found; set $EDITOR to an editor on your PATH. ${file} is unchanged.`,
        });
        expect(readFileSync(file, "utf8")).toBe("# Memory\n\n");
    });

    it("keeps what an editor that failed saved, with a warning", () => {
        writeFileSync(appender, '#!/bin/sh\necho "- half" >> "$1"\nexit 3\n');
        const result = runEditor(file, { EDITOR: appender });
        expect(result).toEqual({
            ok: true,
            warning: `the editor (${appender}) exited with status 3; what it saved is used`,
        });
    });

    it("without $VISUAL or $EDITOR tries vi, then nano, and errors when neither is installed", () => {
        const tried: string[] = [];
        const nanoOnly = (command: string) => {
            tried.push(command);
            return command === "nano"
                ? { status: 0, signal: null, error: undefined }
                : { status: null, signal: null, error: ENOENT };
        };
        expect(runEditor(file, {}, nanoOnly)).toEqual({ ok: true });
        expect(tried).toEqual(["vi", "nano"]);

        const none = () => ({ status: null, signal: null, error: ENOENT });
        const result = runEditor(file, { EDITOR: "  " }, none);
        expect(result.ok).toBe(false);
        expect(!result.ok && result.error).toContain("no editor found");
        expect(!result.ok && result.error).toContain(file);
    });
});

describe("createEditorHandover", () => {
    function fakeTerminal() {
        const log: string[] = [];
        const writes: string[] = [];
        let raw = true;
        const terminal: HandoverTerminal = {
            write: (text) => {
                writes.push(text);
                log.push("write");
            },
            setRawMode: (on) => {
                raw = on;
                log.push(`raw ${on}`);
            },
            isRaw: () => raw,
        };
        return { terminal, log, writes, raw: () => raw };
    }

    it("leaves the alternate screen and raw mode for the editor, then restores both, the mouse, and redraws", () => {
        const { terminal, log, writes, raw } = fakeTerminal();
        const edit = createEditorHandover({
            terminal,
            altScreen: true,
            mouse: () => true,
            redraw: () => void log.push("redraw"),
            env: { EDITOR: "vi" },
            spawn: () => {
                log.push(`editor runs, raw ${raw()}`);
                return { status: 0, signal: null, error: undefined };
            },
        });
        expect(edit(file)).toEqual({ ok: true });
        expect(log).toEqual([
            "write",
            "raw false",
            "editor runs, raw false",
            "raw true",
            "write",
            "redraw",
        ]);
        const [before, after] = writes;
        expect(before).toContain(LEAVE_ALT_SCREEN);
        expect(before).toContain(MOUSE_OFF);
        expect(after).toContain(ENTER_ALT_SCREEN);
        expect(after).toContain(MOUSE_ON);
        expect(raw()).toBe(true);
    });

    it("puts the screen back when no editor runs, and leaves mouse reporting off when it was off", () => {
        const { terminal, log, writes } = fakeTerminal();
        let redraws = 0;
        const edit = createEditorHandover({
            terminal,
            altScreen: true,
            mouse: () => false,
            redraw: () => void redraws++,
            env: { EDITOR: "/no/such/editor" },
        });
        const result = edit(file);
        expect(result.ok).toBe(false);
        expect(redraws).toBe(1);
        const after = writes.at(-1)!;
        expect(after).toContain(ENTER_ALT_SCREEN);
        expect(after).not.toContain(MOUSE_ON);
        expect(log).toContain("raw true");
    });
});
