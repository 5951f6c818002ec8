/**
 * Prompt history end to end: prompts sent in one chat come back with Up and
 * Ctrl+R after a restart in the same project, and not in another project.
 * Needs `npm run build` first.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../../kit/fake-llm-server";
import {
    declineLearning,
    isAppReady,
    keysRead,
    type NorthPtySession,
    type PtyNorth,
    spawnNorthPty,
    startNorthSession,
} from "../../kit/pty";

const TIMEOUT = 60_000;
const UP = "\x1b[A";
const CTRL_R = "\x12";

let session: NorthPtySession | undefined;
let server: FakeLlmServer | undefined;
const extra: PtyNorth[] = [];
const folders: string[] = [];
afterEach(async () => {
    for (const north of extra.splice(0)) north.kill();
    await session?.dispose();
    session = undefined;
    await server?.close();
    server = undefined;
    for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The composer's first line (the row starting with ❯ right above the status line's rule). */
function composerLine(north: PtyNorth): string {
    const rows = north.screenText().split("\n");
    const rule = rows.findLastIndex((row) => /─ (ask|agent|plan) ─/.test(row));
    return (rows[rule + 1] ?? "").trim();
}

async function reopen(env: NodeJS.ProcessEnv, repo: string): Promise<PtyNorth> {
    const north = spawnNorthPty({ args: ["--path", repo], env, cwd: repo });
    extra.push(north);
    await north.waitFor(() => isAppReady(north), 20_000, "the status line");
    await keysRead(north);
    return north;
}

describe("prompt history in the chat", () => {
    it(
        "survives a restart: Up walks back, Ctrl+R finds an older prompt; another project has its own",
        async () => {
            // `north "PROMPT"` counts as a sent prompt too.
            server = await startFakeLlmServer({ turns: [{ text: "Answer zero." }] });
            session = await startNorthSession({ server, args: ["gamma from the command line"] });
            const { north, env, repo, submit } = session;
            await north.waitForText("Answer zero.");
            server.enqueue({ text: "Answer one." }, { text: "Answer two." });
            await submit("alpha question about retries");
            await north.waitForText("Answer one.");
            await submit("beta question");
            await north.waitForText("Answer two.");
            await north.exit();

            const historyDir = join(env.NORTH_DATA_DIR!, "history");
            const [file] = readdirSync(historyDir);
            expect(file).toMatch(/^[0-9a-f]{16}\.jsonl$/);
            expect(statSync(join(historyDir, file!)).mode & 0o777).toBe(0o600);

            const again = await reopen(env, repo);
            expect(composerLine(again)).toMatch(/^❯\s+Enter to send/);
            again.type(UP);
            await again.waitFor(
                () => composerLine(again) === "❯ beta question",
                10_000,
                "the last prompt in the composer"
            );
            again.type(UP);
            await again.waitFor(
                () => composerLine(again) === "❯ alpha question about retries",
                10_000,
                "the prompt before it"
            );
            again.type(UP);
            await again.waitFor(
                () => composerLine(again) === "❯ gamma from the command line",
                10_000,
                "the first prompt"
            );
            again.type("\x1b[B\x1b[B\x1b[B");
            await again.waitFor(() => /Enter to send/.test(composerLine(again)), 10_000, "empty");

            again.type(CTRL_R);
            again.type("alp");
            await again.waitForText("(reverse-i-search)`alp'");
            expect(again.screenText()).toContain("alpha question about retries");
            // Enter puts it in the composer to edit; the next Enter sends it.
            again.type("\r");
            await again.waitFor(
                () => composerLine(again) === "❯ alpha question about retries",
                10_000,
                "the accepted match"
            );
            expect(again.screenText()).not.toContain("reverse-i-search");
            expect(server.requests).toHaveLength(3);
            server.enqueue({ text: "Answer three." });
            again.type(" (again)\r");
            await again.waitForText("Answer three.");
            expect(JSON.stringify(server.requests[3]?.body)).toContain(
                "alpha question about retries (again)"
            );
            await again.exit();

            // Another project starts with no history.
            const other = mkdtempSync(join(tmpdir(), "north-pty-other-"));
            folders.push(other);
            declineLearning(env.NORTH_DATA_DIR!, other);
            const elsewhere = await reopen(env, other);
            elsewhere.type(CTRL_R);
            elsewhere.type("alp");
            await elsewhere.waitForText("no matching prompt");
            elsewhere.type("\x1b");
            await elsewhere.waitFor(
                () => /Enter to send/.test(composerLine(elsewhere)),
                10_000,
                "the search cancelled"
            );
            // Up finds nothing to bring back: the next key lands in an empty composer.
            elsewhere.type(UP);
            elsewhere.type("z");
            await elsewhere.waitFor(() => composerLine(elsewhere) === "❯ z", 10_000, "just z");
            expect(elsewhere.screenText()).not.toContain("beta question");
        },
        TIMEOUT
    );
});
