/**
 * Reads the `hooks` of several settings files (Claude Code's schema) and
 * merges them: every file's hooks run, none overrides another. A missing file
 * is silent; invalid JSON drops that file's hooks with a warning; a bad entry
 * drops only that entry, with a warning.
 */
import { readRegularTextSync } from "../../util/read-regular-file";
import {
    type CommandHook,
    HOOK_EVENTS,
    type HookEvent,
    type HookGroup,
    type HookSettings,
} from "./types";

export interface LoadedHookSettings {
    settings: HookSettings;
    warnings: string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}

const EVENT_SET = new Set<string>(HOOK_EVENTS);

/** Whether `matcher` is usable; `A|B` name lists always are, regexes must compile. */
export function matcherProblem(matcher: string): string | undefined {
    if (matcher === "" || matcher === "*" || /^[A-Za-z0-9_|-]+$/.test(matcher)) return undefined;
    try {
        new RegExp(matcher);
        return undefined;
    } catch (error) {
        return `invalid matcher regex ${JSON.stringify(matcher)}: ${(error as Error).message}`;
    }
}

function parseHook(raw: unknown, where: string, warnings: string[]): CommandHook | undefined {
    if (!isRecord(raw)) {
        warnings.push(`${where}: a hook must be an object; ignored`);
        return undefined;
    }
    if (raw.type !== "command") {
        warnings.push(
            `${where}: hook type ${JSON.stringify(raw.type)} is not supported by North (only "command"); ignored`
        );
        return undefined;
    }
    if (typeof raw.command !== "string" || raw.command.trim() === "") {
        warnings.push(`${where}: a command hook needs a "command" string; ignored`);
        return undefined;
    }
    const hook: CommandHook = { type: "command", command: raw.command };
    if (raw.timeout !== undefined) {
        if (typeof raw.timeout === "number" && raw.timeout > 0) hook.timeout = raw.timeout;
        else warnings.push(`${where}: "timeout" must be a positive number of seconds; using 60`);
    }
    return hook;
}

function parseGroups(
    event: HookEvent,
    raw: unknown,
    source: string,
    warnings: string[]
): HookGroup[] {
    if (!Array.isArray(raw)) {
        warnings.push(`${source}: hooks.${event} must be an array; ignored`);
        return [];
    }
    const groups: HookGroup[] = [];
    raw.forEach((entry, index) => {
        const where = `${source}: hooks.${event}[${index}]`;
        if (!isRecord(entry) || !Array.isArray(entry.hooks)) {
            warnings.push(`${where} must be {"matcher": …, "hooks": [...]}; ignored`);
            return;
        }
        const matcher = entry.matcher === undefined ? "" : entry.matcher;
        if (typeof matcher !== "string") {
            warnings.push(`${where}: "matcher" must be a string; ignored`);
            return;
        }
        const problem = matcherProblem(matcher);
        if (problem) {
            warnings.push(`${where}: ${problem}; ignored`);
            return;
        }
        const hooks = entry.hooks
            .map((hook, i) => parseHook(hook, `${where}.hooks[${i}]`, warnings))
            .filter((hook): hook is CommandHook => hook !== undefined);
        if (hooks.length > 0) groups.push({ matcher, hooks, source });
    });
    return groups;
}

/** Parses one settings object's `hooks`. */
export function parseHookSettings(json: unknown, source: string): LoadedHookSettings {
    const warnings: string[] = [];
    const settings: HookSettings = {};
    if (!isRecord(json)) {
        return { settings, warnings: [`${source}: settings must be a JSON object; hooks ignored`] };
    }
    if (json.hooks === undefined) return { settings, warnings };
    if (!isRecord(json.hooks)) {
        return { settings, warnings: [`${source}: "hooks" must be an object; hooks ignored`] };
    }
    for (const [event, raw] of Object.entries(json.hooks)) {
        if (!EVENT_SET.has(event)) {
            warnings.push(`${source}: hook event "${event}" is not supported by North; ignored`);
            continue;
        }
        const groups = parseGroups(event as HookEvent, raw, source, warnings);
        if (groups.length > 0) settings[event as HookEvent] = groups;
    }
    return { settings, warnings };
}

/** One settings file: already parsed (`json`), its text, or the reason it could not be read. */
export interface HookSettingsSource {
    source: string;
    json?: unknown;
    text?: string;
    error?: string;
}

/**
 * Merges the hooks of several settings files, in order. A file with
 * `"disableAllHooks": true` turns every hook off, as in Claude Code.
 */
export function mergeHookSettings(sources: HookSettingsSource[]): LoadedHookSettings {
    const merged: HookSettings = {};
    const warnings: string[] = [];
    let disabled = false;
    for (const { source, text, error, json: given } of sources) {
        if (error !== undefined) {
            warnings.push(`${source}: cannot read (${error}); hooks ignored`);
            continue;
        }
        let json = given;
        if (json === undefined) {
            if (text === undefined) continue;
            try {
                json = JSON.parse(text);
            } catch (parseError) {
                warnings.push(
                    `${source}: invalid JSON (${(parseError as Error).message}); hooks from this file are ignored`
                );
                continue;
            }
        }
        if (isRecord(json) && json.disableAllHooks === true) disabled = true;
        const parsed = parseHookSettings(json, source);
        warnings.push(...parsed.warnings);
        for (const event of HOOK_EVENTS) {
            const groups = parsed.settings[event];
            if (groups) merged[event] = [...(merged[event] ?? []), ...groups];
        }
    }
    return { settings: disabled ? {} : merged, warnings };
}

/** Reads `path` for `mergeHookSettings`: a missing file is no hooks, silently. */
export async function readHookSettingsFile(path: string): Promise<HookSettingsSource> {
    try {
        // A FIFO named like a settings file must not hang start-up.
        return { source: path, text: readRegularTextSync(path) };
    } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOENT" || code === "ENOTDIR") return { source: path };
        return { source: path, error: (error as Error).message };
    }
}

/** Loads and merges the hooks of `paths`, in order (see `mergeHookSettings`). */
export async function loadHookSettings(paths: string[]): Promise<LoadedHookSettings> {
    return mergeHookSettings(await Promise.all(paths.map(readHookSettingsFile)));
}
