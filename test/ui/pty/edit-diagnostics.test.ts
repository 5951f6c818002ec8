/**
 * In the chat, the type error an edit introduced shows under the edit, as
 * the real typescript-language-server (North's devDependency, found on PATH)
 * reports it in a trusted project. Needs `npm run build` first.
 */
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
    type NorthPtySession,
    type PtyNorth,
    answerReview,
    isAppReady,
    spawnNorthPty,
    startNorthSession,
} from "../../kit/pty";

const REPO = fileURLToPath(new URL("../../..", import.meta.url));
const TIMEOUT = 120_000;

const TSCONFIG = JSON.stringify({
    compilerOptions: { target: "ES2022", module: "ESNext", strict: true, noEmit: true },
    include: ["*.ts"],
});

let session: NorthPtySession | undefined;
const reopened: PtyNorth[] = [];
afterEach(async () => {
    for (const north of reopened.splice(0)) north.kill();
    await session?.dispose();
    session = undefined;
});

describe("diagnostics under an edit", () => {
    it(
        "shows the type error the edit introduced, from the language server, and again on resume",
        async () => {
            session = await startNorthSession({
                rows: 40,
                cols: 120,
                args: ["--trust"],
                files: {
                    "tsconfig.json": TSCONFIG,
                    "app.ts": "export const retries: number = 3;\n",
                    // A busy machine: no "pending" in place of the answer.
                    ".north/settings.json": JSON.stringify({
                        lsp: { diagnosticsBudgetMs: 60_000 },
                    }),
                },
                env: {
                    PATH: [join(REPO, "node_modules", ".bin"), process.env.PATH ?? ""].join(
                        delimiter
                    ),
                },
            });
            const { north, server, submit } = session;
            server.enqueue(
                {
                    toolCalls: [
                        {
                            name: "edit_replace_exact",
                            input: {
                                path: "app.ts",
                                old_text: "= 3;",
                                new_text: '= "three";',
                            },
                        },
                    ],
                },
                { text: "Changed it." }
            );
            await submit("make retries a word");
            await north.waitForText("Yes, make this edit", TIMEOUT);
            await answerReview(north, { option: 1 });
            await north.waitForText("Changed it.", TIMEOUT);
            await north.waitForText(
                /app\.ts:1:14 error Type 'string' is not assignable to type 'number'\./,
                TIMEOUT
            );
            // Under the edit's own line, before the answer that followed it.
            const screen = north.screenText();
            const edit = screen.search(/Editing app\.ts/);
            const error = screen.indexOf("app.ts:1:14 error");
            expect(edit).toBeGreaterThan(-1);
            expect(error).toBeGreaterThan(edit);
            expect(screen.indexOf("Changed it.")).toBeGreaterThan(error);
            // The model read the same line in the edit's result.
            const sent = JSON.stringify(server.requests.at(-1)?.body ?? null);
            expect(sent).toContain("app.ts:1:14 error Type 'string' is not assignable");

            await north.exit();
            const resumed = spawnNorthPty({
                args: ["--path", session.repo, "--continue"],
                env: session.env,
                cwd: session.repo,
                rows: 40,
                cols: 120,
            });
            reopened.push(resumed);
            await resumed.waitFor(() => isAppReady(resumed), TIMEOUT, "the status line");
            await resumed.waitForText(
                /app\.ts:1:14 error Type 'string' is not assignable to type 'number'\./,
                TIMEOUT
            );
        },
        TIMEOUT + 60_000
    );
});
