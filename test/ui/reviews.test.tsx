import { EventEmitter } from "node:events";
import { stripVTControlCharacters } from "node:util";
import { render, Text } from "ink";
import { act, useEffect, useState } from "react";
import type { ReactElement } from "react";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { editStandingOptions, shellStandingOptions } from "../../src/agent/approval-requirement";
import type { ApprovalDecision, ApprovalRequest } from "../../src/agent/approvals";
import type { McpElicitationAnswer } from "../../src/tools/mcp/client-requests";
import type { FileDiff } from "../../src/tools/types";
import {
    type ApprovalBridge,
    CANCELLED_REASON,
    createApprovalBridge,
    resolvedReviewOf,
    type ResolvedReviewRecord,
} from "../../src/ui/approval-bridge";
import { DELIBERATE_PAUSE_MS, REVIEW_GUARD_MS } from "../../src/ui/input/key-gate";
import type { PendingReview } from "../../src/ui/review-types";
import { CostsDialog, formatTokens, groupCosts } from "../../src/ui/reviews/costs-dialog";
import { DiffReview, renderDiff } from "../../src/ui/reviews/diff-review";
import { BORDER_PULSE_MS, PendingReviewView } from "../../src/ui/reviews/pending-review";
import { PickerReview, windowStart } from "../../src/ui/reviews/picker-review";
import { ShellReview } from "../../src/ui/reviews/shell-review";
import {
    KEYS_WENT_TO_DRAFT,
    MENU_READY_HINT,
    PAUSE_THEN_CHOOSE,
} from "../../src/ui/reviews/review-menu";
import { approvalOptions } from "../../src/ui/reviews/review-options";

class FakeStdout extends EventEmitter {
    columns = 100;
    rows = 40;
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

interface Rendered {
    frame(): string;
    frames(): number;
    press(keys: string): Promise<void>;
    unmount(): void;
}

// Every render, effect and key goes through act(): when act returns, React has drawn the frame
// and re-subscribed the input handlers, so no assertion depends on how fast this machine is.
const actGlobal = globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean };
beforeAll(() => {
    actGlobal.IS_REACT_ACT_ENVIRONMENT = true;
});
afterAll(() => {
    delete actGlobal.IS_REACT_ACT_ENVIRONMENT;
});

const mounted: Rendered[] = [];
afterEach(() => {
    for (const r of mounted.splice(0)) r.unmount();
});

/** One turn of the event loop: Ink holds a lone Esc until then, in case it starts a sequence. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

function mount(node: ReactElement): Rendered {
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
    let unmounted = false;
    const rendered: Rendered = {
        frame: () => stripVTControlCharacters(stdout.frames.at(-1) ?? ""),
        frames: () => stdout.frames.length,
        async press(keys) {
            await act(async () => {
                stdin.send(keys);
                if (keys === "\u001b") await nextTurn();
            });
        },
        unmount() {
            if (unmounted) return;
            unmounted = true;
            act(() => instance?.unmount());
        },
    };
    mounted.push(rendered);
    return rendered;
}

function fileDiff(path: string, body: string[], extra: Partial<FileDiff> = {}): FileDiff {
    const added = body.filter((l) => l.startsWith("+")).length;
    const removed = body.filter((l) => l.startsWith("-")).length;
    return {
        path,
        diff: [`--- a/${path}`, `+++ b/${path}`, ...body].join("\n") + "\n",
        linesAdded: added,
        linesRemoved: removed,
        isNewFile: false,
        ...extra,
    };
}

/** What the approval requirement offers for an ordinary edit. */
const EDIT_OPTIONS = editStandingOptions(false);

const smallDiff = fileDiff("src/app.ts", [
    "@@ -1,3 +1,3 @@",
    " import x from 'y';",
    "-export const retries = 3;",
    "+export const retries = 5;",
    "+export const delay = 10;",
]);

function writeRequest(diffs: FileDiff[], id = "approval-1"): ApprovalRequest {
    return {
        id,
        kind: "write",
        toolName: "edit_replace_exact",
        toolCallId: id,
        input: {},
        summary: diffs.length === 1 ? `Editing ${diffs[0]!.path}` : `Editing ${diffs.length} files`,
        diffs,
        standingOptions: EDIT_OPTIONS,
    };
}

