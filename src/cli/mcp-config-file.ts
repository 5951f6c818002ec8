/**
 * Reads and rewrites the two files `north mcp` manages: the user config's
 * `mcpServers` (`$NORTH_CONFIG_DIR/config.json`) and the project's
 * `.mcp.json`. Writes are locked and atomic and keep every other key as it
 * was; a file North cannot parse is reported and left alone.
 */
import { chmodSync, mkdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { writeConfigFileAtomicSync } from "../util/atomic-write";
import { withFileLock } from "../util/file-lock";
import { userConfigPath } from "../storage/settings/load";
import { MCP_PROJECT_CONFIG_FILE, type McpServerScope } from "../tools/mcp/config";
import { readRegularTextSync } from "../util/read-regular-file";

type Env = Record<string, string | undefined>;

export type McpFileRead =
    | { ok: true; path: string; servers: Record<string, unknown> }
    | { ok: false; path: string; error: string };

export type McpFileWrite = { ok: true; path: string } | { ok: false; path: string; error: string };

export function mcpScopePath(scope: McpServerScope, repoRoot: string, env: Env): string {
    return scope === "user" ? userConfigPath(env) : join(repoRoot, MCP_PROJECT_CONFIG_FILE);
}

function isRecord(value: unknown): value is Record<string, unknown> {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}

type ParsedFile =
    | { ok: true; json: Record<string, unknown>; servers: Record<string, unknown> }
    | { ok: false; error: string };

function parseFile(text: string | null, path: string): ParsedFile {
    if (text === null || text.trim() === "") return { ok: true, json: {}, servers: {} };
    let json: unknown;
    try {
        json = JSON.parse(text);
    } catch (error) {
        return { ok: false, error: `${path} is not valid JSON (${(error as Error).message})` };
    }
    if (!isRecord(json)) return { ok: false, error: `${path} is not a JSON object` };
    const servers = json.mcpServers ?? {};
    if (!isRecord(servers)) return { ok: false, error: `${path}: "mcpServers" is not an object` };
    return { ok: true, json, servers };
}

function readOptional(path: string): string | null {
    try {
        return readRegularTextSync(path);
    } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw error;
    }
}

/** The raw `mcpServers` entries of one scope's file (none when the file is missing). */
export function readMcpScope(scope: McpServerScope, repoRoot: string, env: Env): McpFileRead {
    const path = mcpScopePath(scope, repoRoot, env);
    try {
        const parsed = parseFile(readOptional(path), path);
        return parsed.ok
            ? { ok: true, path, servers: parsed.servers }
            : { ok: false, path, error: parsed.error };
    } catch (error) {
        return { ok: false, path, error: `cannot read ${path}: ${(error as Error).message}` };
    }
}

/**
 * Applies `change` to the scope's `mcpServers` under the file's lock; `change`
 * returns an error message to abandon the write. Other keys and entries stay
 * as they were, and an existing file keeps its mode.
 */
export function updateMcpScope(
    scope: McpServerScope,
    repoRoot: string,
    env: Env,
    change: (servers: Record<string, unknown>) => string | null
): McpFileWrite {
    const path = mcpScopePath(scope, repoRoot, env);
    try {
        if (scope === "user") mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
        return withFileLock(path, (): McpFileWrite => {
            const text = readOptional(path);
            const parsed = parseFile(text, path);
            if (!parsed.ok) return { ok: false, path, error: `${parsed.error}; it was left as is` };
            const servers = { ...parsed.servers };
            const problem = change(servers);
            if (problem !== null) return { ok: false, path, error: problem };
            const mode = text === null ? undefined : statSync(path).mode & 0o777;
            const json = { ...parsed.json, mcpServers: servers };
            // The user config may hold keys; a project's .mcp.json is meant to be shared.
            const newMode = scope === "user" ? 0o600 : 0o644;
            // A project's file must not lead out of the project (a link to ~/.bashrc).
            writeConfigFileAtomicSync(path, JSON.stringify(json, null, 2) + "\n", {
                sync: true,
                mode: newMode,
                ...(scope === "project" ? { within: repoRoot } : {}),
            });
            if (mode !== undefined) chmodSync(path, mode);
            return { ok: true, path };
        });
    } catch (error) {
        return { ok: false, path, error: `could not write ${path}: ${(error as Error).message}` };
    }
}
