import { chmodSync, mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { writeConfigFileAtomicSync } from "../util/atomic-write";
import { withFileLock } from "../util/file-lock";
import { loadUserSettings, mergeLayers, userConfigPath } from "./settings/load";
import type { Settings } from "./settings/schema";
import { readRegularTextSync } from "../util/read-regular-file";

export type ConfigLoadResult =
    | { ok: true; config: Settings; path: string; warnings: string[] }
    | { ok: false; error: string; path: string };

/**
 * Reads the user layer; a missing file is an empty config, a broken one a
 * clear error, an unknown key a warning.
 */
export function loadUserConfig(
    env: Record<string, string | undefined> = process.env
): ConfigLoadResult {
    const loaded = loadUserSettings(env);
    if (!loaded.ok) return loaded;
    return {
        ok: true,
        config: mergeLayers(loaded.layers),
        path: loaded.path,
        warnings: loaded.warnings,
    };
}

/** Saves the model chosen with `/model` as `selectedModel`. */
export function saveSelectedModel(
    name: string,
    env: Record<string, string | undefined> = process.env
): { ok: true; path: string } | { ok: false; path: string; error: string } {
    return saveUserSetting("selectedModel", name, env);
}

/**
 * Sets one key of the user's settings file (`selectedModel` from `/model`,
 * `editorMode` from `/vim`), keeping every other field as written (unknown
 * ones too). Locked and atomic: a reader sees the old file or the new one.
 * A file that is not a JSON object is left alone and reported.
 */
export function saveUserSetting(
    key: "selectedModel" | "editorMode",
    value: string,
    env: Record<string, string | undefined> = process.env
): { ok: true; path: string } | { ok: false; path: string; error: string } {
    const path = userConfigPath(env);
    try {
        mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
        return withFileLock(path, () => {
            let config: Record<string, unknown> = {};
            let mode: number | undefined;
            let text: string | null = null;
            try {
                text = readRegularTextSync(path);
                mode = statSync(path).mode & 0o777;
            } catch (error) {
                if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
            }
            if (text !== null && text.trim() !== "") {
                let json: unknown;
                try {
                    json = JSON.parse(text);
                } catch (error) {
                    return {
                        ok: false as const,
                        path,
                        error: `${path} is not valid JSON (${(error as Error).message}); it was left as is`,
                    };
                }
                if (typeof json !== "object" || json === null || Array.isArray(json)) {
                    return {
                        ok: false as const,
                        path,
                        error: `${path} is not a JSON object; it was left as is`,
                    };
                }
                config = json as Record<string, unknown>;
            }
            config[key] = value;
            writeConfigFileAtomicSync(path, JSON.stringify(config, null, 2) + "\n", { sync: true });
            if (mode !== undefined) chmodSync(path, mode);
            return { ok: true as const, path };
        });
    } catch (error) {
        return { ok: false, path, error: `could not write ${path}: ${(error as Error).message}` };
    }
}
