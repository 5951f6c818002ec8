/**
 * Small things that read wrong (issue 36, part 9), each through the real
 * terminal: the model shown after /model, one count in a long diff review,
 * a command waiting for its review runs no clock, the approval reads with its
 * command, an accepted edit is one entry, and "$?" is explained.
 * Needs `node scripts/build.mjs` first.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
    answerReview,
    type NorthPtySession,
    type PtyNorth,
    REVIEW_READY,
    startNorthSession,
} from "../../kit/pty";

const TIMEOUT = 60_000;

let session: NorthPtySession | undefined;
const folders: string[] = [];
afterEach(async () => {
    await session?.dispose();
    session = undefined;
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

const rows = (north: PtyNorth): string[] => north.screenText().split("\n");

/** The status line (the last row with text). */
const statusLine = (north: PtyNorth): string =>
    rows(north).findLast((row) => row.trim() !== "") ?? "";

const count = (text: string, part: string): number => text.split(part).length - 1;

describe("small things that read wrong", () => {
    it(
        "after /model no old model id is left on screen: the header names none, the status line follows",
        async () => {
            session = await startNorthSession({ rows: 30, cols: 120 });
            const { north, submit } = session;
            expect(north.screenText()).toMatch(/North · \/.*north-pty-repo-/);
            expect(north.screenText()).not.toContain("claude-sonnet-4-20250514");
            await submit("/model haiku-4-5");
            await north.waitFor(
                () => statusLine(north).includes("Claude Haiku 4.5"),
                15_000,
                "the status line to name the new model"
            );
            expect(north.screenText()).not.toMatch(/sonnet/i);
        },
        TIMEOUT
    );

    it(
        "a 500-line diff review gives one count, in rows the keys scroll through",
        async () => {
            session = await startNorthSession({ rows: 30, cols: 100 });
            const { north, server, submit } = session;
            const content = `${Array.from({ length: 500 }, (_, i) => `line ${i + 1}`).join("\n")}\n`;
            server.enqueue(
                { toolCalls: [{ name: "edit_create_file", input: { path: "big.txt", content } }] },
                { text: "Not written." }
            );
            await submit("create big.txt");
            await north.waitForText(REVIEW_READY);
            expect(north.screenText()).toMatch(/rows 1–\d+ of 502 /);
            expect(north.screenText()).not.toContain("more diff line");
            north.type("\x1b[F"); // End
            await north.waitForText(/rows \d+–502 of 502 /);
            expect(north.screenText()).toContain("500 +line 500");
        },
        TIMEOUT
    );

    it(
        "a command waiting for its review says so, without a clock; once approved, the approval reads on its line above the output",
        async () => {
            session = await startNorthSession({ rows: 30, cols: 100 });
            const { north, server, submit } = session;
            server.enqueue(
                { toolCalls: [{ name: "shell_run", input: { command: "echo out-$((6*7))" } }] },
                { text: "It printed." }
            );
            await submit("run it");
            await north.waitForText(REVIEW_READY);
            const waiting = rows(north).find((row) => row.includes("echo out-$((6*7))"));
            expect(waiting).toMatch(/echo out-\$\(\(6\*7\)\) · waiting for your review\s*$/);
            expect(waiting).toContain("⚡");
            await answerReview(north, { option: 1 });
            await north.waitForText("It printed.");
            const shown = rows(north);
            const command = shown.findIndex((row) => row.includes("echo out-$((6*7)) · approved"));
            const output = shown.findIndex((row) => row.trim() === "out-42");
            expect(command).toBeGreaterThan(-1);
            expect(output).toBeGreaterThan(command);
            // The decision is not repeated after the output.
            expect(north.screenText()).not.toContain("Approved: echo");
        },
        TIMEOUT
    );

    it(
        "an accepted edit is one entry: its ✓ Accepted line with its diff, no ⚡ line beside it",
        async () => {
            session = await startNorthSession({ rows: 30, cols: 100 });
            const { north, server, submit } = session;
            server.enqueue(
                {
                    toolCalls: [
                        { name: "edit_create_file", input: { path: "a.ts", content: "x\n" } },
                    ],
                },
                { text: "Created." }
            );
            await submit("create a.ts");
            await north.waitForText("Yes, make this edit");
            await answerReview(north, { option: 1 });
            await north.waitForText("Created.");
            const screen = north.screenText();
            expect(screen).toMatch(/✓ +Accepted: Creating a\.ts \(\+1 −0\)/);
            expect(count(screen, "Creating a.ts")).toBe(1);
            expect(screen).not.toContain("⚡");
        },
        TIMEOUT
    );

    it(
        'a model without a price: the status line\'s "$?" is explained once, with how to add a price',
        async () => {
            const config = mkdtempSync(join(tmpdir(), "north-pty-config-"));
            folders.push(config);
            mkdirSync(config, { recursive: true });
            writeFileSync(
                join(config, "config.json"),
                JSON.stringify({
                    models: [{ alias: "house", id: "house-model-1", provider: "anthropic" }],
                })
            );
            session = await startNorthSession({
                rows: 30,
                cols: 140,
                env: { NORTH_CONFIG_DIR: config },
            });
            const { north, server, submit } = session;
            await submit("/model house");
            await north.waitFor(
                () => statusLine(north).includes("house-model-1"),
                15_000,
                "the status line to name the custom model"
            );
            server.enqueue({ text: "First answer." }, { text: "Second answer." });
            await submit("hello");
            await north.waitForText("First answer.");
            await north.waitForText("house-model-1 has no price");
            expect(statusLine(north)).toContain("$?");
            const joined = rows(north)
                .map((row) => row.trim())
                .join(" ");
            expect(joined).toContain('give the model "pricing" (USD per 1M tokens');
            await submit("again");
            await north.waitForText("Second answer.");
            expect(count(north.screenText(), "has no price")).toBe(1);
        },
        TIMEOUT
    );
});
