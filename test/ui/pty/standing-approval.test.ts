/**
 * Standing approval is visible and never offered where it would reach git's
 * internals (audit findings 5 and 7). Needs `npm run build` first.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { answerReview, type NorthPtySession, REVIEW_READY, startNorthSession } from "../../kit/pty";

const TIMEOUT = 45_000;

let session: NorthPtySession | undefined;
afterEach(async () => {
    await session?.dispose();
    session = undefined;
});

describe("standing approval", () => {
    it(
        "a trusted project's shellAutoApprove is named in the status line's mode segment",
        async () => {
            session = await startNorthSession({
                files: {
                    ".north/autoaccept.json": JSON.stringify({ shellAutoApprove: true }),
                    "app.ts": "export {};\n",
                },
                waitReady: false,
            });
            const { north } = session;
            await north.waitForText("Trust this project?");
            await answerReview(north, { option: 1 });
            await north.waitForText("agent · commands auto-approved");
        },
        TIMEOUT
    );

    it(
        "a command writing .git/config is asked with no standing option, and nothing is kept",
        async () => {
            session = await startNorthSession({
                files: { "app.ts": "export {};\n", ".git/config": "[user]\n" },
            });
            const { north, server, submit, repo, env } = session;
            const command = "echo '[core]' >> .git/config";
            server.enqueue(
                { toolCalls: [{ name: "shell_run", input: { command } }] },
                { text: "Done." }
            );
            await submit("configure git");
            await north.waitForText("Run this command?");
            await north.waitForText(REVIEW_READY);
            const screen = north.screenText();
            expect(screen).toContain("1. Yes, run it once");
            expect(screen).toContain("2. No, and tell North what to do instead");
            expect(screen).not.toContain("don't ask again");
            expect(screen).toContain("asked every time");
            await answerReview(north, { option: 1 });
            await north.waitForText("Done.");
            expect(readFileSync(join(repo, ".git/config"), "utf8")).toContain("[core]");
            expect(existsSync(join(env.NORTH_DATA_DIR!, "approvals.json"))).toBe(false);
        },
        TIMEOUT
    );
});
