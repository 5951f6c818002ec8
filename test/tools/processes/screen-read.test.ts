/**
 * A tty's screen as the model reads it: never cut by the digest (it is
 * bounded), filler rows (vi's `~`, blank rows) folded into one line that
 * says how many, the cursor's row kept and its place given.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createProcessReadTool } from "../../../src/tools/process-read";
import { createProcessSendTool } from "../../../src/tools/process-send";
import { foldScreenRows } from "../../../src/tools/processes/screen-rows";
import { createShellRunTool } from "../../../src/tools/shell-run";
import type { ToolContext } from "../../../src/tools/types";
import { disposeKits, makeKit } from "./kit";

afterEach(disposeKits);

function context(root: string): ToolContext {
    return { repoRoot: root, signal: new AbortController().signal, toolCallId: "call-1" };
}

const noCache = (): string => "out-1";

describe("a tty screen for the model", () => {
    it("vi's screen reaches the model whole: status line kept, the `~` column one line", async () => {
        const { shell, repo } = await makeKit();
        await repo.write("notes.txt", "alpha\nbeta\ngamma\n");
        const ctx = context(repo.root);
        const run = createShellRunTool(shell);
        const started = await run.execute({ command: "vi -u NONE -N notes.txt", tty: true }, ctx);
        expect(started.ok).toBe(true);
        const read = createProcessReadTool(shell);
        // vi draws in steps (status line first): wait for the whole screen. 40 rows: three
        // of text, 36 of `~` folded into one line, the status line.
        let text = "";
        await expect
            .poll(
                async () => {
                    const result = await read.execute({ id: "p1", mode: "tail" }, ctx);
                    return (text = result.ok ? result.data.text : "");
                },
                { timeout: 20_000, interval: 25 }
            )
            .toMatch(/^alpha\nbeta\ngamma\n~ \[36 identical rows\]\n"notes\.txt" 3L[^\n]*$/);
        const tail = await read.execute({ id: "p1", mode: "tail" }, ctx);
        if (!tail.ok) throw new Error(tail.error.message);
        expect(tail.data.text).toBe(text);
        expect(tail.data.cursor).toEqual({ row: 1, col: 1 });
        // The digest leaves a screen alone: nothing is omitted, no expand_output needed.
        expect(read.digest!(tail.data, { id: "p1" }, noCache)).toBe(tail.data);
        const send = createProcessSendTool(shell);
        const sent = await send.execute({ id: "p1", text: "G" }, ctx);
        if (!sent.ok) throw new Error(sent.error.message);
        expect(sent.data).toMatchObject({ screen: true });
        // G moves vi's cursor to the last line of the file.
        await expect
            .poll(
                async () => {
                    const result = await read.execute({ id: "p1", mode: "tail" }, ctx);
                    return result.ok ? result.data.cursor : undefined;
                },
                { timeout: 20_000, interval: 25 }
            )
            .toEqual({ row: 3, col: 1 });
        expect(send.digest!(sent.data, { id: "p1" }, noCache)).toBe(sent.data);
        expect(started.ok && run.digest!(started.data, { command: "vi" }, noCache)).toBe(
            started.ok && started.data
        );
    });

    it("folds runs of identical filler rows, never the cursor's row", () => {
        const rows = ["$ ls", "", "", "", "", "", "~", "~", "~", "status"];
        expect(foldScreenRows(rows)).toEqual(["$ ls", "[5 empty rows]", "~", "~", "~", "status"]);
        // The cursor on the third blank row: the rows before it are too few to fold.
        expect(foldScreenRows(rows, 3)).toEqual([
            "$ ls",
            "",
            "",
            "",
            "",
            "",
            "~",
            "~",
            "~",
            "status",
        ]);
        const long = ["top", ...Array<string>(10).fill(""), "bottom"];
        expect(foldScreenRows(long, 6)).toEqual([
            "top",
            "[5 empty rows]",
            "",
            "[4 empty rows]",
            "bottom",
        ]);
        // Text rows are never folded, however alike.
        expect(foldScreenRows(["x", "x", "x", "x", "x"])).toEqual(["x", "x", "x", "x", "x"]);
    });
});