function shellRequest(command: string, id = "approval-s1"): ApprovalRequest {
    return {
        id,
        kind: "shell",
        toolName: "shell_run",
        toolCallId: id,
        input: { command },
        summary: command,
        command,
        standingOptions: shellStandingOptions({ command, rememberKey: command }, null, true),
    };
}

describe("DiffReview", () => {
    it("colours additions, deletions and hunk headers by the theme, numbers old and new lines, without the ---/+++ header", () => {
        const { lines } = renderDiff([smallDiff]);
        expect(lines.map((l) => [l.text, l.color ?? null])).toEqual([
            ["src/app.ts  +2 −1", null],
            ["    @@ -1,3 +1,3 @@", "diffHunk"],
            ["1 1  import x from 'y';", null],
            ["2   -export const retries = 3;", "diffRemove"],
            ["  2 +export const retries = 5;", "diffAdd"],
            ["  3 +export const delay = 10;", "diffAdd"],
        ]);
    });

    it("shows the summary, per-file stats, the pending badge and the keys", () => {
        const r = mount(
            <DiffReview
                summary="Editing src/app.ts"
                diffs={[smallDiff]}
                status="pending"
                standingOptions={EDIT_OPTIONS}
                width={80}
            />
        );
        const frame = r.frame();
        expect(frame).toContain("Editing src/app.ts");
        expect(frame).toContain("src/app.ts  +2 −1");
        expect(frame).toContain("PENDING");
        expect(frame).toContain("+export const delay = 10;");
        expect(frame).toContain("❯ 1. Yes, make this edit");
        expect(frame).toContain(
            "2. Yes, and accept all edits this session (Shift+Tab to switch back)"
        );
        expect(frame).toContain("3. No, and tell North what to do instead");
        expect(frame).not.toContain("+++ b/src/app.ts");
        expect(frame).toMatch(/╭─+╮/);
    });

    it("truncates a diff over 100 lines with an indicator", () => {
        const body = ["@@ -1,0 +1,150 @@", ...Array.from({ length: 150 }, (_, i) => `+line ${i}`)];
        const big = fileDiff("big.ts", body, { isNewFile: true });
        const rendered = renderDiff([big]);
        expect(rendered.lines.length).toBe(101); // file header + 100 body lines
        expect(rendered.hidden).toBe(51);
        const r = mount(
            <DiffReview summary="Creating big.ts" diffs={[big]} status="accepted" width={80} />
        );
        expect(r.frame()).toContain("… 51 more diff lines not shown here");
        expect(r.frame()).toContain(" 99 +line 98");
        expect(r.frame()).not.toContain("+line 99 ");
        expect(r.frame()).toContain("big.ts (new file)  +150 −0");
    });

    it("a pending review of a long diff counts once: rows of the whole diff, no second count", () => {
        const body = ["@@ -1,0 +1,500 @@", ...Array.from({ length: 500 }, (_, i) => `+line ${i}`)];
        const r = mount(
            <DiffReview
                summary="Creating big.ts"
                diffs={[fileDiff("big.ts", body, { isNewFile: true })]}
                status="pending"
                standingOptions={EDIT_OPTIONS}
                width={80}
                height={20}
            />
        );
        expect(r.frame()).toMatch(/rows 1–\d+ of 502 /);
        expect(r.frame()).not.toContain("not shown");
    });

    it("totals several files", () => {
        const other = fileDiff("src/b.ts", ["@@ -1 +1 @@", "-a", "+b"]);
        const r = mount(
            <DiffReview
                summary="Editing 2 files"
                diffs={[smallDiff, other]}
                status="pending"
                standingOptions={EDIT_OPTIONS}
                width={80}
            />
        );
        expect(r.frame()).toContain("+3 −2 in 2 files");
        expect(r.frame()).toContain("src/b.ts  +1 −1");
        expect(r.frame()).toContain("Total +3 −2");
    });

    it("keeps control characters from the file out of the terminal", () => {
        const evil = fileDiff("x.ts", ["@@ -1 +1 @@", "+\u001b[2Jboom\tx"]);
        const { lines } = renderDiff([evil]);
        expect(lines[2]!.text).toBe("1 +\ufffd[2Jboom    x");
    });

    it("truncates long lines to the width instead of wrapping", () => {
        const long = fileDiff("x.ts", ["@@ -1 +1 @@", `+${"y".repeat(300)}`]);
        const r = mount(
            <DiffReview
                summary="Editing x.ts"
                diffs={[long]}
                status="pending"
                standingOptions={EDIT_OPTIONS}
                width={40}
            />
        );
        for (const line of r.frame().split("\n")) expect(line.length).toBeLessThanOrEqual(40);
    });

    it("answers by digit, ↓ and Enter, or Esc with a reason; no letter answers", async () => {
        const cases: Array<[string[], ApprovalDecision]> = [
            [["1"], { outcome: "approve" }],
            [["2"], { outcome: "approve", remember: "all" }],
            [["\u001b[B", "\r"], { outcome: "approve", remember: "all" }],
            [
                ["3", "\r"],
                { outcome: "deny", reason: "the user rejected this edit; nothing was written" },
            ],
            [
                ["\u001b", "use a constant", "\r"],
                {
                    outcome: "deny",
                    reason: "the user rejected this edit; nothing was written; they said what to do instead: use a constant",
                },
            ],
            [
                ["\u001b", "\u001b"],
                { outcome: "deny", reason: "the user rejected this edit; nothing was written" },
            ],
        ];
        for (const [keys, decision] of cases) {
            const decisions: ApprovalDecision[] = [];
            const r = mount(
                <DiffReview
                    summary="Editing src/app.ts"
                    diffs={[smallDiff]}
                    status="pending"
                    standingOptions={EDIT_OPTIONS}
                    width={80}
                    active
                    onDecide={(d) => decisions.push(d)}
                />
            );
            // The old letters (r ran a command, y approved every edit) do nothing any more.
            for (const letter of ["r", "y", "a", "d", "n", "p"]) await r.press(letter);
            expect(decisions).toEqual([]);
            for (const key of keys) await r.press(key);
            expect(decisions).toEqual([decision]);
            r.unmount();
        }
    });

    it("ignores keys when not active or not pending, and shows the status badge", async () => {
        const decisions: ApprovalDecision[] = [];
        const r = mount(
            <DiffReview
                summary="Editing src/app.ts"
                diffs={[smallDiff]}
                status="rejected"
                width={80}
                active
                onDecide={(d) => decisions.push(d)}
            />
        );
        await r.press("a");
        expect(decisions).toEqual([]);
        expect(r.frame()).toContain("✗ REJECTED");
        expect(r.frame()).not.toContain("Yes, make this edit");
    });
});

