/**
 * What was approved stays visible: an accepted edit's diff stays in the
 * transcript (a few numbered lines, Ctrl+O shows all of it and hides it
 * again), an accepted plan stays whole in the transcript and pinned while it
 * is carried out, plan mode hands over to agent mode, and a resumed
 * conversation draws all of it again. Needs `npm run build` first.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
    answerReview,
    isAppReady,
    type NorthPtySession,
    type PtyNorth,
    spawnNorthPty,
    startNorthSession,
} from "../../kit/pty";

const TIMEOUT = 60_000;
const CTRL_O = "\x0f";

let session: NorthPtySession | undefined;
const extra: PtyNorth[] = [];
afterEach(async () => {
    for (const north of extra.splice(0)) north.kill();
    await session?.dispose();
    session = undefined;
});

const SIXTY = Array.from({ length: 60 }, (_, i) => `const line${i + 1} = ${i + 1};`).join("\n");

const PLAN = [
    "# Plan",
    "",
    "1. Read the retry module",
    "2. Raise retries to five",
    "3. Add a delay constant",
    "4. Update the changelog",
    "5. Run the unit tests",
    "6. Report what changed",
].join("\n");

/** The status line (the last row with text). */
function statusLine(north: PtyNorth): string {
    return (
        north
            .screenText()
            .split("\n")
            .findLast((row) => row.trim() !== "") ?? ""
    );
}

async function reopen(session: NorthPtySession): Promise<PtyNorth> {
    const north = spawnNorthPty({
        args: ["--path", session.repo, "--continue"],
        env: session.env,
        cwd: session.repo,
        rows: 40,
        cols: 100,
    });
    extra.push(north);
    await north.waitFor(() => isAppReady(north), 20_000, "the status line");
    return north;
}

describe("an accepted edit stays in the transcript", () => {
    it(
        "collapsed to a few numbered lines; Ctrl+O shows it whole in the transcript view; a resume draws it again",
        async () => {
            session = await startNorthSession({ rows: 40, cols: 100 });
            const { north, server, submit } = session;
            server.enqueue(
                {
                    toolCalls: [
                        {
                            name: "edit_create_file",
                            input: { path: "sixty.ts", content: `${SIXTY}\n` },
                        },
                    ],
                },
                { text: "Created it." }
            );
            await submit("create sixty.ts");
            await north.waitForText("Yes, make this edit");
            await answerReview(north, { option: 1 });
            await north.waitForText("Created it.");
            await north.waitForText("Accepted: Creating sixty.ts (+60 −0)");
            const collapsed = north.screenText();
            expect(collapsed).toMatch(/1 \+const line1 = 1;/);
            expect(collapsed).toMatch(/4 \+const line4 = 4;/);
            expect(collapsed).not.toContain("const line5 = 5;");
            expect(collapsed).toContain("… 57 more lines below · Ctrl+O transcript");

            // The view opens at the diff's first lines; G goes to its end.
            north.type(CTRL_O);
            await north.waitForText("Transcript ·");
            expect(north.screenText()).toMatch(/30 \+const line30 = 30;/);
            north.type("G");
            await north.waitForText(/60 \+const line60 = 60;/);
            north.type(CTRL_O);
            await north.waitForText("… 57 more lines below · Ctrl+O transcript");
            expect(north.screenText()).not.toContain("const line60 = 60;");

            await north.exit();
            const resumed = await reopen(session);
            await resumed.waitForText("Accepted: Creating sixty.ts (+60 −0)");
            expect(resumed.screenText()).toMatch(/1 \+const line1 = 1;/);
            expect(resumed.screenText()).toContain("… 57 more lines below · Ctrl+O transcript");
            resumed.type(CTRL_O);
            await resumed.waitForText("Transcript ·");
            resumed.type("G");
            await resumed.waitForText(/60 \+const line60 = 60;/);
        },
        TIMEOUT
    );
});

describe("an accepted plan", () => {
    it(
        "stays whole in the transcript, is pinned while it is carried out, switches plan mode to agent, and comes back on resume",
        async () => {
            session = await startNorthSession({ rows: 40, cols: 100 });
            const { north, server, submit } = session;
            await submit("/mode plan");
            await north.waitForText("Mode: plan.");
            expect(statusLine(north)).toContain("plan");
            server.enqueue(
                { toolCalls: [{ name: "propose_plan", input: { plan: PLAN } }] },
                { toolCalls: [{ name: "shell_run", input: { command: "echo step-one" } }] },
                { text: "All steps done." }
            );
            await submit("raise the retries");
            await north.waitForText("Proposed plan");
            await answerReview(north, { option: 1 });
            // Carrying it out: the next review waits, the plan is pinned above it.
            await north.waitForText("Run this command?");
            await north.waitForText("Accepted plan · being carried out");
            const working = north.screenText();
            expect(working).toContain("Accepted: plan: # Plan");
            expect(working).toContain("6. Report what changed");
            expect(statusLine(north)).toMatch(/\bagent\b/);
            expect(statusLine(north)).not.toMatch(/\bplan\b/);
            await answerReview(north, { option: 1 });
            await north.waitForText("All steps done.");
            await north.waitFor(
                () => !north.screenText().includes("being carried out"),
                5_000,
                "the pin to go when the request ends"
            );
            // The whole plan is still in the transcript.
            const after = north.screenText();
            for (const step of PLAN.split("\n").filter((l) => /^\d\./.test(l))) {
                expect(after).toContain(step);
            }
            // The next request is sent in agent mode.
            server.enqueue({ text: "Agent here." });
            await submit("and now?");
            await north.waitForText("Agent here.");
            const tools = (
                server.requests.at(-1)?.body as { tools?: Array<{ name: string }> }
            ).tools?.map((t) => t.name);
            expect(tools).not.toContain("propose_plan");
            expect(tools).toContain("shell_run");

            await north.exit();
            const resumed = await reopen(session);
            await resumed.waitForText("Accepted: plan: # Plan");
            expect(resumed.screenText()).toContain("6. Report what changed");
            expect(resumed.screenText()).not.toContain("being carried out");
        },
        TIMEOUT
    );
});
