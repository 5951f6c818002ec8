import { homedir } from "node:os";
import { basename, join } from "node:path";

type Env = Record<string, string | undefined>;

/** `~/.config/north` (`NORTH_CONFIG_DIR`, then `XDG_CONFIG_HOME`, override it). */
export function configDir(env: Env = process.env): string {
    if (env.NORTH_CONFIG_DIR) return env.NORTH_CONFIG_DIR;
    const base = env.XDG_CONFIG_HOME || join(homedir(), ".config");
    return join(base, "north");
}

/** `~/.north`: conversations, costs, project profiles (`NORTH_DATA_DIR` overrides). */
export function dataDir(env: Env = process.env): string {
    return env.NORTH_DATA_DIR || join(homedir(), ".north");
}

/** `$XDG_STATE_HOME/north/north.log`, default `~/.local/state/north/north.log`. */
export function logFilePath(env: Env = process.env): string {
    const base = env.XDG_STATE_HOME || join(homedir(), ".local", "state");
    return join(base, "north", "north.log");
}

/** Where `/export` puts a conversation given no path: `~/.north/exports/<project folder name>`. */
export function exportsDir(dataDirectory: string, repoRoot: string): string {
    return join(dataDirectory, "exports", basename(repoRoot) || "root");
}
