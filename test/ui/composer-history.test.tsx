import { EventEmitter } from "node:events";
import { stripVTControlCharacters } from "node:util";
import { render } from "ink";
import { afterEach, describe, expect, it } from "vitest";
import { Composer } from "../../src/ui/composer/composer";
import { layoutComposer } from "../../src/ui/composer/composer-layout";
import {
    type ComposerResult,
    type ComposerState,
    type PromptHistory,
    composerKey,
    createComposerState,
    withHistory,
} from "../../src/ui/composer/composer-state";
import { editorOf } from "../../src/ui/composer/editor";
import { parseInput } from "../../src/ui/input/keys";

const UP = "\x1b[A";
const DOWN = "\x1b[B";
const CTRL_R = "\x12";
const CTRL_G = "\x07";
const ESC = "\x1b";

const HISTORY = [
    "explain the retry logic",
    "fix the failing test in parser.ts",
    "Where is RETRY configured?",
    "run npm test\nand summarise the failures",
    "fix the failing test in parser.ts",
    "thanks",
];

/** Feeds raw terminal input; returns the final state and every effect. */
function type(inputs: string[], from: ComposerState) {
    let state = from;
    const effects: NonNullable<ComposerResult["effect"]>[] = [];
    for (const input of inputs) {
        for (const event of parseInput(input)) {
            const result = composerKey(state, event, () => []);
            state = result.state;
            if (result.effect) effects.push(result.effect);
        }
    }
    return { state, effects };
}

const withDraft = (draft: string) => type([draft], createComposerState(HISTORY)).state;

