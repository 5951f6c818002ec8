import { EventEmitter } from "node:events";
import { stripVTControlCharacters } from "node:util";
import { render } from "ink";
import { act } from "react";
import type { ReactElement } from "react";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { editStandingOptions } from "../../src/agent/approval-requirement";
import type { ApprovalDecision } from "../../src/agent/approvals";
import type { FileDiff } from "../../src/tools/types";
import { diffNavKey, DiffReview, scrolledTop } from "../../src/ui/reviews/diff-review";
import { PlanReview, planScrollKey } from "../../src/ui/reviews/plan-review";
import { ShellReview } from "../../src/ui/reviews/shell-review";
import { createAnsi } from "../../src/ui/render/ansi";

class FakeStdout extends EventEmitter {
    columns = 80;
    rows = 24;
    isTTY = true;
    frames: string[] = [];
    write(data: string): boolean {
        this.frames.push(data);
        return true;
    }
}

class FakeStdin extends EventEmitter {
    isTTY = true;
    private pending: string[] = [];
    setEncoding(): void {}
    setRawMode(): void {}
    resume(): void {}
    pause(): void {}
    ref(): void {}
    unref(): void {}
    read(): string | null {
        return this.pending.shift() ?? null;
    }
    send(data: string): void {
        this.pending.push(data);
        this.emit("readable");
    }
}

// Renders and keys go through act(): when it returns, the frame is drawn.
/** What the approval requirement offers for an ordinary edit. */
const EDIT_OPTIONS = editStandingOptions(false);

const actGlobal = globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean };
beforeAll(() => {
    actGlobal.IS_REACT_ACT_ENVIRONMENT = true;
});
afterAll(() => {
    delete actGlobal.IS_REACT_ACT_ENVIRONMENT;
});

const unmounts: Array<() => void> = [];
afterEach(() => {
    for (const unmount of unmounts.splice(0)) unmount();
});

function mount(node: ReactElement) {
    const stdout = new FakeStdout();
    const stdin = new FakeStdin();
    let instance: ReturnType<typeof render> | undefined;
    act(() => {
        instance = render(node, {
            stdout: stdout as unknown as NodeJS.WriteStream,
            stderr: new FakeStdout() as unknown as NodeJS.WriteStream,
            stdin: stdin as unknown as NodeJS.ReadStream,
            debug: true,
            exitOnCtrlC: false,
            patchConsole: false,
        });
    });
    unmounts.push(() => act(() => instance?.unmount()));
    return {
        frame: () => stripVTControlCharacters(stdout.frames.at(-1) ?? ""),
        async press(keys: string) {
            await act(async () => {
                stdin.send(keys);
                if (keys === "\u001b") await new Promise((resolve) => setImmediate(resolve));
            });
        },
    };
}

const KEY = {
    down: "\u001b[B",
    up: "\u001b[A",
    pageDown: "\u001b[6~",
    pageUp: "\u001b[5~",
    home: "\u001b[H",
    end: "\u001b[F",
    esc: "\u001b",
};

function newFile(lines: number): FileDiff {
    const body = Array.from({ length: lines }, (_, i) => `+line ${i + 1}`);
    return {
        path: "n.ts",
        diff: ["--- /dev/null", "+++ b/n.ts", `@@ -0,0 +1,${lines} @@`, ...body, ""].join("\n"),
        linesAdded: lines,
        linesRemoved: 0,
        isNewFile: true,
    };
}

/** Numbers of the `+line N` rows in a frame. */
const shownLines = (frame: string) =>
    [...frame.matchAll(/\+line (\d+)\b/g)].map((m) => Number(m[1]));

