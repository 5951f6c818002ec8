/**
 * The user's settings read without zod, for the chat's first frame and the
 * print path's first request (src/cli/launch-boundary.ts has the figure):
 * files that match the JSON Schema the build generated from schema.ts
 * (`userFileJsonSchema`) are taken as they are; any other file, a bad value
 * included, goes to the full check in `load.ts`, so what is accepted and
 * every warning's text stay the same.
 */
import { join } from "node:path";
import { matchesJsonSchema } from "../../util/json-schema-check";
import { configDir } from "../paths";
import type { SettingsLayer, UserSettingsResult } from "./load";
import { type Settings, userFileJsonSchema } from "./schema";
import { readRegularTextSync } from "../../util/read-regular-file";

type Env = Record<string, string | undefined>;

/**
 * JSON text written by the build (scripts/build.mjs; a string, which esbuild inlines
 * where it is used); from source, the schema is derived from schema.ts.
 */
declare const __NORTH_USER_SETTINGS_SCHEMA__: string | undefined;

export function userConfigPath(env: Env = process.env): string {
    return join(configDir(env), "config.json");
}

function userFileSchema(): Record<string, unknown> {
    return typeof __NORTH_USER_SETTINGS_SCHEMA__ === "string"
        ? (JSON.parse(__NORTH_USER_SETTINGS_SCHEMA__) as Record<string, unknown>)
        : userFileJsonSchema();
}

/** One user file's settings when it has nothing to report, else undefined (check it fully). */
export function plainUserSettings(text: string): Settings | undefined {
    let json: unknown;
    try {
        json = JSON.parse(text);
    } catch {
        return undefined;
    }
    // A fresh parse: the settings own their objects, as zod's copies do.
    return matchesJsonSchema(userFileSchema(), json) ? (json as Settings) : undefined;
}

/**
 * `loadUserSettings` (load.ts) for `settings.json` then `config.json` in the
 * user's config folder when every file is plain; undefined when one needs the
 * full check (a bad value, an unknown key, a read error).
 */
export function plainUserLayers(env: Env = process.env): UserSettingsResult | undefined {
    const path = userConfigPath(env);
    const layers: SettingsLayer[] = [];
    for (const file of [join(configDir(env), "settings.json"), path]) {
        let text: string;
        try {
            text = readRegularTextSync(file);
        } catch (error) {
            const code = (error as NodeJS.ErrnoException).code;
            if (code === "ENOENT" || code === "ENOTDIR") continue;
            return undefined;
        }
        const settings = plainUserSettings(text);
        if (settings === undefined) return undefined;
        layers.push({ kind: "user", path: file, settings, text });
    }
    return { ok: true, layers, warnings: [], path };
}

/** Merges layers given lowest first: later values win, `allowedCommands` add up. */
export function mergeLayers(layers: readonly SettingsLayer[]): Settings {
    const merged: Record<string, unknown> = {};
    const commands: string[] = [];
    for (const { settings } of layers) {
        for (const [key, value] of Object.entries(settings)) {
            // Each file's hooks run and each file's permission rules keep their source.
            if (key === "hooks" || key === "$schema" || key === "permissions") continue;
            if (key === "allowedCommands") {
                for (const command of value as string[])
                    if (!commands.includes(command)) commands.push(command);
            } else merged[key] = value;
        }
    }
    if (commands.length > 0) merged.allowedCommands = commands;
    return merged as Settings;
}
