/**
 * North's settings, from three layers read once at start (`cli/` loads them
 * and passes them down). Lowest precedence first:
 *
 * 1. user: `~/.config/north/config.json` (`$NORTH_CONFIG_DIR/config.json`),
 *    over `settings.json` in the same folder (read for its hooks since before
 *    config.json could hold them);
 * 2. project: `.north/settings.json`, meant to be committed (the older
 *    `.north/autoaccept.json` and `.north/allowlist.json` are no layer: they
 *    move once into the personal store, storage/legacy-approvals.ts);
 * 3. local: `.north/settings.local.json`, personal and git-ignored; North
 *    saves your "always" answers here.
 *
 * A value set in a higher layer replaces a lower one (`editsAutoAccept: false`
 * in the local file turns off a project's auto-accept), except that
 * `allowedCommands` lists add up, every file's `hooks` run and every file's
 * `permissions` rules count (cli/permission-wiring.ts). Project and
 * local files count only in a trusted project (storage/trust.ts); loaders
 * parse the trusted snapshot, never the disk again.
 */
import { join } from "node:path";
import { configDir } from "../paths";
import type { TrustGatedFile } from "../trust";
import { mergeLayers, userConfigPath } from "./plain-load";
import { type Settings, type SettingsKey, type SettingsScope, validateSettings } from "./schema";
import { readRegularTextSync } from "../../util/read-regular-file";

export { mergeLayers, userConfigPath } from "./plain-load";

type Env = Record<string, string | undefined>;

export type LayerKind = "user" | "project" | "local";

/** One settings file as read, with what it validly sets. */
export interface SettingsLayer {
    kind: LayerKind;
    /** Absolute path, for messages and hook sources. */
    path: string;
    settings: Settings;
    /** The file's text, to point at a line (a bad permission rule). */
    text?: string;
}

export const PROJECT_SETTINGS_FILE = ".north/settings.json";
export const LOCAL_SETTINGS_FILE = ".north/settings.local.json";

/** The project layer's files in order. */
export const PROJECT_LAYER_FILES: ReadonlyArray<{ file: TrustGatedFile; kind: LayerKind }> = [
    { file: PROJECT_SETTINGS_FILE, kind: "project" },
    { file: LOCAL_SETTINGS_FILE, kind: "local" },
];

/** Claude Code's files: only their hooks are read, and their other keys are not ours to judge. */
const CLAUDE_HOOK_FILES = [".claude/settings.json", ".claude/settings.local.json"] as const;

/** A file's hooks for the hooks loader (agent/hooks/settings.ts): parsed JSON, or text to parse. */
export interface HookFileSource {
    source: string;
    json?: unknown;
    text?: string;
    error?: string;
}

/** Whether the project's standing permissions allow something without asking. */
export interface StandingApprovals {
    allowedCommands: string[];
    editsAutoAccept: boolean;
    shellAutoApprove: boolean;
}

export interface LoadedSettings {
    /** Every file that was read, lowest precedence first. */
    layers: SettingsLayer[];
    /** The layers merged by precedence (hooks excepted: see `hookSources`). */
    merged: Settings;
    approvals: StandingApprovals;
    /** Files that may hold hooks, in the order their hooks run. */
    hookSources: HookFileSource[];
    warnings: string[];
}

export type UserSettingsResult =
    | { ok: true; layers: SettingsLayer[]; warnings: string[]; path: string }
    | { ok: false; error: string; path: string };

function parseText(
    text: string,
    path: string
): { ok: true; json: unknown } | { ok: false; error: string } {
    try {
        return { ok: true, json: JSON.parse(text) as unknown };
    } catch (error) {
        const message = (error as Error).message;
        // Node 20's messages give an offset only: say where that is.
        const at = /at position (\d+)/.exec(message);
        let where = "";
        if (at && !/line \d+/.test(message)) {
            const before = text.slice(0, Number(at[1])).split("\n");
            where = ` (line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1})`;
        }
        return { ok: false, error: `${path} is not valid JSON: ${message}${where}` };
    }
}

function readText(path: string): { text?: string; error?: string } {
    try {
        return { text: readRegularTextSync(path) };
    } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOENT" || code === "ENOTDIR") return {};
        return { error: `cannot read ${path}: ${(error as Error).message}` };
    }
}

/**
 * Parses and validates one file's text into a layer. `errors` are bad JSON
 * (no layer at all) or bad values (only that key is left out).
 */
