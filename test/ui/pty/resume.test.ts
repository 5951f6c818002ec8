/**
 * A resumed conversation in the chat shows what the original showed: the
 * edit's stats and its accepted review, a command's output, a cancelled
 * partial answer, and the context figure; `/resume` does the same inside a
 * running chat. Needs `npm run build` first.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { FakeLlmServer } from "../../kit/fake-llm-server";
import { type PacedLlmServer, startPacedLlmServer } from "../../kit/paced-llm-server";
import {
    answerReview,
    EMPTY_COMPOSER,
    isAppReady,
    keysRead,
    type NorthPtySession,
    PICKER_READY,
    type PtyNorth,
    spawnNorthPty,
    startNorthSession,
} from "../../kit/pty";

const TIMEOUT = 90_000;
const CTRL_C = "\x03";

let session: NorthPtySession | undefined;
let paced: PacedLlmServer | undefined;
const extra: PtyNorth[] = [];
afterEach(async () => {
    for (const north of extra.splice(0)) north.kill();
    await session?.dispose();
    session = undefined;
    await paced?.close();
    paced = undefined;
});

/** The status line's context figure ("42.5k (21%)"). */
function contextFigure(north: PtyNorth): string {
    const rows = north.screenText().split("\n");
    const status = rows.findLast((row) => row.trim() !== "") ?? "";
    return /● ([^ ]+ \(\d+%\))/.exec(status)?.[1] ?? `(no figure in: ${status})`;
}

/** The status line's cost of this conversation (the first of "$a / $b"). */
function sessionCost(north: PtyNorth): string {
    const rows = north.screenText().split("\n");
    const status = rows.findLast((row) => row.trim() !== "") ?? "";
    return /(\$\d+\.\d+) \//.exec(status)?.[1] ?? `(no cost in: ${status})`;
}

const SHOWN = [
    "bump retries to 5",
    "Accepted: Editing app.ts (+1 −1)",
    "Bumped the retries.",
    "echo fidelity-output",
    "fidelity-output",
    "exit 0",
    "Ran it.",
    "tell me a long story",
    "Once upon a time",
    "[Cancelled]",
];

/**
 * Waits until the screen shows every one of `texts` with the status line's
 * figure and cost at `figure` and `cost` (a resumed transcript draws its
 * entries first, then the tools' titles and the status line's totals).
 */
async function showsAsBefore(
    north: PtyNorth,
    texts: string[],
    figure: string,
    cost: string
): Promise<void> {
    await north
        .waitFor(
            () => {
                const screen = north.screenText();
                return (
                    texts.every((text) => screen.includes(text)) &&
                    contextFigure(north) === figure &&
                    sessionCost(north) === cost
                );
            },
            15_000,
            "the resumed transcript as it was"
        )
        // On time-out the assertions below name what is missing.
        .catch(() => undefined);
}

async function reopen(env: NodeJS.ProcessEnv, repo: string, args: string[]): Promise<PtyNorth> {
    const north = spawnNorthPty({ args: ["--path", repo, ...args], env, cwd: repo });
    extra.push(north);
    await north.waitFor(() => isAppReady(north), 20_000, "the status line");
    await keysRead(north);
    return north;
}

describe("resuming in the chat", () => {
    it(
        "--continue and /resume show tool results, reviews, a cancelled answer and the context as they were",
        async () => {
            // Paced, so the third answer can stop part way and stay open until cancelled.
            paced = await startPacedLlmServer();
            const server = paced;
            session = await startNorthSession({
                files: { "app.ts": "export const retries = 3;\n" },
                rows: 60,
                cols: 120,
                server: paced as unknown as FakeLlmServer,
            });
            const { north, submit, env, repo } = session;
            server.enqueue(
                {
                    toolCalls: [
                        {
                            name: "edit_replace_exact",
                            input: {
                                path: "app.ts",
                                old_text: "retries = 3",
                                new_text: "retries = 5",
                            },
                        },
                    ],
                },
                { text: "Bumped the retries." }
            );
            await submit("bump retries to 5");
            await north.waitForText("Yes, make this edit");
            await answerReview(north, { option: 1 });
            await north.waitForText("Bumped the retries.");
            // Live titles: the tools' display data loads behind the first frame.
            await north.waitForText("Accepted: Editing app.ts (+1 −1)");

            server.enqueue(
                { toolCalls: [{ name: "shell_run", input: { command: "echo fidelity-output" } }] },
                { text: "Ran it.", usage: { input: 42_000, output: 500 } }
            );
            await submit("run the echo");
            await north.waitForText("Run this command?");
            await answerReview(north, { option: 2 });
            await north.waitForText("Ran it.");
            // The status line takes the turn's usage after the answer's last frame.
            await north.waitFor(
                () => /^42\.\dK \(\d+%\)$/i.test(contextFigure(north)),
                10_000,
                "the context figure of the second turn"
            );

            server.enqueue({ text: ["Once upon a time, ", "the end."], holdAfterChunks: 1 });
            await submit("tell me a long story");
            await north.waitForText("Once upon a time");
            north.type(CTRL_C);
            await north.waitForText("[Cancelled]");
            // The run is over (the composer idle) and the status line took its cost.
            await north.waitFor(
                () =>
                    north.screenText().includes(EMPTY_COMPOSER) &&
                    /^\$\d+\.\d{2,3}$/.test(sessionCost(north)) &&
                    sessionCost(north) !== "$0.00",
                10_000,
                "the cancelled run's cost in the status line"
            );
            const figure = contextFigure(north);
            const cost = sessionCost(north);
            expect(cost).toMatch(/^\$\d+\.\d{2,3}$/);
            expect(cost).not.toBe("$0.00");
            const accepted = north
                .screenText()
                .split("\n")
                .filter((row) => /^ *✓ +(Accepted|Always):| · approved/.test(row))
                .map((row) => row.trim());
            expect(accepted.length).toBeGreaterThanOrEqual(2);
            await north.exit();

            const resumed = await reopen(env, repo, ["--continue"]);
            // Titles and the status line fill in behind the first frame: wait for all of it.
            await showsAsBefore(resumed, [...SHOWN, ...accepted], figure, cost);
            const screen = resumed.screenText();
            for (const text of SHOWN) expect(screen, text).toContain(text);
            for (const row of accepted) expect(screen).toContain(row);
            expect(contextFigure(resumed)).toBe(figure);
            expect(sessionCost(resumed)).toBe(cost);

            // The same conversation through /resume, from a new one in a running chat.
            resumed.type("/new\r");
            await resumed.waitFor(
                () => !resumed.screenText().includes("Bumped the retries."),
                10_000,
                "an empty transcript"
            );
            resumed.type("/conversations\r");
            await resumed.waitForText("Switch to conversation");
            await resumed.waitForText(PICKER_READY);
            resumed.type("\r");
            await showsAsBefore(resumed, SHOWN, figure, cost);
            const again = resumed.screenText();
            for (const text of SHOWN) expect(again, text).toContain(text);
            expect(contextFigure(resumed)).toBe(figure);
            expect(sessionCost(resumed)).toBe(cost);
        },
        TIMEOUT
    );
});
