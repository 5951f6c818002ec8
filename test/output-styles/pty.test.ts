/**
 * `/output-style` in the chat, the built `north` in a real pty against the
 * fake model: the picker, the pick kept in `.north/settings.local.json`,
 * the conversation's system prompt unchanged until `/new`, "now" changing
 * it at once with the cache note, and the saved pick used by the next North.
 * Needs `node scripts/build.mjs` first.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type NorthPtySession, PICKER_READY, startNorthSession } from "../kit/pty";
import { runNorth } from "../kit/run-north";

const TIMEOUT = 90_000;

let session: NorthPtySession | undefined;
afterEach(async () => {
    await session?.dispose();
    session = undefined;
});

function system(s: NorthPtySession, index: number): string {
    const body = s.server.requests[index]?.body as { system?: unknown } | undefined;
    return JSON.stringify(body?.system ?? null);
}

/** Opens the picker, filters to `name` and chooses it. */
async function chooseStyle(s: NorthPtySession, name: string): Promise<void> {
    await s.submit("/output-style");
    await s.north.waitForText("Choose an output style");
    await s.north.waitForText(PICKER_READY);
    s.north.type(name);
    await s.north.waitForText(`› ${name}`);
    s.north.type("\r");
}

describe("/output-style in the chat", () => {
    it(
        "picks a style for the next conversation, then one for now; the pick is saved for this project",
        async () => {
            session = await startNorthSession();
            const { north, server, submit, repo, env } = session;
            server.enqueue({ text: "Answer one." }, { text: "Answer two." });
            await submit("first question");
            await north.waitForText("Answer one.");
            expect(system(session, 0)).not.toContain("output_style");

            await chooseStyle(session, "concise");
            await north.waitForText("Use concise from…");
            await north.waitForText(PICKER_READY);
            north.type("\r");
            await north.waitForText("from the next conversation (/new); this one keeps default");
            const local = JSON.parse(
                readFileSync(join(repo, ".north/settings.local.json"), "utf8")
            ) as { outputStyle?: string };
            expect(local.outputStyle).toBe("concise");

            // The same conversation keeps its prompt byte for byte.
            await submit("second question");
            await north.waitForText("Answer two.");
            expect(system(session, 1)).toBe(system(session, 0));

            await submit("/new");
            await north.waitForText("Started a new conversation.");
            server.enqueue({ text: "Answer three." }, { text: "Answer four." });
            await submit("third question");
            await north.waitForText("Answer three.");
            expect(system(session, 2)).toContain('<output_style name=\\"concise\\">');

            await chooseStyle(session, "learning");
            await north.waitForText("Use learning from…");
            north.type("now");
            // Enter counts once the picker shows it does, in the frame with "now" chosen.
            await north.waitFor(
                () =>
                    north.screenText().includes("› now") &&
                    north.screenText().includes(PICKER_READY),
                15_000,
                "now chosen, Enter taken"
            );
            north.type("\r");
            await north.waitForText("Output style learning from now on.");
            await submit("fourth question");
            await north.waitForText("Answer four.");
            expect(system(session, 3)).toContain('<output_style name=\\"learning\\">');
            expect(system(session, 3)).not.toContain('name=\\"concise');

            // The next North of this project starts with the saved pick.
            server.enqueue({ text: "Answer five." });
            const next = await runNorth(["-p", "fifth", "--path", repo], { env, cwd: repo });
            expect(next.stderr).toBe("");
            expect(next.stdout).toBe("Answer five.\n");
            expect(system(session, 4)).toContain('<output_style name=\\"learning\\">');
        },
        TIMEOUT
    );
});