describe("ShellReview", () => {
    it("shows the command, the cwd and the keys", () => {
        const r = mount(
            <ShellReview
                command="npm test -- --run"
                cwd="/repo/app"
                status="pending"
                width={80}
                standingOptions={shellStandingOptions(
                    { command: "npm test -- --run", rememberKey: "npm test -- --run" },
                    null,
                    true
                )}
            />
        );
        const frame = r.frame();
        expect(frame).toContain("$ npm test -- --run");
        expect(frame).toContain("in /repo/app");
        expect(frame).toContain("❯ 1. Yes, run it once");
        expect(frame).toContain("2. Yes, and don't ask again for `npm test -- --run` in this");
        expect(frame).toContain("~/.north for you)");
        expect(frame).toContain("3. No, and tell North what to do instead");
        // Standing approval of every command is no longer a menu option.
        expect(frame).not.toMatch(/auto|every command/);
    });

    it("wraps a long command instead of hiding its end", () => {
        const command = `echo ${"word ".repeat(30)}END`;
        const r = mount(<ShellReview command={command} status="pending" width={40} />);
        expect(r.frame()).toContain("END");
    });

    it("answers by digit; Tab keeps a standing answer in the project's local settings instead", async () => {
        const expected: Array<[string[], ApprovalDecision]> = [
            [["1"], { outcome: "approve" }],
            [["2"], { outcome: "approve", remember: "exact", scope: "personal" }],
            [["\u001b[B", "\t", "\r"], { outcome: "approve", remember: "exact", scope: "local" }],
            [["3"], { outcome: "approve", remember: "prefix", scope: "personal" }],
            [["4", "\r"], { outcome: "deny", reason: "the user denied this command" }],
        ];
        for (const [keys, decision] of expected) {
            const decisions: ApprovalDecision[] = [];
            const r = mount(
                <ShellReview
                    command="npm test -- --run"
                    standingOptions={shellStandingOptions(
                        { command: "npm test -- --run", rememberKey: "npm test -- --run" },
                        "npm test:*",
                        true
                    )}
                    status="pending"
                    width={200}
                    active
                    onDecide={(d) => decisions.push(d)}
                />
            );
            expect(r.frame()).toContain(
                "3. Yes, and don't ask again for commands starting `npm test`"
            );
            for (const letter of ["q", "r", "a", "y", "d", "p"]) await r.press(letter);
            for (const key of keys.slice(0, -1)) await r.press(key);
            if (keys.includes("\t")) {
                expect(r.frame()).toContain(
                    "2. Yes, and don't ask again for `npm test -- --run` in this project (kept in .north/settings.local.json)"
                );
            }
            await r.press(keys.at(-1)!);
            expect(decisions).toEqual([decision]);
            r.unmount();
        }
    });
});