export function parseLayer(
    text: string,
    path: string,
    kind: LayerKind,
    keys?: readonly SettingsKey[]
): { layer?: SettingsLayer; warnings: string[]; errors: string[] } {
    const parsed = parseText(text, path);
    if (!parsed.ok) return { warnings: [], errors: [parsed.error] };
    const scope: SettingsScope = kind === "user" ? "user" : "project";
    const { settings, issues } = validateSettings(parsed.json, path, scope, keys);
    return {
        layer: { kind, path, settings, text },
        warnings: issues.filter((i) => !i.fatal).map((i) => i.message),
        errors: issues.filter((i) => i.fatal).map((i) => i.message),
    };
}

/** Reads one optional file into `layers`, reporting every problem as a warning. */
function addLayer(
    layers: SettingsLayer[],
    warnings: string[],
    read: ReturnType<typeof parseLayer>
): void {
    warnings.push(...read.warnings);
    for (const error of read.errors) {
        warnings.push(read.layer ? `${error}; ignored` : `${error}; its settings are ignored`);
    }
    if (read.layer) layers.push(read.layer);
}

/**
 * Reads the user layer. `config.json` must be valid (a broken one is an
 * error: North cannot know which model to use); `settings.json` beside it,
 * read for hooks, only warns.
 */
export function loadUserSettings(env: Env = process.env): UserSettingsResult {
    const path = userConfigPath(env);
    const layers: SettingsLayer[] = [];
    const warnings: string[] = [];
    const hooksFile = join(configDir(env), "settings.json");
    const hooksRead = readText(hooksFile);
    if (hooksRead.error !== undefined)
        warnings.push(`${hooksRead.error}; its settings are ignored`);
    if (hooksRead.text !== undefined) {
        addLayer(layers, warnings, parseLayer(hooksRead.text, hooksFile, "user"));
    }
    const configRead = readText(path);
    if (configRead.error !== undefined) return { ok: false, path, error: configRead.error };
    if (configRead.text !== undefined) {
        const read = parseLayer(configRead.text, path, "user");
        if (read.errors.length > 0) return { ok: false, path, error: read.errors.join("; ") };
        warnings.push(...read.warnings);
        if (read.layer) layers.push(read.layer);
    }
    return { ok: true, layers, warnings, path };
}

/**
 * The project and local layers from the trusted snapshot's texts (see
 * `readProjectConfig`). A broken file is reported and counts for nothing.
 */
export function parseProjectLayers(
    repoRoot: string,
    files: Partial<Record<TrustGatedFile, string>>
): { layers: SettingsLayer[]; warnings: string[] } {
    const layers: SettingsLayer[] = [];
    const warnings: string[] = [];
    for (const { file, kind } of PROJECT_LAYER_FILES) {
        const text = files[file];
        if (text === undefined) continue;
        addLayer(layers, warnings, parseLayer(text, join(repoRoot, file), kind));
    }
    return { layers, warnings };
}

export function approvalsOf(merged: Settings): StandingApprovals {
    return {
        allowedCommands: merged.allowedCommands ?? [],
        editsAutoAccept: merged.editsAutoAccept === true,
        shellAutoApprove: merged.shellAutoApprove === true,
    };
}

/**
 * Everything: the user layers (already read at start), then the project's
 * when it is trusted (`projectFiles` undefined otherwise). Hooks run from
 * North's project files first, then the user's, then Claude Code's.
 */
export function resolveSettings(
    repoRoot: string,
    user: readonly SettingsLayer[],
    projectFiles: Partial<Record<TrustGatedFile, string>> | undefined
): LoadedSettings {
    const project = projectFiles
        ? parseProjectLayers(repoRoot, projectFiles)
        : { layers: [], warnings: [] };
    const layers = [...user, ...project.layers];
    const merged = mergeLayers(layers);
    const hookLayer = (layer: SettingsLayer): HookFileSource[] =>
        layer.settings.hooks !== undefined || layer.settings.disableAllHooks !== undefined
            ? [{ source: layer.path, json: layer.settings }]
            : [];
    const hookSources = [
        ...project.layers.flatMap(hookLayer),
        ...user.flatMap(hookLayer),
        ...CLAUDE_HOOK_FILES.map((file) => ({
            source: join(repoRoot, file),
            text: projectFiles?.[file],
        })),
    ];
    return {
        layers,
        merged,
        approvals: approvalsOf(merged),
        hookSources,
        warnings: project.warnings,
    };
}
