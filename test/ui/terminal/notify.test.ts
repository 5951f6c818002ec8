import { describe, expect, it } from "vitest";
import {
    createNotifier,
    detectMultiplexer,
    detectNotificationMethod,
    encodeNotification,
    type NotificationSettings,
} from "../../../src/ui/terminal/notify";
import { parseInput } from "../../../src/ui/input/keys";

function harness(settings: NotificationSettings = {}, env: Record<string, string> = {}) {
    let clock = 0;
    const written: string[] = [];
    const notifier = createNotifier({
        settings,
        env: { TERM_PROGRAM: "WezTerm", ...env },
        write: (bytes) => written.push(bytes),
        now: () => clock,
    });
    return {
        notifier,
        written,
        advance(ms: number) {
            clock += ms;
        },
    };
}

describe("when North notifies", () => {
    it("notifies when an answer took longer than afterSeconds, not when it was quick", () => {
        const h = harness({ afterSeconds: 10 });
        h.notifier.runStarted();
        h.advance(9_999);
        h.notifier.runEnded();
        expect(h.written).toEqual([]);
        h.notifier.runStarted();
        h.advance(10_000);
        h.notifier.runEnded();
        expect(h.written).toEqual(["\x1b]9;North: the answer is ready\x07"]);
    });

    it("is quiet while the terminal reports focus, and notifies again after focus out", () => {
        const h = harness({ afterSeconds: 0 });
        h.notifier.focus(true);
        h.notifier.runStarted();
        h.notifier.runEnded();
        h.notifier.reviewWaiting("a command");
        expect(h.written).toEqual([]);
        h.notifier.focus(false);
        h.notifier.reviewWaiting("a command");
        expect(h.written).toEqual(["\x1b]9;North: a command waits for you\x07"]);
    });

    it("always notifies when the terminal never reported focus", () => {
        const h = harness({ afterSeconds: 0 });
        h.notifier.reviewWaiting("an edit");
        expect(h.written).toHaveLength(1);
    });

    it("says nothing when turned off, or when the user stopped the answer", () => {
        const off = harness({ enabled: false, afterSeconds: 0 });
        off.notifier.runStarted();
        off.notifier.runEnded();
        off.notifier.reviewWaiting("an edit");
        expect(off.written).toEqual([]);
        const cancelled = harness({ afterSeconds: 0 });
        cancelled.notifier.runStarted();
        cancelled.notifier.runEnded(false);
        expect(cancelled.written).toEqual([]);
    });

    it("takes the method the setting names over the terminal's", () => {
        const h = harness({ afterSeconds: 0, method: "bell" });
        h.notifier.reviewWaiting("an edit");
        expect(h.written).toEqual(["\x07"]);
    });
});

describe("the terminal's form of a notification", () => {
    it("is chosen from the environment", () => {
        expect(detectNotificationMethod({ TERM_PROGRAM: "iTerm.app" })).toBe("osc9");
        expect(detectNotificationMethod({ TERM_PROGRAM: "ghostty" })).toBe("osc9");
        expect(detectNotificationMethod({ WT_SESSION: "x", TERM: "xterm-256color" })).toBe("osc9");
        expect(detectNotificationMethod({ TERM: "xterm-kitty" })).toBe("osc99");
        expect(detectNotificationMethod({ KITTY_WINDOW_ID: "1", TERM: "tmux-256color" })).toBe(
            "osc99"
        );
        expect(detectNotificationMethod({ TERM: "foot" })).toBe("osc777");
        expect(detectNotificationMethod({ TERM: "rxvt-unicode-256color" })).toBe("osc777");
        expect(detectNotificationMethod({ TERM: "xterm-256color" })).toBe("bell");
        expect(detectNotificationMethod({ TERM: "linux" })).toBe("bell");
    });

    it("encodes OSC 9, OSC 777 and kitty's OSC 99, with nothing that could end the sequence early", () => {
        expect(encodeNotification("osc9", "North", "done\x07\x1b[2J", null)).toBe(
            "\x1b]9;North: done  [2J\x07"
        );
        expect(encodeNotification("osc777", "North", "a;b", null)).toBe(
            "\x1b]777;notify;North;a b\x07"
        );
        expect(encodeNotification("osc99", "North", "ready", null)).toBe(
            "\x1b]99;i=north:d=0;North\x07\x1b]99;i=north:p=body;ready\x07"
        );
        expect(encodeNotification("bell", "North", "ready", "tmux")).toBe("\x07");
    });

    it("is wrapped for tmux's and screen's passthrough", () => {
        expect(detectMultiplexer({ TMUX: "/tmp/tmux-1/default,1,0" })).toBe("tmux");
        expect(detectMultiplexer({ STY: "1.pts", TERM: "screen" })).toBe("screen");
        expect(detectMultiplexer({ TERM: "xterm" })).toBeNull();
        expect(encodeNotification("osc9", "North", "ready", "tmux")).toBe(
            "\x1bPtmux;\x1b\x1b]9;North: ready\x07\x1b\\"
        );
        expect(encodeNotification("osc99", "North", "ready", "screen")).toBe(
            "\x1bP\x1b]99;i=north:d=0;North\x07\x1b\\\x1bP\x1b]99;i=north:p=body;ready\x07\x1b\\"
        );
    });
});

describe("focus reports from the terminal", () => {
    it("are focus events, never text or keys", () => {
        expect(parseInput("\x1b[I")).toEqual([{ type: "focus", focused: true }]);
        expect(parseInput("\x1b[O")).toEqual([{ type: "focus", focused: false }]);
    });
});
