/**
 * `/plugin` in the chat through a real pseudo-terminal: the test kit's
 * marketplace (a real git repository) is added from the view's text field,
 * the view lists its plugins, alpha's inventory names its hook
 * command, Cancel installs nothing, Install installs (and runs none of it)
 * and the session's plugins reload,
 * Space disables and enables it, r removes it after a y.
 * Needs `node scripts/build.mjs` first.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readInstalledPlugins } from "../../src/storage/plugins/store";
import { PLUGIN_MARKER_ENV, makeTestMarketplace } from "../kit/plugin-marketplace";
import { type NorthPtySession, startNorthSession } from "../kit/pty";

const TIMEOUT = 120_000;
const TAB = "\t";
const RIGHT = "\x1b[C";
const ESC = "\x1b";
/** plugins-dialog.tsx's PLUGINS_HINTS and CONFIRM_HINT: the view takes keys once they show. */
const INSTALLED_READY = "Space enable/disable";
const AVAILABLE_READY = "Enter review and install";
const MARKETPLACES_READY = "a add · u update";
const CONFIRM_READY = "y install · Esc cancel";

let session: NorthPtySession | undefined;
let root = "";

afterEach(async () => {
    await session?.dispose();
    session = undefined;
    if (root !== "") rmSync(root, { recursive: true, force: true });
    root = "";
});

describe("/plugin in the chat", () => {
    it(
        "browses the marketplace, shows alpha's hook before installing, Cancel installs nothing, Install installs, Space switches, r removes",
        async () => {
            root = mkdtempSync(join(tmpdir(), "north-pty-plugin-"));
            const market = makeTestMarketplace(root);
            const marker = join(root, "marker.txt");
            session = await startNorthSession({
                cols: 120,
                rows: 40,
                env: { [PLUGIN_MARKER_ENV]: marker },
            });
            const s = session;
            const data = s.env.NORTH_DATA_DIR!;
            const installed = () => readInstalledPlugins(data)["alpha@north-test"];

            // No marketplace yet: the Marketplaces tab adds one from its text field.
            await s.submit("/plugin");
            await s.north.waitForText(INSTALLED_READY);
            expect(s.north.screenText()).toContain("No plugins installed");
            s.north.type(TAB);
            await s.north.waitForText(AVAILABLE_READY);
            s.north.type(TAB);
            await s.north.waitForText(MARKETPLACES_READY);
            s.north.type("a");
            await s.north.waitForText("Add marketplace:");
            s.north.type(market.dir);
            await s.north.waitForText(market.dir);
            s.north.type("\r");
            await s.north.waitForText("Marketplace north-test added", 60_000);
            await s.north.waitForText(MARKETPLACES_READY);
            expect(s.north.screenText()).toContain(market.commit().slice(0, 12));
            s.north.type(TAB);
            await s.north.waitForText(INSTALLED_READY);
            s.north.type(TAB);
            await s.north.waitForText(AVAILABLE_READY);
            const available = s.north.screenText();
            expect(available).toContain("alpha@north-test");
            expect(available).toContain("beta@north-test");

            // alpha is first: Enter reads it and shows what it may run; Cancel is the default.
            s.north.type("\r");
            await s.north.waitForText(CONFIRM_READY, 60_000);
            const inventory = s.north.screenText();
            expect(inventory).toContain("Install alpha@north-test? It may run:");
            expect(inventory).toContain("hooks/mark.mjs");
            s.north.type("\r");
            await s.north.waitForText("alpha@north-test: nothing installed.");
            await s.north.waitForText(AVAILABLE_READY);
            expect(installed()).toBeUndefined();

            s.north.type("\r");
            await s.north.waitForText(CONFIRM_READY, 60_000);
            s.north.type(RIGHT);
            s.north.type("\r");
            await s.north.waitForText("alpha@north-test 1.0.0 installed.", 60_000);
            // The session's plugins reloaded: the runtime's note is in the transcript.
            await s.north.waitForText("plugin alpha@north-test joined the session");
            await s.north.waitForText(AVAILABLE_READY);
            expect(installed()?.enabled).toBe(true);
            // Installing ran nothing of it: no hook wrote its marker.
            expect(existsSync(marker)).toBe(false);

            // Its command joined the chat's commands: /help lists it.
            s.north.type(ESC);
            await s.north.waitFor(
                () => !s.north.screenText().includes(AVAILABLE_READY),
                10_000,
                "the plugins view to close"
            );
            await s.submit("/help");
            await s.north.waitForText("/alpha:greet");

            // Back in the view (it opens on Installed): Space disables, Space enables.
            await s.submit("/plugin");
            await s.north.waitForText(INSTALLED_READY);
            s.north.type(" ");
            await s.north.waitForText("alpha@north-test disabled.");
            await s.north.waitForText("plugin alpha@north-test left the session");
            await s.north.waitFor(() => installed()?.enabled === false, 10_000, "alpha disabled");
            await s.north.waitForText(INSTALLED_READY);
            // Disabled, its command left: the chat no longer knows /alpha:greet.
            s.north.type(ESC);
            await s.north.waitFor(
                () => !s.north.screenText().includes(INSTALLED_READY),
                10_000,
                "the plugins view to close"
            );
            await s.submit("/alpha:greet bob");
            await s.north.waitForText("unknown command /alpha:greet");
            await s.submit("/plugin");
            await s.north.waitForText(INSTALLED_READY);
            s.north.type(" ");
            await s.north.waitForText("alpha@north-test enabled.");
            await s.north.waitFor(() => installed()?.enabled === true, 10_000, "alpha enabled");
            await s.north.waitForText(INSTALLED_READY);

            // r asks; n keeps it; r then y removes it.
            s.north.type("r");
            await s.north.waitForText("Remove alpha@north-test?");
            s.north.type("n");
            await s.north.waitForText("alpha@north-test kept.");
            await s.north.waitForText(INSTALLED_READY);
            s.north.type("r");
            await s.north.waitForText("Remove alpha@north-test?");
            s.north.type("y");
            await s.north.waitForText("alpha@north-test removed.", 30_000);
            await s.north.waitFor(() => installed() === undefined, 10_000, "alpha removed");

            s.north.type(ESC);
            await s.north.waitFor(
                () => !s.north.screenText().includes(INSTALLED_READY),
                10_000,
                "the plugins view to close"
            );
            expect(existsSync(marker)).toBe(false);
        },
        TIMEOUT
    );
});