describe("Ctrl+R reverse search", () => {
    it("narrows to the newest prompt containing the query, case-insensitively", () => {
        const { state } = type([CTRL_R, "ret"], withDraft("my draft"));
        expect(state.search).toMatchObject({ query: "ret", match: 2, failed: false });
        // Until accepted, the composer still holds the draft.
        expect(state.editor.text).toBe("my draft");
        const longer = type(["ry l"], state).state;
        expect(longer.search).toMatchObject({ query: "retry l", match: 0 });
    });

    it("goes to the next older match with Ctrl+R again, skipping repeats of the one shown", () => {
        const first = type([CTRL_R, "fix"], withDraft("")).state;
        expect(first.search?.match).toBe(4);
        // Entry 1 is the same text as entry 4: nothing new to show, so the search fails there.
        const again = type([CTRL_R], first).state;
        expect(again.search).toMatchObject({ match: 4, failed: true });
        const t = type([CTRL_R, "t"], withDraft("")).state;
        expect(t.search?.match).toBe(5);
        expect(type([CTRL_R], t).state.search?.match).toBe(4);
        expect(type([CTRL_R, CTRL_R], t).state.search?.match).toBe(3);
    });

    it("with no match says so and keeps the last match shown", () => {
        const found = type([CTRL_R, "retry"], withDraft("")).state;
        const failed = type(["zz"], found).state;
        expect(failed.search).toMatchObject({ query: "retryzz", match: 2, failed: true });
        // Backspace searches again from the newest prompt.
        const back = type(["\x7f", "\x7f"], failed).state;
        expect(back.search).toMatchObject({ query: "retry", match: 2, failed: false });
        const none = type([CTRL_R, "nothing like this"], withDraft("keep me")).state;
        expect(none.search).toMatchObject({ match: null, failed: true });
        // Accepting when nothing matched leaves the draft as it was.
        const accepted = type(["\r"], none);
        expect(accepted.state.search).toBeNull();
        expect(accepted.state.editor.text).toBe("keep me");
        expect(accepted.effects).toEqual([]);
    });

    it("treats the query literally", () => {
        const state = createComposerState(["a.b", "axb"]);
        expect(type([CTRL_R, "a.b"], state).state.search?.match).toBe(0);
        expect(type([CTRL_R, "("], state).state.search).toMatchObject({ match: null });
    });

    it("Enter, Right and End accept the match for editing without sending it", () => {
        for (const key of ["\r", "\x1b[C", "\x1b[F"]) {
            const { state, effects } = type([CTRL_R, "npm", key], withDraft("draft"));
            expect(effects).toEqual([]);
            expect(state.search).toBeNull();
            expect(state.editor).toEqual(editorOf("run npm test\nand summarise the failures"));
        }
        const sent = type([CTRL_R, "npm", "\r", " now", "\r"], withDraft(""));
        expect(sent.effects).toEqual([
            {
                type: "submit",
                text: "run npm test\nand summarise the failures now",
                attachments: [],
            },
        ]);
    });

    it("any other key accepts the match and then does what it always does", () => {
        const left = type([CTRL_R, "thanks", "\x1b[D", "!"], withDraft("")).state;
        expect(left.editor.text).toBe("thank!s");
        // History walking goes on from the match: Up older, Down back to the draft.
        const up = type([CTRL_R, "retry", UP], withDraft("draft")).state;
        expect(up.editor.text).toBe("fix the failing test in parser.ts");
        const down = type([DOWN, DOWN, DOWN, DOWN, DOWN], up).state;
        expect(down.editor.text).toBe("draft");
    });

    it("Esc and Ctrl+G cancel back to the draft, cursor included", () => {
        const draft = type(["half typed", "\x1b[D", "\x1b[D"], createComposerState(HISTORY)).state;
        for (const cancel of [ESC, CTRL_G]) {
            const { state, effects } = type([CTRL_R, "retry", cancel], draft);
            expect(effects).toEqual([]);
            expect(state.search).toBeNull();
            expect(state.editor).toEqual(draft.editor);
        }
    });

    it("without a query, Ctrl+R steps through every prompt, newest first", () => {
        const open = type([CTRL_R], withDraft("")).state;
        expect(open.search).toMatchObject({ query: "", match: null, failed: false });
        expect(type([CTRL_R], open).state.search?.match).toBe(5);
        expect(type([CTRL_R, CTRL_R, CTRL_R], open).state.search?.match).toBe(3);
    });

    it("takes the store's prompts only when the user is not walking or searching them", () => {
        const base = createComposerState(["old"]);
        const fresh = ["old", "new"];
        expect(withHistory(base, fresh).history).toBe(fresh);
        const browsing = type([UP], base).state;
        expect(withHistory(browsing, fresh)).toBe(browsing);
        const searching = type([CTRL_R], base).state;
        expect(withHistory(searching, fresh)).toBe(searching);
    });
});

describe("composer layout", () => {
    it("highlights the match and keeps it in view in a tall prompt", () => {
        const text = Array.from({ length: 10 }, (_, i) => `line ${i}`).join("\n");
        const start = text.indexOf("line 7");
        const { lines } = layoutComposer(editorOf(text), 40, 3, false, {
            start,
            end: start + 6,
        });
        expect(lines).toHaveLength(3);
        expect(lines.map((l) => stripVTControlCharacters(l))).toContain("line 7");
        expect(lines.join("\n")).toContain("\x1b[7ml");
    });

    it("shows control characters as ^X instead of sending them to the terminal", () => {
        const { lines } = layoutComposer(editorOf("a\x1b[2Jb"), 40, 3, false);
        expect(lines).toEqual(["a^[[2Jb"]);
    });
});

