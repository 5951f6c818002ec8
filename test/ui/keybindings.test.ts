import { describe, expect, it } from "vitest";
import {
    DEFAULT_KEYBINDINGS,
    duplicateJsonKeys,
    isTypingKey,
    loadKeybindings,
    parseKeystroke,
    strokeOfEvent,
} from "../../src/ui/input/keybindings";
import { parseInput } from "../../src/ui/input/keys";
import { parseMouse } from "../../src/ui/input/mouse";
import { MOUSE_OFF, MOUSE_ON, createTerminalGuard } from "../../src/ui/terminal/terminal-guard";

const stroke = (text: string) => {
    const parsed = parseKeystroke(text);
    return parsed.ok ? parsed.value : `error: ${parsed.error}`;
};

/** The canonical key of what a terminal sends. */
const sent = (bytes: string) => parseInput(bytes).map(strokeOfEvent);

describe("parseKeystroke", () => {
    it("names keys canonically, whatever the spelling", () => {
        expect(stroke("ctrl+o")).toBe("ctrl+o");
        expect(stroke("Control+O")).toBe("ctrl+o");
        expect(stroke("PageUp")).toBe("pageup");
        expect(stroke("pgdn")).toBe("pagedown");
        expect(stroke("esc")).toBe("escape");
        expect(stroke("Shift+Up")).toBe("shift+up");
        expect(stroke("ctrl+shift+home")).toBe("ctrl+shift+home");
        expect(stroke("G")).toBe("shift+g");
        expect(stroke("shift+g")).toBe("shift+g");
        expect(stroke("meta+m")).toBe("alt+m");
        expect(stroke("opt+m")).toBe("alt+m");
        expect(stroke("+")).toBe("+");
        expect(stroke("ctrl++")).toBe("error: ctrl++ is not a key terminals send");
    });

    it("makes keys a terminal sends alike one key", () => {
        expect(stroke("shift+enter")).toBe("ctrl+j");
        expect(stroke("alt+enter")).toBe("ctrl+j");
        expect(stroke("ctrl+m")).toBe("enter");
        expect(stroke("ctrl+i")).toBe("tab");
        expect(stroke("ctrl+h")).toBe("backspace");
        expect(stroke("alt+b")).toBe("alt+left");
    });

    it("refuses what North cannot bind, saying why", () => {
        expect(stroke("ctrl+c")).toMatch(/ctrl\+c is fixed/);
        expect(stroke("cmd+k")).toMatch(/never reaches a program/);
        expect(stroke("hyper+k")).toMatch(/unknown modifier "hyper"/);
        expect(stroke("pagup")).toMatch(/unknown key "pagup" \(did you mean pageup\?\)/);
        expect(stroke("ctrl+x ctrl+k")).toMatch(/chords .* are not supported/);
        expect(stroke("ctrl+shift+o")).toMatch(/reaches North as ctrl\+o/);
        expect(stroke("shift+1")).toMatch(/write the character/);
        expect(stroke("")).toMatch(/empty/);
    });

    it("matches what the key parser makes of the terminal's bytes", () => {
        expect(sent("\x0f")).toEqual(["ctrl+o"]);
        expect(sent("\r")).toEqual(["enter"]);
        expect(sent("\n")).toEqual(["ctrl+j"]);
        expect(sent("\x1b[13;2u")).toEqual(["ctrl+j"]); // Shift+Enter, kitty
        expect(sent("\x1b[5~")).toEqual(["pageup"]);
        expect(sent("\x1b[1;2A")).toEqual(["shift+up"]);
        expect(sent("\x1b[1;5H")).toEqual(["ctrl+home"]);
        expect(sent("\x1b[Z")).toEqual(["shift+tab"]);
        expect(sent("\x1bm")).toEqual(["alt+m"]);
        expect(sent("G")).toEqual(["shift+g"]);
        expect(sent(" ")).toEqual(["space"]);
        expect(sent("ab")).toEqual([null]);
        for (const text of ["ctrl+o", "enter", "shift+enter", "pageup", "shift+up", "ctrl+home"]) {
            expect(
                DEFAULT_KEYBINDINGS.resolve(["Chat", "Scroll", "Global"], stroke(text))
            ).toBeDefined();
        }
    });

    it("tells typing keys from the others", () => {
        expect(isTypingKey("x")).toBe(true);
        expect(isTypingKey("shift+g")).toBe(true);
        expect(isTypingKey("space")).toBe(true);
        expect(isTypingKey("+")).toBe(true);
        expect(isTypingKey("ctrl+x")).toBe(false);
        expect(isTypingKey("home")).toBe(false);
        expect(isTypingKey("alt+x")).toBe(false);
    });
});

