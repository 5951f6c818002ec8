/**
 * `readPlugin`: a plugin folder (and its marketplace entry) read into a
 * `LoadedPlugin`. Pure reading — nothing of the plugin runs, nothing is
 * fetched, `${CLAUDE_PLUGIN_DATA}` is not created.
 */
import { existsSync, statSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { basename, join } from "node:path";
import { readRegularFileSync, unreadableText } from "../../util/read-regular-file";
import {
    PluginConfigError,
    readHooks,
    readLspServers,
    readMcpServers,
    type ConfigContext,
} from "./configs";
import {
    checkManifest,
    declaresComponents,
    PLUGIN_NAME,
    parsePluginManifest,
    type ComponentSpec,
    type PluginManifest,
} from "./manifest";
import { markdownParts, skillDirs, type PartContext } from "./parts";
import { manifestPath, PluginPathError } from "./paths";
import { pluginId, type LoadedPlugin } from "./types";

export interface ReadPluginOptions {
    /** The plugin folder (absolute; the installed copy). */
    root: string;
    /** For the id `name@marketplace`. */
    marketplace: string;
    /** `${CLAUDE_PLUGIN_DATA}` (pluginDataDir(...)); not created by reading. */
    dataDir: string;
    /** `${CLAUDE_PROJECT_DIR}`. */
    projectDir: string;
    /** Its marketplace entry: merged (strict, default) or the whole definition (strict: false). */
    entry?: Record<string, unknown>;
}

export type ReadPluginResult = { ok: true; plugin: LoadedPlugin } | { ok: false; error: string };

const MANIFEST = ".claude-plugin/plugin.json";
const MAX_MANIFEST_BYTES = 1024 * 1024;

/** Root items North does not act on, with why. */
const UNSUPPORTED_ROOT_ITEMS: Array<[string, string]> = [
    ["bin", "bin/ (adding a plugin's programs to PATH is not supported)"],
    ["settings.json", "settings.json (plugin settings are not supported)"],
    ["monitors/monitors.json", "monitors/ (monitors are not supported)"],
    ["workflows", "workflows/ (workflows are not supported)"],
    ["themes", "themes/ (themes are not supported)"],
];

function readManifestFile(
    root: string
): { ok: true; manifest?: PluginManifest } | { ok: false; error: string } {
    const file = join(root, MANIFEST);
    if (!existsSync(file)) return { ok: true };
    let text: string;
    try {
        const read = readRegularFileSync(file, {
            cap: MAX_MANIFEST_BYTES,
            insideRoot: root,
            rootName: "the plugin folder",
            label: MANIFEST,
        });
        if (read.truncated) return { ok: false, error: `${MANIFEST} is larger than 1 MB` };
        text = read.bytes.toString("utf8");
    } catch (error) {
        return {
            ok: false,
            error: unreadableText(error, (message) => `${MANIFEST}: cannot read (${message})`),
        };
    }
    return parsePluginManifest(text, MANIFEST);
}

function mergeLists<T>(a: T[] | undefined, b: T[] | undefined): T[] | undefined {
    if (a === undefined) return b;
    if (b === undefined) return a;
    return [...a, ...b.filter((item) => !a.includes(item))];
}

/** The definition the parts come from: plugin.json, the entry, or both merged. */
function effectiveManifest(
    file: PluginManifest | undefined,
    entry: PluginManifest | undefined,
    strict: boolean
): { ok: true; manifest: PluginManifest } | { ok: false; error: string } {
    if (!entry) return { ok: true, manifest: file ?? { unsupported: [], warnings: [] } };
    if (!strict && file && declaresComponents(file)) {
        return {
            ok: false,
            error: "conflicting manifests: both plugin.json and marketplace entry specify components (the entry says strict: false)",
        };
    }
    const base = file ?? { unsupported: [], warnings: [] };
    const merged: PluginManifest = {
        ...entry,
        ...Object.fromEntries(Object.entries(base).filter(([, v]) => v !== undefined)),
        unsupported: [
            ...base.unsupported,
            ...entry.unsupported.filter((u) => !base.unsupported.includes(u)),
        ],
        warnings: [...base.warnings, ...entry.warnings],
    };
    for (const field of ["commands", "agents", "outputStyles", "skills"] as const) {
        const list = mergeLists(base[field], entry[field]);
        if (list) merged[field] = list;
    }
    for (const field of ["hooks", "mcpServers", "lspServers"] as const) {
        const list = mergeLists<ComponentSpec[number]>(base[field], entry[field]);
        if (list) merged[field] = list;
    }
    return { ok: true, manifest: merged };
}

function isFolder(path: string): boolean {
    try {
        return statSync(path).isDirectory();
    } catch {
        return false;
    }
}

/**
 * The folders of a replacing field: the manifest's paths, else the default
 * folder. A default folder that exists while the manifest points elsewhere is
 * ignored with a warning.
 */
function replacingPaths(
    root: string,
    written: string[] | undefined,
    defaultDir: string,
    field: string,
    where: string,
    warnings: string[]
): Array<{ path: string; fromManifest: boolean }> {
    const fallback = join(root, defaultDir);
    if (written === undefined) return [{ path: fallback, fromManifest: false }];
    const paths = written.map((w) => ({
        path: manifestPath(root, w, `${where} "${field}"`),
        fromManifest: true,
    }));
    const intoDefault = paths.some((p) => p.path === fallback || p.path.startsWith(`${fallback}/`));
    if (isFolder(fallback) && !intoDefault) {
        warnings.push(`${defaultDir}/ is ignored: the manifest's "${field}" replaces it`);
    }
    return paths;
}

/** Reads the plugin at `o.root`. Never throws for a bad plugin: the result says why it failed. */
export async function readPlugin(o: ReadPluginOptions): Promise<ReadPluginResult> {
    let root: string;
    try {
        root = await realpath(o.root);
        if (!statSync(root).isDirectory()) return { ok: false, error: `${o.root} is not a folder` };
    } catch (error) {
        return {
            ok: false,
            error: `${o.root}: cannot read the plugin folder (${(error as Error).message})`,
        };
    }
    const fromFile = readManifestFile(root);
    if (!fromFile.ok) return fromFile;
    let entry: PluginManifest | undefined;
    const strict = o.entry?.strict !== false;
    if (o.entry) {
        const entryName = typeof o.entry.name === "string" ? o.entry.name : "?";
        const checked = checkManifest(o.entry, `marketplace entry ${entryName}`, { entry: true });
        if (!checked.ok) return checked;
        entry = checked.manifest;
    }
    const effective = effectiveManifest(fromFile.manifest, entry, strict);
    if (!effective.ok) return effective;
    const manifest = effective.manifest;
    // The entry's name is the one enabledPlugins and /plugin use.
    const name = entry?.name ?? fromFile.manifest?.name ?? basename(root);
    if (!PLUGIN_NAME.test(name)) {
        return {
            ok: false,
            error: `the plugin folder's name "${name}" cannot prefix a command; give it a plugin.json "name"`,
        };
    }
    const warnings = [...manifest.warnings];
    if (entry?.name && fromFile.manifest?.name && entry.name !== fromFile.manifest.name) {
        warnings.push(
            `plugin.json names it ${fromFile.manifest.name}; the marketplace entry's name ${entry.name} is used`
        );
    }
    const unsupported = [...manifest.unsupported];
    const where = fromFile.manifest ? MANIFEST : "the marketplace entry";
    const dataDir = o.dataDir;
    const configs: ConfigContext = {
        root,
        vars: { root, dataDir, projectDir: o.projectDir },
        warnings,
        unsupported,
    };
    const parts: PartContext = { root, name, warnings };
    try {
        const commands = markdownParts(
            parts,
            replacingPaths(root, manifest.commands, "commands", "commands", where, warnings),
            true
        );
        const agents = markdownParts(
            parts,
            replacingPaths(root, manifest.agents, "agents", "agents", where, warnings),
            true
        );
        const outputStyles = markdownParts(
            parts,
            replacingPaths(
                root,
                manifest.outputStyles,
                "output-styles",
                "outputStyles",
                where,
                warnings
            ),
            false
        );
        const skillPaths = [{ path: join(root, "skills"), fromManifest: false }];
        for (const written of manifest.skills ?? []) {
            skillPaths.push({
                path: manifestPath(root, written, `${where} "skills"`, true),
                fromManifest: true,
            });
        }
        const hasSkillsFolder = isFolder(join(root, "skills"));
        if (!hasSkillsFolder && manifest.skills === undefined)
            skillPaths.push({ path: root, fromManifest: false });
        const skills = skillDirs(parts, skillPaths);
        const hooks = readHooks(configs, manifest.hooks, where);
        const mcpServers = readMcpServers(configs, manifest.mcpServers, where);
        const lspServers = readLspServers(configs, manifest.lspServers, where);
        for (const [item, why] of UNSUPPORTED_ROOT_ITEMS) {
            if (existsSync(join(root, item))) unsupported.push(why);
        }
        if (existsSync(join(root, "package.json"))) {
            unsupported.push("package.json (a plugin's Node dependencies are not installed)");
        }
        const plugin: LoadedPlugin = {
            id: pluginId(name, o.marketplace),
            name,
            marketplace: o.marketplace,
            root,
            dataDir,
            projectDir: o.projectDir,
            commands,
            agents,
            skillDirs: skills,
            hooks,
            mcpServers,
            lspServers,
            outputStyles,
            unsupported,
            warnings,
        };
        if (manifest.version !== undefined) plugin.version = manifest.version;
        if (manifest.description !== undefined) plugin.description = manifest.description;
        return { ok: true, plugin };
    } catch (error) {
        if (error instanceof PluginPathError || error instanceof PluginConfigError) {
            return { ok: false, error: error.message };
        }
        throw error;
    }
}
