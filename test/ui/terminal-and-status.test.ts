import { describe, expect, it } from "vitest";
import { FOLLOWING, scrollReducer } from "../../src/ui/scroll-state";
import { formatCost } from "../../src/providers/catalogue";
import { contextColor, formatTokens, statusParts } from "../../src/ui/status-line";
import {
    BRACKETED_PASTE_OFF,
    ENTER_ALT_SCREEN,
    HIDE_CURSOR,
    LEAVE_ALT_SCREEN,
    SHOW_CURSOR,
    createTerminalGuard,
} from "../../src/ui/terminal/terminal-guard";
import type { Entry } from "../../src/ui/transcript/types";

function port() {
    const written: string[] = [];
    const raw: boolean[] = [];
    return {
        written,
        raw,
        write: (text: string) => void written.push(text),
        setRawMode: (value: boolean) => void raw.push(value),
    };
}

describe("terminal guard", () => {
    it("enters the alternate screen and restores everything exactly once", () => {
        const p = port();
        const guard = createTerminalGuard(p, { altScreen: true });
        guard.enter();
        expect(p.written.join("")).toContain(ENTER_ALT_SCREEN);
        expect(p.written.join("")).toContain(HIDE_CURSOR);
        guard.restore();
        guard.restore();
        const out = p.written.join("");
        expect(out.indexOf(LEAVE_ALT_SCREEN)).toBeGreaterThan(0);
        expect(out.endsWith(SHOW_CURSOR)).toBe(true);
        expect(out).toContain(BRACKETED_PASTE_OFF);
        expect(p.raw).toEqual([false]);
        expect(out.split(LEAVE_ALT_SCREEN)).toHaveLength(2);
    });

    it("never touches the screen buffer inline", () => {
        const p = port();
        const guard = createTerminalGuard(p, { altScreen: false });
        guard.enter();
        guard.restore();
        const out = p.written.join("");
        expect(out).not.toContain(ENTER_ALT_SCREEN);
        expect(out).not.toContain(LEAVE_ALT_SCREEN);
        expect(out).toContain(SHOW_CURSOR);
    });
});

describe("status line", () => {
    it("formats tokens, costs and the context colour", () => {
        expect(formatTokens(850)).toBe("850");
        expect(formatTokens(42_500)).toBe("42.5K");
        expect(formatTokens(1_200_000)).toBe("1.2M");
        // The spec: three decimals for small sums, two from $0.10 up.
        expect(formatCost(0)).toBe("$0.00");
        expect(formatCost(0.0003)).toBe("<$0.001");
        expect(formatCost(0.0123)).toBe("$0.012");
        expect(formatCost(0.125)).toBe("$0.13");
        expect(formatCost(12.5)).toBe("$12.50");
        expect(formatCost(null)).toBe("$?");
        expect([0.1, 0.59, 0.6, 0.85, 0.86].map(contextColor)).toEqual([
            "contextLow",
            "contextLow",
            "contextMid",
            "contextMid",
            "contextHigh",
        ]);
    });

    it("drops parts rather than wrap when narrow", () => {
        const props = {
            width: 120,
            project: "north",
            scrolled: true,
            model: "claude-sonnet-4-5-thinking",
            contextUsedTokens: 42_500,
            contextUsage: 0.2,
            sessionCostUsd: 0.5,
            allTimeCostUsd: 0.5,
        };
        expect(statusParts(props)).toEqual({
            model: true,
            tokens: true,
            session: true,
            allTime: true,
        });
        expect(statusParts({ ...props, width: 50 }).model).toBe(false);
        expect(statusParts({ ...props, width: 20 })).toEqual({
            model: false,
            tokens: false,
            session: false,
            allTime: false,
        });
    });
});

describe("scroll state", () => {
    const entries: Entry[] = [];
    it("freezes the view while scrolled up and follows again at the bottom", () => {
        const up = scrollReducer(FOLLOWING, { type: "by", delta: 5, entries });
        expect(up).toEqual({ offset: 5, frozen: entries });
        const more = scrollReducer(up, { type: "by", delta: 5, entries: [] });
        expect(more.frozen).toBe(entries);
        expect(scrollReducer(more, { type: "by", delta: -20, entries })).toBe(FOLLOWING);
        expect(scrollReducer(more, { type: "bottom" })).toBe(FOLLOWING);
        expect(scrollReducer(more, { type: "clamp", from: 10, offset: 3 })).toEqual({
            offset: 3,
            frozen: entries,
        });
    });

    it("ignores a clamp from a frame the user has already scrolled away from (Home then G)", () => {
        const top = scrollReducer(FOLLOWING, { type: "top", entries });
        const bottom = scrollReducer(top, { type: "bottom" });
        // The viewport's clamp of the Home frame arrives after G: the view stays at the bottom.
        expect(scrollReducer(bottom, { type: "clamp", from: top.offset, offset: 40 })).toBe(
            FOLLOWING
        );
        expect(scrollReducer(top, { type: "clamp", from: top.offset, offset: 40 }).offset).toBe(40);
    });
});