describe("loadKeybindings", () => {
    const load = (json: unknown) => loadKeybindings(JSON.stringify(json));
    const block = (context: string, bindings: Record<string, string | null>) => ({
        bindings: [{ context, bindings }],
    });

    it("gives the defaults without a file", () => {
        const { keybindings, problems } = loadKeybindings(null);
        expect(problems).toEqual([]);
        expect(keybindings.resolve(["Global"], "ctrl+o")?.action).toBe("app:transcript");
        expect(keybindings.resolve(["Chat"], "ctrl+t")?.action).toBe("chat:expandPaste");
        expect(keybindings.resolve(["Chat", "Global"], "enter")?.action).toBe("chat:submit");
        expect(keybindings.resolve(["Scroll", "Global"], "wheelup")?.action).toBe("scroll:wheelUp");
        expect(keybindings.resolve(["Transcript"], "home")?.action).toBe("scroll:top");
        expect(keybindings.resolve(["Chat", "Scroll", "Global"], "home")).toBeUndefined();
    });

    it("lays the user's keys over the defaults; null unbinds", () => {
        const { keybindings, problems } = load({
            $schema: "x",
            bindings: [
                { context: "Global", bindings: { "ctrl+e": "app:toggleExpand", "ctrl+o": null } },
                { context: "Chat", bindings: { "ctrl+s": "chat:submit", enter: "chat:newline" } },
            ],
        });
        expect(problems).toEqual([]);
        expect(keybindings.resolve(["Global"], "ctrl+e")?.action).toBe("app:toggleExpand");
        expect(keybindings.resolve(["Global"], "ctrl+o")).toEqual({
            action: null,
            context: "Global",
        });
        expect(keybindings.resolve(["Chat"], "ctrl+s")?.action).toBe("chat:submit");
        expect(keybindings.resolve(["Chat"], "enter")?.action).toBe("chat:newline");
        // Untouched defaults stay.
        expect(keybindings.resolve(["Chat"], "ctrl+j")?.action).toBe("chat:newline");
        expect(keybindings.resolve(["Scroll"], "pageup")?.action).toBe("scroll:pageUp");
    });

    it("reports broken JSON and the wrong shape, and changes no key", () => {
        const broken = loadKeybindings("{ bindings: [");
        expect(broken.problems).toHaveLength(1);
        expect(broken.problems[0]).toMatch(/^not valid JSON .*; no key was changed$/);
        expect(broken.keybindings.resolve(["Global"], "ctrl+o")?.action).toBe("app:transcript");
        expect(load({ Chat: { "ctrl+s": "chat:submit" } }).problems[0]).toMatch(/"bindings" list/);
    });

    it("reports unknown contexts, actions, keys and fields, keeping the rest", () => {
        const { keybindings, problems } = load({
            extra: 1,
            bindings: [
                { context: "Chta", bindings: { "ctrl+s": "chat:submit" } },
                {
                    context: "Global",
                    bindings: {
                        "ctrl+e": "app:toggleExpnd",
                        "hyper+e": "app:toggleExpand",
                        "ctrl+y": "chat:submit",
                        "ctrl+x": "app:toggleMouse",
                    },
                },
                "nonsense",
            ],
        });
        expect(problems).toEqual([
            'unknown field "extra" ignored',
            'bindings[0]: unknown context "Chta" (did you mean Chat?); contexts are Transcript, Chat, Scroll, Global; ignored',
            'Global "ctrl+e": unknown action "app:toggleExpnd" (did you mean app:toggleExpand?); ignored',
            'Global "hyper+e": unknown modifier "hyper" (ctrl, alt, shift); ignored',
            'Global "ctrl+y": chat:submit can only be bound in Chat or Transcript; ignored',
            'bindings[2] must be {"context": "...", "bindings": {...}}; ignored',
        ]);
        expect(keybindings.resolve(["Global"], "ctrl+x")?.action).toBe("app:toggleMouse");
        expect(keybindings.resolve(["Global"], "ctrl+e")).toBeUndefined();
    });

    it("reports conflicts and keys that would stop typing; the defaults stay for them", () => {
        const { keybindings, problems } = load(
            block("Chat", {
                "ctrl+j": "chat:submit",
                "shift+enter": "chat:newline",
                q: "scroll:top",
                "shift+q": "scroll:top",
            })
        );
        expect(problems).toEqual([
            'Chat "q": a key that types text would stop typing it (Chat is active while you type); ignored',
            'Chat "shift+q": a key that types text would stop typing it (Chat is active while you type); ignored',
            'Chat: "ctrl+j" and "shift+enter" are one key to a terminal (ctrl+j), bound to chat:submit and chat:newline; neither is used',
        ]);
        expect(keybindings.resolve(["Chat"], "ctrl+j")?.action).toBe("chat:newline");
        expect(keybindings.resolve(["Chat"], "q")).toBeUndefined();
        // A letter is allowed where the composer is empty.
        expect(load(block("Transcript", { g: "scroll:top" })).problems).toEqual([]);
    });

    it("reports a key written twice in one block (JSON keeps only the last)", () => {
        const text =
            '{"bindings": [{"context": "Global", "bindings": {"ctrl+e": "app:toggleExpand", "ctrl+e": "app:toggleMouse"}}]}';
        const { keybindings, problems } = loadKeybindings(text);
        expect(problems).toEqual([
            'Global "ctrl+e" is written twice in one block; neither is used',
        ]);
        expect(keybindings.resolve(["Global"], "ctrl+e")).toBeUndefined();
        expect(
            duplicateJsonKeys('{"a": {"b": 1, "c": "\\"b\\""}, "d": [{"b": 1}, {"b": 2}]}')
        ).toEqual(new Set());
    });

    it("reports a binding a more specific context takes first", () => {
        const { problems } = load(block("Global", { "ctrl+r": "app:toggleExpand" }));
        expect(problems).toEqual([
            'Global "ctrl+r" (app:toggleExpand) is taken first by Chat (history:search) while the composer has the keys; set it to null in Chat to free it',
        ]);
    });
});

