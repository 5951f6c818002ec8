/**
 * Small things that read wrong (issue 36, part 9), each through the real
 * terminal: the model shown after /model, one count in a long diff review,
 * a command waiting for its review runs no clock, the approval reads with its
 * command, an accepted edit is one entry, and "$?" is explained.
 * Needs `node scripts/build.mjs` first.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
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

/** A config folder whose config.json holds `config`; removed after the test. */
function configFolder(config: unknown): string {
    const folder = mkdtempSync(join(tmpdir(), "north-pty-config-"));
    folders.push(folder);
    writeFileSync(join(folder, "config.json"), JSON.stringify(config));
    return folder;
}

/** A file of `lines` lines of `width` characters, marked with `tag`. */
const wideFile = (tag: string, lines: number, width: number): string =>
    Array.from({ length: lines }, (_, i) => `${tag} ${i}`.padEnd(width - 1, "x")).join("\n");

describe("small things that read wrong", () => {
    it(
        "after /model no old model id is left on screen: the header names none, the status line follows",
        async () => {
            session = await startNorthSession({ rows: 30, cols: 120 });
            const { north, submit } = session;
            expect(north.screenText()).toMatch(/North · \/.*north-pty-repo-/);
            expect(north.screenText()).not.toContain("claude-opus-5-5");
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
            const config = configFolder({
                models: [{ alias: "house", id: "house-model-1", provider: "anthropic" }],
            });
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
            // /costs says it too: the model's cost is $?, not $0.00.
            await submit("/costs");
            await north.waitForText("$?: no price for house-model-1");
            expect(north.screenText()).toMatch(/house-model-1 .*\$\?/);
        },
        TIMEOUT
    );

    it(
        "at ~95 % of the context with a short conversation of big tool results: one warning saying what fills it, no summary, not repeated",
        async () => {
            // A 20,000-token window; the system prompt and tools take about a quarter, four
            // reads of 38 lines × 280 characters the rest, up to ~95 % (92 % starts the summary).
            const config = configFolder({
                selectedModel: "small",
                models: [
                    {
                        alias: "small",
                        id: "claude-opus-5-5-small",
                        display: "Opus 5.5 small",
                        provider: "anthropic",
                        contextLimitTokens: 20_000,
                        pricing: { input: 1, output: 1 },
                    },
                ],
            });
            const names = ["a", "b", "c", "d"];
            session = await startNorthSession({
                rows: 40,
                cols: 120,
                files: Object.fromEntries(names.map((n) => [`${n}.txt`, wideFile(n, 38, 280)])),
                env: { NORTH_CONFIG_DIR: config },
            });
            const { north, server, submit } = session;
            server.enqueue(
                {
                    toolCalls: names.map((n) => ({
                        name: "read_file",
                        input: { path: `${n}.txt` },
                    })),
                },
                { text: "Read all four." },
                { text: "Second answer." }
            );
            await submit("read them");
            await north.waitForText("Read all four.");
            const joined = () =>
                rows(north)
                    .map((row) => row.trim())
                    .join(" ");
            expect(joined()).toMatch(/context 9\d% full, mostly with the latest messages/);
            expect(joined()).toContain("/new starts a fresh conversation");
            await submit("next");
            await north.waitForText("Second answer.");
            expect(count(joined(), "% full, mostly")).toBe(1);
            expect(joined()).not.toContain("nothing to summarise");
            expect(joined()).not.toContain("summarised");
            // Only the three scripted answers were asked for: no summary request.
            expect(server.requests).toHaveLength(3);
        },
        TIMEOUT
    );
});