describe("PickerReview", () => {
    const options = [
        { id: "sonnet", label: "Claude Sonnet", hint: "claude-sonnet-4" },
        { id: "opus", label: "Claude Opus" },
        { id: "gpt", label: "GPT-5" },
    ];

    it("moves with Up/Down and selects with Enter", async () => {
        const chosen: Array<string | null> = [];
        const r = mount(
            <PickerReview
                title="Choose a model"
                options={options}
                status="pending"
                width={60}
                active
                onChoose={(id) => chosen.push(id)}
            />
        );
        expect(r.frame()).toContain("› Claude Sonnet claude-sonnet-4");
        await r.press("\u001b[B");
        await r.press("\u001b[B");
        await r.press("\u001b[B");
        expect(r.frame()).toContain("› GPT-5");
        await r.press("\u001b[A");
        expect(r.frame()).toContain("› Claude Opus");
        await r.press("\r");
        expect(chosen).toEqual(["opus"]);
    });

    it("cancels with Esc", async () => {
        const chosen: Array<string | null> = [];
        const r = mount(
            <PickerReview
                title="Choose"
                options={options}
                status="pending"
                width={60}
                active
                onChoose={(id) => chosen.push(id)}
            />
        );
        await r.press("\u001b");
        expect(chosen).toEqual([null]);
    });

    it("scrolls a long list around the selection", () => {
        expect(windowStart(0, 50, 10)).toBe(0);
        expect(windowStart(20, 50, 10)).toBe(15);
        expect(windowStart(49, 50, 10)).toBe(40);
        expect(windowStart(3, 5, 10)).toBe(0);
    });
});

describe("CostsDialog", () => {
    const row = (provider: string, model: string, inTok: number, outTok: number, usd: number) => ({
        provider,
        model,
        inputTokens: inTok,
        outputTokens: outTok,
        costUsd: usd,
    });
    const session = [
        row("anthropic", "claude-sonnet-4", 42_500, 1200, 0.1455),
        row("openai", "gpt-5", 900, 100, 0.002),
        row("anthropic", "claude-opus-4", 1_200_000, 5000, 18.4),
    ];

    it("groups by provider then model, costliest first", () => {
        const groups = groupCosts(session);
        expect(groups.map((g) => g.provider)).toEqual(["anthropic", "openai"]);
        expect(groups[0]!.rows.map((r) => r.model)).toEqual(["claude-opus-4", "claude-sonnet-4"]);
        expect(groups[0]!.costUsd).toBeCloseTo(18.5455);
        expect(formatTokens(42_500)).toBe("42.5K");
        expect(formatTokens(1_200_000)).toBe("1.2M");
    });

    it("shows both sections with subtotals and closes on Esc or Q", async () => {
        let closed = 0;
        const r = mount(
            <CostsDialog session={session} allTime={[]} width={100} onClose={() => closed++} />
        );
        const frame = r.frame();
        expect(frame).toContain("Session");
        expect(frame).toContain("All time");
        expect(frame).toContain("Anthropic");
        expect(frame).toContain("OpenAI");
        expect(frame).toContain("claude-opus-4");
        expect(frame).toContain("1.2M in · 5K out");
        expect(frame).toContain("$18.40");
        expect(frame).toContain("$18.55");
        expect(frame).toContain("No usage yet.");
        // centred: the box does not start at column 0 of a 100-column screen
        expect(frame.split("\n")[0]).toMatch(/^ +╭/);
        await r.press("x");
        expect(closed).toBe(0);
        await r.press("q");
        await r.press("Q");
        await r.press("\u001b");
        expect(closed).toBe(3);
    });

    it("shows a model without a price as $?, never as free, and says how to add one", () => {
        const house = { ...row("house", "house-model-1", 900, 100, 0), unpricedRequests: 2 };
        const r = mount(<CostsDialog session={[house]} allTime={[]} width={100} />);
        const frame = r.frame();
        expect(frame).toMatch(/house-model-1 .*\$\?/);
        expect(frame).not.toMatch(/house-model-1 .*\$0\.00/);
        expect(frame.replace(/[│\s]+/g, " ")).toContain(
            '$?: no price for house-model-1; add "pricing" to its "models" entry'
        );
    });
});

