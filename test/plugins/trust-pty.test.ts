/**
 * A project that expects plugins, in the chat through a real terminal: the
 * trust question lists them (nothing cloned yet); after Yes a separate
 * question offers to install them; each install shows what the plugin can run
 * and takes its own yes. Needs `node scripts/build.mjs`.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PICKER_READY_HINT } from "../../src/ui/reviews/picker-review";
import { installedFile, pluginsDir } from "../../src/storage/plugins/store";
import { makeTestMarketplace } from "../kit/plugin-marketplace";
import { answerReview, isAppReady, type NorthPtySession, startNorthSession } from "../kit/pty";

const TIMEOUT = 90_000;

let session: NorthPtySession | undefined;
let parent: string | undefined;
afterEach(async () => {
    await session?.dispose();
    session = undefined;
    if (parent) rmSync(parent, { recursive: true, force: true });
    parent = undefined;
});

describe("a project's plugins in the chat's trust question", () => {
    it(
        "lists them, offers them after Yes, and installs only the one said yes to",
        async () => {
            parent = mkdtempSync(join(tmpdir(), "north-trust-pty-"));
            const market = makeTestMarketplace(parent);
            const alpha = `alpha@${market.name}`;
            const beta = `beta@${market.name}`;
            session = await startNorthSession({
                waitReady: false,
                cols: 160,
                rows: 50,
                files: {
                    ".claude/settings.json": JSON.stringify({
                        extraKnownMarketplaces: {
                            [market.name]: { source: { source: "directory", path: market.dir } },
                        },
                        enabledPlugins: { [alpha]: true, [beta]: true },
                    }),
                },
            });
            const { north, env } = session;
            const data = env.NORTH_DATA_DIR!;
            await north.waitForText("Trust this project?");
            expect(north.screenText()).toContain(
                `${alpha} (marketplace ${market.name}: directory ${market.dir}) — not installed`
            );
            expect(existsSync(pluginsDir(data))).toBe(false);
            await answerReview(north, { option: 1 });

            await north.waitForText("This project expects 2 plugins you do not have. Install?");
            await north.waitForText(PICKER_READY_HINT);
            // The first choice: all, each asked on its own.
            north.type("\r");

            await north.waitForText(`Install ${alpha}? It can run the programs below`);
            await north.waitForText(PICKER_READY_HINT);
            expect(north.screenText()).toMatch(/hook SessionStart: node .*mark\.mjs/);
            north.type("\x1b[B");
            await north.waitForText(`› Install ${alpha}`);
            north.type("\r");

            await north.waitForText(`Install ${beta}? It can run the programs below`);
            await north.waitForText(PICKER_READY_HINT);
            expect(north.screenText()).toMatch(/MCP server echo: node/);
            // Enter on the first choice: don't install.
            north.type("\r");

            await north.waitFor(() => isAppReady(north), 30_000, "the status line");
            await north.waitForText(`installed ${alpha}`);
            const installed = JSON.parse(readFileSync(installedFile(data), "utf8")) as object;
            expect(Object.keys(installed)).toEqual([alpha]);
        },
        TIMEOUT
    );
});
