/**
 * The chat's launch reads plain user settings without zod; anything else goes
 * through the full check before the first frame, with the same warnings.
 * Needs `npm run build` first.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, it } from "vitest";
import { type NorthPtySession, startNorthSession } from "../../kit/pty";

const TIMEOUT = 30_000;

let session: NorthPtySession | undefined;
let configDir: string | undefined;
afterEach(async () => {
    await session?.dispose();
    session = undefined;
    if (configDir) rmSync(configDir, { recursive: true, force: true });
    configDir = undefined;
});

function userConfig(files: Record<string, string>): string {
    configDir = mkdtempSync(join(tmpdir(), "north-launch-settings-"));
    mkdirSync(configDir, { recursive: true });
    for (const [name, text] of Object.entries(files)) writeFileSync(join(configDir, name), text);
    return configDir;
}

describe("chat launch with user settings", () => {
    it(
        "warns about a bad value in settings.json and still answers",
        async () => {
            const dir = userConfig({ "settings.json": '{"theme": "blue"}' });
            session = await startNorthSession({ env: { NORTH_CONFIG_DIR: dir } });
            await session.north.waitForText("settings.json is invalid: theme");
            session.server.enqueue({ text: "Answered." });
            await session.submit("hello");
            await session.north.waitForText("Answered.");
        },
        TIMEOUT
    );

    it(
        "refuses a config.json the full check refuses, before drawing anything",
        async () => {
            const dir = userConfig({ "config.json": '{"mouse": "yes"}' });
            session = await startNorthSession({
                env: { NORTH_CONFIG_DIR: dir },
                waitReady: false,
            });
            await session.north.waitFor(() => session!.north.hasExited(), TIMEOUT, "exit");
            // The pty may report the exit before the emulator parsed North's last write.
            await session.north.waitForText("config.json is invalid: mouse");
        },
        TIMEOUT
    );

    it(
        "uses a setting only the full check reads (sandbox) and answers",
        async () => {
            const dir = userConfig({ "config.json": '{"sandbox": true}' });
            session = await startNorthSession({ env: { NORTH_CONFIG_DIR: dir } });
            await session.north.waitForText("sandboxed");
            session.server.enqueue({ text: "Answered." });
            await session.submit("hello");
            await session.north.waitForText("Answered.");
        },
        TIMEOUT
    );
});