describe("diff review navigation keys", () => {
    it("names the keys that move the view and leaves the rest alone", () => {
        // ↑↓ belong to the review's menu.
        expect(diffNavKey("", { downArrow: true })).toBeNull();
        expect(diffNavKey("", { pageUp: true })).toBe("pageUp");
        expect(diffNavKey("", { home: true })).toBe("home");
        expect(diffNavKey("", { end: true })).toBe("end");
        expect(diffNavKey("f", {})).toBe("toggleFull");
        expect(diffNavKey("", { escape: true })).toBe("exitFull");
        expect(diffNavKey("a", {})).toBeNull();
        expect(diffNavKey("x", {})).toBeNull();
    });

    it("keeps the window inside the diff and pages by a window less one row", () => {
        expect(scrolledTop(0, "up", 62, 9)).toBe(0);
        expect(scrolledTop(0, "pageDown", 62, 9)).toBe(8);
        expect(scrolledTop(50, "pageDown", 62, 9)).toBe(53);
        expect(scrolledTop(53, "down", 62, 9)).toBe(53);
        expect(scrolledTop(20, "home", 62, 9)).toBe(0);
        expect(scrolledTop(0, "end", 62, 9)).toBe(53);
        expect(scrolledTop(0, "end", 5, 9)).toBe(0);
    });
});

/** The review menu's rows beyond the single keys line these heights were first written for. */
const MENU_EXTRA_ROWS = 3;

describe("the write review scrolls its diff", () => {
    it("fits the height it is given and moves with PgDn End PgUp Home", async () => {
        const r = mount(
            <DiffReview
                summary="Creating n.ts"
                diffs={[newFile(60)]}
                status="pending"
                standingOptions={EDIT_OPTIONS}
                width={80}
                height={MENU_EXTRA_ROWS + 14}
                active
            />
        );
        expect(r.frame().split("\n")).toHaveLength(MENU_EXTRA_ROWS + 14);
        expect(shownLines(r.frame())).toEqual([1, 2, 3, 4, 5, 6, 7]);
        expect(r.frame()).toContain("rows 1–9 of 62");
        await r.press(KEY.pageDown);
        expect(r.frame()).toContain("rows 9–17 of 62");
        await r.press(KEY.end);
        expect(shownLines(r.frame())).toEqual([52, 53, 54, 55, 56, 57, 58, 59, 60]);
        await r.press(KEY.pageUp);
        expect(r.frame()).toContain("rows 46–54 of 62");
        await r.press(KEY.home);
        expect(r.frame()).toContain("rows 1–9 of 62");
        expect(r.frame().split("\n")).toHaveLength(MENU_EXTRA_ROWS + 14);
    });

    it("takes every key of one input string, each from where the last left the view", async () => {
        const r = mount(
            <DiffReview
                summary="Creating n.ts"
                diffs={[newFile(60)]}
                status="pending"
                standingOptions={EDIT_OPTIONS}
                width={80}
                height={MENU_EXTRA_ROWS + 14}
                active
            />
        );
        await r.press(KEY.pageDown + KEY.pageDown);
        expect(r.frame()).toContain("rows 17–25 of 62");
    });

    it("shows a diff that fits without a position line", () => {
        const r = mount(
            <DiffReview
                summary="Creating n.ts"
                diffs={[newFile(3)]}
                status="pending"
                standingOptions={EDIT_OPTIONS}
                width={80}
                height={MENU_EXTRA_ROWS + 14}
                active
            />
        );
        expect(shownLines(r.frame())).toEqual([1, 2, 3]);
        expect(r.frame()).not.toContain("rows ");
    });

    it("past 100 lines scrolls through all of them; f opens the full-screen view and f or Esc closes it", async () => {
        const full: boolean[] = [];
        const r = mount(
            <DiffReview
                summary="Creating n.ts"
                diffs={[newFile(150)]}
                status="pending"
                standingOptions={EDIT_OPTIONS}
                width={80}
                height={MENU_EXTRA_ROWS + 14}
                fullHeight={MENU_EXTRA_ROWS + 22}
                active
                onFullScreen={(f) => full.push(f)}
            />
        );
        expect(r.frame()).toMatch(/rows 1–\d+ of 152 /);
        expect(r.frame()).not.toContain("not shown here");
        await r.press(KEY.end);
        expect(Math.max(...shownLines(r.frame()))).toBe(150);
        await r.press(KEY.home);
        await r.press("f");
        expect(full.at(-1)).toBe(true);
        expect(r.frame().split("\n")).toHaveLength(MENU_EXTRA_ROWS + 22);
        expect(r.frame()).not.toContain("not shown here");
        await r.press(KEY.end);
        expect(Math.max(...shownLines(r.frame()))).toBe(150);
        await r.press(KEY.esc);
        expect(full.at(-1)).toBe(false);
        expect(r.frame().split("\n")).toHaveLength(MENU_EXTRA_ROWS + 14);
        await r.press("f");
        await r.press("f");
        expect(full.slice(-2)).toEqual([true, false]);
    });

    it("still answers by digit after scrolling, once the keys moved the view", async () => {
        const decisions: ApprovalDecision[] = [];
        const r = mount(
            <DiffReview
                summary="Creating n.ts"
                diffs={[newFile(60)]}
                status="pending"
                standingOptions={EDIT_OPTIONS}
                width={80}
                height={MENU_EXTRA_ROWS + 14}
                active
                onDecide={(d) => decisions.push(d)}
            />
        );
        await r.press(KEY.pageDown);
        await r.press("f");
        expect(decisions).toEqual([]);
        await r.press("y");
        expect(decisions).toEqual([]);
        await r.press("2");
        expect(decisions).toEqual([{ outcome: "approve", remember: "all" }]);
    });

    it("numbers removed lines by the old file and added ones by the new", () => {
        const edit: FileDiff = {
            path: "e.ts",
            diff: "--- a/e.ts\n+++ b/e.ts\n@@ -8,3 +8,3 @@\n a\n-b\n+B\n c\n",
            linesAdded: 1,
            linesRemoved: 1,
            isNewFile: false,
        };
        const r = mount(
            <DiffReview
                summary="Editing e.ts"
                diffs={[edit]}
                status="pending"
                standingOptions={EDIT_OPTIONS}
                width={80}
            />
        );
        const frame = r.frame();
        expect(frame).toContain(" 8  8  a");
        expect(frame).toContain(" 9    -b");
        expect(frame).toContain("    9 +B");
        expect(frame).toContain("10 10  c");
    });
});