class FakeStdout extends EventEmitter {
    columns = 80;
    rows = 24;
    isTTY = true;
    frames: string[] = [];
    write(data: string): boolean {
        this.frames.push(data);
        this.emit("frame");
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

const unmounts: Array<() => void> = [];
afterEach(() => {
    for (const unmount of unmounts.splice(0)) unmount();
});

function memoryHistory(initial: string[]): PromptHistory & { added: string[] } {
    let entries: readonly string[] = initial;
    const added: string[] = [];
    return {
        added,
        entries: () => entries,
        add(text) {
            added.push(text);
            entries = [...entries, text];
        },
    };
}

function mountComposer(history: PromptHistory, onSubmit: (text: string) => boolean) {
    const stdout = new FakeStdout();
    const stdin = new FakeStdin();
    const instance = render(
        <Composer
            width={70}
            maxLines={4}
            active
            busy={false}
            reviewing={false}
            mode="agent"
            onSubmit={(text) => onSubmit(text)}
            onToggleMode={() => {}}
            suggest={() => []}
            history={history}
        />,
        {
            stdout: stdout as unknown as NodeJS.WriteStream,
            stderr: new FakeStdout() as unknown as NodeJS.WriteStream,
            stdin: stdin as unknown as NodeJS.ReadStream,
            debug: true,
            exitOnCtrlC: false,
            patchConsole: false,
        }
    );
    unmounts.push(() => instance.unmount());
    const frame = (): string => stripVTControlCharacters(stdout.frames.at(-1) ?? "");
    return {
        frame,
        press: (keys: string) => stdin.send(keys),
        /** Resolves once a frame satisfies `predicate` (rejects with the frame after 5 s). */
        until: (predicate: (frame: string) => boolean) =>
            new Promise<void>((resolve, reject) => {
                const check = (): void => {
                    if (!predicate(frame())) return;
                    clearTimeout(timer);
                    stdout.off("frame", check);
                    resolve();
                };
                const timer = setTimeout(() => {
                    stdout.off("frame", check);
                    reject(new Error(`frame never matched:\n${frame()}`));
                }, 5000);
                stdout.on("frame", check);
                check();
            }),
    };
}

describe("the composer with a saved history", () => {
    it("offers the saved prompts with Up and Ctrl+R, and saves what is sent", async () => {
        const history = memoryHistory(["first prompt", "second prompt"]);
        const sent: string[] = [];
        const c = mountComposer(history, (text) => {
            sent.push(text);
            return true;
        });
        await c.until((f) => f.includes("Enter to send"));
        c.press(UP);
        await c.until((f) => f.includes("❯ second prompt"));
        c.press(DOWN);
        await c.until((f) => f.includes("Enter to send"));
        c.press(CTRL_R);
        c.press("fir");
        await c.until((f) => f.includes("(reverse-i-search)`fir'") && f.includes("first prompt"));
        expect(c.frame()).toContain("Ctrl+R older · Enter edit · Esc cancel");
        c.press("\r");
        await c.until((f) => !f.includes("reverse-i-search"));
        c.press(" again");
        await c.until((f) => f.includes("first prompt again"));
        c.press("\r");
        await c.until((f) => f.includes("Enter to send"));
        expect(sent).toEqual(["first prompt again"]);
        expect(history.added).toEqual(["first prompt again"]);
        c.press(UP);
        await c.until((f) => f.includes("❯ first prompt again"));
    });

    it("keeps a prompt that was not taken in the composer, and out of the history", async () => {
        const history = memoryHistory(["older"]);
        const c = mountComposer(history, () => false);
        await c.until((f) => f.includes("Enter to send"));
        c.press("while busy");
        await c.until((f) => f.includes("while busy"));
        c.press("\r");
        c.press("!");
        await c.until((f) => f.includes("while busy!"));
        expect(history.added).toEqual([]);
    });

    it("shows a failed search and a multi-line match", async () => {
        const history = memoryHistory(["run npm test\nand summarise the failures", "other"]);
        const c = mountComposer(history, () => true);
        await c.until((f) => f.includes("Enter to send"));
        c.press(CTRL_R);
        c.press("summ");
        await c.until((f) => f.includes("summarise the failures"));
        expect(c.frame()).toContain("❯ run npm test");
        c.press("x");
        await c.until((f) => f.includes("(failed reverse-i-search)`summx'"));
        expect(c.frame()).toContain("summarise the failures");
    });
});
