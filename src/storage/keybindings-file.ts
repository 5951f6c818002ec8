/**
 * The user's keybindings file, `keybindings.json` next to the user settings
 * (`~/.config/north`, `NORTH_CONFIG_DIR`). Only read here; what it means is
 * decided by the chat (ui/input/keybindings.ts).
 */
import { join } from "node:path";
import { configDir } from "./paths";
import { readRegularTextSync } from "../util/read-regular-file";

export type KeybindingsFile =
    { path: string; text: string | null } | { path: string; text: null; error: string };

export function keybindingsPath(env: Record<string, string | undefined> = process.env): string {
    return join(configDir(env), "keybindings.json");
}

/** The file's text; null when there is none; an error when it cannot be read. */
export function readKeybindingsFile(
    env: Record<string, string | undefined> = process.env
): KeybindingsFile {
    const path = keybindingsPath(env);
    try {
        return { path, text: readRegularTextSync(path) };
    } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return { path, text: null };
        return { path, text: null, error: (error as Error).message };
    }
}