describe("approval bridge", () => {
    it("queues requests one at a time and resolves each with the user's decision", async () => {
        const bridge = createApprovalBridge();
        const seen: Array<string | null> = [];
        bridge.subscribe((p) => seen.push(p?.id ?? null));
        const controller = new AbortController();
        const first = bridge.approver(writeRequest([smallDiff], "w1"), controller.signal);
        const second = bridge.approver(shellRequest("ls", "s1"), controller.signal);
        expect(bridge.size()).toBe(2);
        expect(bridge.current()?.id).toBe("w1");
        const pending = bridge.current() as Extract<PendingReview, { kind: "write" }>;
        pending.resolve({ outcome: "approve" });
        pending.resolve({ outcome: "deny" }); // a second answer is ignored
        await expect(first).resolves.toEqual({ outcome: "approve" });
        expect(bridge.current()?.kind).toBe("shell");
        (bridge.current() as Extract<PendingReview, { kind: "shell" }>).resolve({
            outcome: "approve",
            remember: "exact",
        });
        await expect(second).resolves.toEqual({ outcome: "approve", remember: "exact" });
        expect(seen).toEqual([null, "w1", "s1", null]);
    });

    it("cancelAll denies every waiting request and cancels pickers", async () => {
        const bridge = createApprovalBridge();
        const signal = new AbortController().signal;
        const a = bridge.approver(writeRequest([smallDiff], "w1"), signal);
        const b = bridge.approver(shellRequest("rm -rf build", "s1"), signal);
        const c = bridge.pick("Choose", [{ id: "x", label: "X" }]);
        const seen: Array<string | null> = [];
        bridge.subscribe((p) => seen.push(p?.id ?? null));
        const resolved: ResolvedReviewRecord[] = [];
        bridge.onResolved((r) => resolved.push(r));
        bridge.cancelAll();
        const cancelled = { outcome: "deny", reason: CANCELLED_REASON };
        await expect(a).resolves.toEqual(cancelled);
        await expect(b).resolves.toEqual(cancelled);
        await expect(c).resolves.toBeNull();
        expect(bridge.current()).toBeNull();
        expect(resolved.map((r) => [r.id, r.status])).toEqual([
            ["w1", "cancelled"],
            ["s1", "cancelled"],
            ["picker-1", "cancelled"],
        ]);
        expect(seen).toEqual(["w1", null]);
    });

    it("the engine's AbortSignal cancels its request, pending or queued", async () => {
        const bridge = createApprovalBridge();
        const run1 = new AbortController();
        const run2 = new AbortController();
        const a = bridge.approver(shellRequest("one", "s1"), run1.signal);
        const b = bridge.approver(shellRequest("two", "s2"), run2.signal);
        run2.abort();
        await expect(b).resolves.toEqual({ outcome: "deny", reason: CANCELLED_REASON });
        expect(bridge.current()?.id).toBe("s1");
        run1.abort();
        await expect(a).resolves.toEqual({ outcome: "deny", reason: CANCELLED_REASON });
        expect(bridge.current()).toBeNull();
        const c = bridge.approver(shellRequest("three", "s3"), run1.signal);
        await expect(c).resolves.toEqual({ outcome: "deny", reason: CANCELLED_REASON });
        expect(bridge.size()).toBe(0);
    });

    it("pick resolves with the chosen id", async () => {
        const bridge = createApprovalBridge();
        const choice = bridge.pick("Model", [
            { id: "a", label: "A" },
            { id: "b", label: "B" },
        ]);
        const pending = bridge.current() as Extract<PendingReview, { kind: "picker" }>;
        expect(pending.title).toBe("Model");
        pending.resolve("b");
        await expect(choice).resolves.toBe("b");
    });

    it("describes resolved reviews in one line", () => {
        const write = writeRequest([smallDiff]);
        expect(resolvedReviewOf(write, { outcome: "approve" })).toMatchObject({
            kind: "write",
            summary: "Editing src/app.ts (+2 −1)",
            status: "accepted",
        });
        expect(resolvedReviewOf(write, { outcome: "approve", remember: "all" }).status).toBe(
            "always"
        );
        expect(resolvedReviewOf(write, { outcome: "deny" }).status).toBe("rejected");
        const shell = shellRequest("ls");
        expect(resolvedReviewOf(shell, { outcome: "approve" }).status).toBe("ran");
        expect(resolvedReviewOf(shell, { outcome: "approve", remember: "exact" }).status).toBe(
            "always"
        );
        expect(resolvedReviewOf(shell, { outcome: "approve", remember: "all" }).status).toBe(
            "auto"
        );
        expect(resolvedReviewOf(shell, { outcome: "deny" }).status).toBe("denied");
        // A refusal with the user's reason shows it; one without shows none.
        const refused = approvalOptions(shell).at(-1)!;
        expect(resolvedReviewOf(shell, refused.answer("personal", "use pnpm"))).toMatchObject({
            summary: 'ls — "use pnpm"',
            status: "denied",
        });
        expect(resolvedReviewOf(shell, refused.answer("personal")).summary).toBe("ls");
    });
});