describe("the plan review", () => {
    it("pages with PgUp/PgDn and jumps with Home/End, like the diff", () => {
        expect(planScrollKey({ pageDown: true }).pages).toBe(1);
        expect(planScrollKey({ pageUp: true }).pages).toBe(-1);
        expect(planScrollKey({ home: true }).scroll).toBe(-Infinity);
        expect(planScrollKey({ end: true }).scroll).toBe(Infinity);
    });

    it("scrolls a long plan a page at a time", async () => {
        const plan = Array.from({ length: 40 }, (_, i) => `- step ${i + 1}`).join("\n");
        const r = mount(
            <PlanReview
                plan={plan}
                status="pending"
                width={60}
                ansi={createAnsi(false)}
                maxLines={8}
                active
            />
        );
        expect(r.frame()).toContain("step 1 ");
        expect(r.frame()).not.toContain("step 9 ");
        await r.press(KEY.pageDown);
        expect(r.frame()).toContain("step 9");
        expect(r.frame()).not.toContain("step 1 ");
        await r.press(KEY.end);
        expect(r.frame()).toContain("step 40");
        await r.press(KEY.home);
        expect(r.frame()).toContain("step 1 ");
    });
});

describe("the command review", () => {
    it("shows the directory the command starts in on its own row, cut at the start when long", () => {
        const deep = `/home/user/${"very-long-folder/".repeat(8)}pkg`;
        const r = mount(<ShellReview command="ls" cwd={deep} status="pending" width={60} />);
        const row = r
            .frame()
            .split("\n")
            .find((l) => l.includes("in "));
        expect(row).toBeDefined();
        expect(row).toContain("pkg");
        expect(row!.length).toBeLessThanOrEqual(60);
    });
});