describe("mouse reports", () => {
    it("names wheel reports, with or without modifiers, and nothing else", () => {
        expect(parseMouse("\x1b[<64;10;5M")).toEqual({ kind: "wheel", direction: "up" });
        expect(parseMouse("\x1b[<65;1;1M")).toEqual({ kind: "wheel", direction: "down" });
        expect(parseMouse("\x1b[<68;1;1M")).toEqual({ kind: "wheel", direction: "up" }); // Shift
        expect(parseMouse("\x1b[<0;3;4M")).toEqual({ kind: "other" });
        expect(parseMouse("\x1b[<0;3;4m")).toEqual({ kind: "other" });
        expect(parseMouse("\x1b[5~")).toBeNull();
        // Whole reports reach the key parser as one unknown sequence, never as text.
        expect(parseInput("\x1b[<64;10;5M")).toEqual([
            { type: "unknown", sequence: "\x1b[<64;10;5M" },
        ]);
    });

    it("is turned on in the alternate screen, toggled, and always off on restore", () => {
        const written: string[] = [];
        const port = { write: (text: string) => void written.push(text) };
        const guard = createTerminalGuard(port, { altScreen: true });
        guard.enter();
        expect(written.join("")).toContain(MOUSE_ON);
        expect(guard.setMouse(false)).toBe(false);
        expect(written.at(-1)).toBe(MOUSE_OFF);
        expect(guard.setMouse(false)).toBe(false);
        expect(written).toHaveLength(2);
        expect(guard.setMouse(true)).toBe(true);
        guard.restore();
        expect(written.at(-1)).toContain(MOUSE_OFF);
        expect(guard.setMouse(true)).toBe(false); // restored: nothing more is written
        expect(written).toHaveLength(4);

        const inline: string[] = [];
        const plain = createTerminalGuard(
            { write: (text) => void inline.push(text) },
            { altScreen: false }
        );
        plain.enter();
        expect(plain.setMouse(true)).toBe(false);
        expect(inline.join("")).not.toContain(MOUSE_ON);
        const off: string[] = [];
        const noMouse = createTerminalGuard(
            { write: (text) => void off.push(text) },
            { altScreen: true, mouse: false }
        );
        noMouse.enter();
        expect(noMouse.mouse()).toBe(false);
        expect(off.join("")).not.toContain(MOUSE_ON);
    });
});