/** Renders the bridge's pending review as the App does. */
function Host({ bridge }: { bridge: ApprovalBridge }): ReactElement {
    const [pending, setPending] = useState<PendingReview | null>(null);
    useEffect(() => bridge.subscribe(setPending), [bridge]);
    return pending ? (
        <PendingReviewView review={pending} width={80} animate={false} />
    ) : (
        <Text>idle</Text>
    );
}

describe("PendingReviewView", () => {
    // The key gate reads performance.now() and sets timers: a frozen clock makes "right away"
    // and "after the guard" exact, however slowly this machine runs the test.
    beforeEach(() => {
        vi.useFakeTimers({ toFake: ["performance", "setTimeout", "clearTimeout"] });
    });
    afterEach(() => {
        vi.useRealTimers();
    });
    const pass = (ms: number) => act(() => void vi.advanceTimersByTime(ms));

    it("renders the bridge's pending review and its keys resolve the engine's promise", async () => {
        const bridge = createApprovalBridge();
        const signal = new AbortController().signal;
        const edit = bridge.approver(writeRequest([smallDiff], "w1"), signal);
        const command = bridge.approver(shellRequest("npm test", "s1"), signal);
        const r = mount(<Host bridge={bridge} />);
        expect(r.frame()).toContain("Editing src/app.ts");
        expect(r.frame()).not.toContain(MENU_READY_HINT);
        pass(REVIEW_GUARD_MS);
        expect(r.frame()).toContain(MENU_READY_HINT);
        await r.press("2");
        await expect(edit).resolves.toEqual({ outcome: "approve", remember: "all" });
        expect(r.frame()).toContain("$ npm test");
        // A second 2 right away was meant for the edit: it must not approve the command.
        await r.press("2");
        expect(bridge.current()?.id).toBe("s1");
        pass(REVIEW_GUARD_MS);
        await r.press("\u001b");
        expect(r.frame()).toContain("what instead?");
        await r.press("\r");
        await expect(command).resolves.toEqual({
            outcome: "deny",
            reason: "the user denied this command",
        });
        expect(r.frame()).toContain("idle");
    });

    it("gives keys typed as a review appears to the draft and says so, then takes a deliberate one", async () => {
        const bridge = createApprovalBridge();
        const r = mount(<Host bridge={bridge} />);
        let first: Promise<ApprovalDecision> | undefined;
        act(() => {
            first = bridge.approver(writeRequest([smallDiff], "w1"), new AbortController().signal);
        });
        expect(r.frame()).toContain("Editing src/app.ts");
        await r.press("1");
        await r.press("\r");
        expect(bridge.current()?.id).toBe("w1");
        expect(r.frame()).toContain(PAUSE_THEN_CHOOSE);
        pass(DELIBERATE_PAUSE_MS);
        expect(r.frame()).toContain(KEYS_WENT_TO_DRAFT);
        expect(r.frame()).not.toContain(PAUSE_THEN_CHOOSE);
        await r.press("1");
        await expect(first).resolves.toEqual({ outcome: "approve" });
        expect(r.frame()).toContain("idle");
    });

    it("guards an MCP server's form too: typed keys go to the draft, a paste is only a field's text", async () => {
        const bridge = createApprovalBridge();
        const r = mount(<Host bridge={bridge} />);
        let answer: Promise<McpElicitationAnswer> | undefined;
        act(() => {
            answer = bridge.askElicitation(
                {
                    server: "deploy",
                    message: "Name the deploy",
                    requestedSchema: {
                        type: "object",
                        properties: { name: { type: "string", title: "Name" } },
                        required: ["name"],
                    },
                },
                new AbortController().signal
            );
        });
        let settled = false;
        void answer?.then(() => (settled = true));
        expect(r.frame()).toContain("Name the deploy");
        await r.press("x");
        await r.press("\r");
        expect(r.frame()).toContain(PAUSE_THEN_CHOOSE);
        expect(r.frame()).toContain("Name *: ");
        expect(r.frame()).not.toContain("Name *: x");
        pass(DELIBERATE_PAUSE_MS);
        // A paste fills the field; its Enter does not send the form.
        await r.press("web\r");
        expect(r.frame()).toContain("Name *: web");
        await Promise.resolve();
        expect(settled).toBe(false);
        await r.press("\r");
        await expect(answer).resolves.toEqual({ action: "accept", content: { name: "web" } });
    });

    it("renders a picker", async () => {
        const bridge = createApprovalBridge();
        const choice = bridge.pick("Choose a model", [
            { id: "a", label: "Alpha" },
            { id: "b", label: "Beta" },
        ]);
        const r = mount(
            <PendingReviewView review={bridge.current()!} width={60} animate={false} />
        );
        expect(r.frame()).toContain("Choose a model");
        await r.press("\u001b[B");
        expect(r.frame()).toContain("› Beta");
        await r.press("\r");
        await expect(choice).resolves.toBe("b");
    });

    it("fits the diff to the height it is given", () => {
        const body = ["@@ -1,0 +1,60 @@", ...Array.from({ length: 60 }, (_, i) => `+l${i}`)];
        const bridge = createApprovalBridge();
        void bridge.approver(writeRequest([fileDiff("a.ts", body)]), new AbortController().signal);
        const r = mount(
            <PendingReviewView review={bridge.current()!} width={60} animate={false} height={20} />
        );
        expect(r.frame().split("\n").length).toBeLessThanOrEqual(20);
        expect(r.frame()).toContain("rows 1–");
        expect(r.frame()).toContain("of 62");
        bridge.cancelAll();
    });

    it("pulses the border only while animating", () => {
        vi.useFakeTimers({ toFake: ["performance", "setInterval", "clearInterval"] });
        const bridge = createApprovalBridge();
        void bridge.approver(shellRequest("ls"), new AbortController().signal);
        const still = mount(
            <PendingReviewView review={bridge.current()!} width={60} animate={false} />
        );
        const pulsing = mount(<PendingReviewView review={bridge.current()!} width={60} animate />);
        const [stillBefore, pulsingBefore] = [still.frames(), pulsing.frames()];
        for (const step of [1, 2]) {
            act(() => {
                vi.advanceTimersByTime(BORDER_PULSE_MS);
            });
            expect(pulsing.frames() - pulsingBefore).toBe(step);
        }
        expect(still.frames()).toBe(stillBefore);
        bridge.cancelAll();
    });
});
