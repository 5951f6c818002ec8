/**
 * Installs a test marketplace's plugin the way `north plugin install` leaves
 * it (a copy under the data folder and its record in installed.json, the
 * fingerprint the user approved), without going through the CLI: loading is
 * what these tests are about.
 */
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pluginFingerprint } from "../../src/project/plugins/fingerprint";
import {
    type InstalledPluginRecord,
    pluginsDir,
    writeInstalledPlugin,
} from "../../src/storage/plugins/store";
import type { TestMarketplace } from "../kit/plugin-marketplace";

let clock = 0;

export async function installTestPlugin(
    dataDir: string,
    market: TestMarketplace,
    name: string,
    o: { enabled?: boolean; version?: string } = {}
): Promise<InstalledPluginRecord> {
    const version = o.version ?? "1.0.0";
    const path = join(pluginsDir(dataDir), "cache", market.name, name, version);
    mkdirSync(path, { recursive: true });
    cpSync(join(market.dir, "plugins", name), path, { recursive: true });
    // Install order decides bare-name clashes: each install a second later.
    const at = new Date(Date.UTC(2026, 0, 1, 0, 0, clock++)).toISOString();
    const record: InstalledPluginRecord = {
        id: `${name}@${market.name}`,
        name,
        marketplace: market.name,
        version,
        commit: market.commit(),
        path,
        fingerprint: await pluginFingerprint(path),
        enabled: o.enabled ?? true,
        installedAt: at,
        updatedAt: at,
    };
    writeInstalledPlugin(dataDir, record.id, record);
    return record;
}

/** A user command `~/.north/commands/<name>.md` (the data folder's commands). */
export function writeUserCommand(dataDir: string, name: string, body: string): void {
    mkdirSync(join(dataDir, "commands"), { recursive: true });
    writeFileSync(join(dataDir, "commands", `${name}.md`), body);
}
