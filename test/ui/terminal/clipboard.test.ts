import { describe, expect, it } from "vitest";
import {
    type ClipboardEnv,
    OSC52_MAX_BASE64,
    copyTool,
    fitsOsc52,
    osc52,
    pasteImageTool,
} from "../../../src/ui/terminal/clipboard";
import { copyText, nthLastAnswer } from "../../../src/ui/copy-answer";
import { pasteClipboardImage } from "../../../src/ui/composer/clipboard-image";
import type { Entry } from "../../../src/ui/transcript/types";

const at = (
    env: NodeJS.ProcessEnv,
    installed: string[],
    platform: NodeJS.Platform = "linux"
): ClipboardEnv => ({
    env,
    platform,
    lookup: (name) => (installed.includes(name) ? `/usr/bin/${name}` : null),
});

describe("OSC 52", () => {
    it("carries the text as base64, wrapped for tmux (ESC doubled) and cut in pieces for screen", () => {
        const b64 = Buffer.from("héllo").toString("base64");
        expect(osc52("héllo", {})).toBe(`\x1b]52;c;${b64}\x07`);
        expect(osc52("héllo", { TMUX: "/tmp/tmux-1/default,1,0" })).toBe(
            `\x1bPtmux;\x1b\x1b]52;c;${b64}\x07\x1b\\`
        );
        const screen = osc52("x".repeat(2000), { STY: "1.pts-0" });
        const pieces = screen.split("\x1b\\").filter((p) => p !== "");
        expect(pieces.length).toBeGreaterThan(1);
        for (const piece of pieces) {
            expect(piece.startsWith("\x1bP")).toBe(true);
            expect(piece.length).toBeLessThanOrEqual(768);
        }
        expect(pieces.map((p) => p.slice(2)).join("")).toBe(osc52("x".repeat(2000), {}));
    });

    it("is capped at 100,000 bytes of base64", () => {
        const fits = "a".repeat((OSC52_MAX_BASE64 / 4) * 3);
        expect(fitsOsc52(fits)).toBe(true);
        expect(fitsOsc52(`${fits}a`)).toBe(false);
    });
});

describe("which clipboard program", () => {
    it("copies with pbcopy on macOS, wl-copy on Wayland, else xclip then xsel on X11", () => {
        expect(copyTool(at({}, ["pbcopy"], "darwin"))?.name).toBe("pbcopy");
        expect(
            copyTool(at({ WAYLAND_DISPLAY: "w", DISPLAY: ":0" }, ["wl-copy", "xclip"]))?.name
        ).toBe("wl-copy");
        // Wayland without wl-copy: XWayland's xclip.
        expect(copyTool(at({ WAYLAND_DISPLAY: "w", DISPLAY: ":0" }, ["xclip"]))?.args).toEqual([
            "-selection",
            "clipboard",
        ]);
        expect(copyTool(at({ DISPLAY: ":0" }, ["xsel"]))?.name).toBe("xsel");
        expect(copyTool(at({ DISPLAY: ":0" }, []))).toBeNull();
        // No display (ssh, a console): no program, whatever is installed.
        expect(copyTool(at({}, ["xclip", "wl-copy"]))).toBeNull();
    });

    it("reads images with pngpaste, wl-paste --type image/png or xclip -t image/png", () => {
        expect(pasteImageTool(at({}, ["pngpaste"], "darwin"))?.args).toEqual(["-"]);
        expect(pasteImageTool(at({ WAYLAND_DISPLAY: "w" }, ["wl-paste"]))?.args).toContain(
            "image/png"
        );
        expect(pasteImageTool(at({ DISPLAY: ":0" }, ["xclip", "xsel"]))?.args).toEqual([
            "-selection",
            "clipboard",
            "-t",
            "image/png",
            "-o",
        ]);
        // xsel cannot read images.
        expect(pasteImageTool(at({ DISPLAY: ":0" }, ["xsel"]))).toBeNull();
    });
});

describe("/copy's text and report", () => {
    const entries: Entry[] = [
        { kind: "assistant", text: "first", streaming: false, cancelled: false },
        { kind: "user", text: "q", attachments: [] },
        { kind: "assistant", text: "  ", streaming: false, cancelled: false },
        { kind: "assistant", text: "second", streaming: false, cancelled: false },
    ] as Entry[];

    it("counts answers from the last, skipping empty ones", () => {
        expect(nthLastAnswer(entries, 1)).toBe("second");
        expect(nthLastAnswer(entries, 2)).toBe("first");
        expect(nthLastAnswer(entries, 3)).toBeUndefined();
    });

    it("says which ways took the text, or what to install", async () => {
        const written: string[] = [];
        const ok = async () => ({ ok: true as const, stdout: Buffer.alloc(0) });
        const both = await copyText("héllo", {
            clipboard: at({ WAYLAND_DISPLAY: "w" }, ["wl-copy"]),
            tty: true,
            write: (s) => written.push(s),
            run: ok,
        });
        expect(both).toEqual({ message: "copied 5 characters (OSC 52 + wl-copy)" });
        expect(written).toEqual([osc52("héllo", {})]);

        const unknownTerminal = await copyText("x", {
            clipboard: at({ DISPLAY: ":0", TERM: "xterm-256color" }, []),
            tty: true,
            write: () => undefined,
        });
        expect(unknownTerminal.message).toBe(
            "copied 1 character (OSC 52). This terminal may ignore OSC 52; for the system clipboard install xclip or xsel"
        );

        const kitty = await copyText("x", {
            clipboard: at({ TERM: "xterm-kitty" }, []),
            tty: true,
            write: () => undefined,
        });
        expect(kitty).toEqual({ message: "copied 1 character (OSC 52)" });

        const nothing = await copyText("x", {
            clipboard: at({ DISPLAY: ":0" }, ["xclip"]),
            tty: false,
            write: () => undefined,
            run: async () => ({ ok: false, error: "xclip exited with status 1" }),
        });
        expect(nothing.isError).toBe(true);
        expect(nothing.message).toBe(
            "nothing copied: xclip exited with status 1; no clipboard program found (install xclip or xsel)"
        );
    });
});

describe("Ctrl+V's image", () => {
    it("is saved only when the clipboard holds a PNG, and says what to install without a reader", async () => {
        const none = await pasteClipboardImage({ clipboard: at({ WAYLAND_DISPLAY: "w" }, []) });
        expect(none).toEqual({
            ok: false,
            message:
                "cannot read images from the clipboard: install wl-clipboard (wl-copy, wl-paste)",
        });
        const text = await pasteClipboardImage({
            clipboard: at({ WAYLAND_DISPLAY: "w" }, ["wl-paste"]),
            run: async () => ({ ok: true, stdout: Buffer.from("plain text") }),
        });
        expect(text.ok).toBe(false);
        expect(!text.ok && text.message).toContain("no image in the clipboard");
    });
});
