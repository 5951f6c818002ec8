/**
 * `.claude-plugin/plugin.json` and the plugin fields of a marketplace entry,
 * checked as Claude Code documents them: `name` is the only required field,
 * a wrong type fails the plugin (naming the file and the field), unknown
 * top-level keys are warnings, and fields North does not support are listed
 * so the rest of the plugin still loads.
 */

/** A component field: paths (`./x`), inline objects, or both. */
export type ComponentSpec = Array<string | Record<string, unknown>>;

export interface PluginManifest {
    name?: string;
    version?: string;
    description?: string;
    author?: { name: string; email?: string; url?: string };
    homepage?: string;
    repository?: string;
    license?: string;
    keywords?: string[];
    displayName?: string;
    defaultEnabled?: boolean;
    /** Path fields that replace their default folder. */
    commands?: string[];
    agents?: string[];
    outputStyles?: string[];
    /** Adds to `skills/`. */
    skills?: string[];
    /** Each adds to its default file (`hooks/hooks.json`, `.mcp.json`, `.lsp.json`). */
    hooks?: ComponentSpec;
    mcpServers?: ComponentSpec;
    lspServers?: ComponentSpec;
    /** Fields of the format North does not support, one entry each. */
    unsupported: string[];
    warnings: string[];
}

export type ManifestResult = { ok: true; manifest: PluginManifest } | { ok: false; error: string };

/** The component fields: a manifest that sets any of them "declares components". */
export const COMPONENT_FIELDS = [
    "commands",
    "agents",
    "skills",
    "outputStyles",
    "hooks",
    "mcpServers",
    "lspServers",
] as const;

const STRING_FIELDS = [
    "version",
    "description",
    "homepage",
    "repository",
    "license",
    "displayName",
] as const;

const IGNORED_FIELDS = new Set(["$schema", "metadata"]);

/** Known fields North does not act on, with why (shown in the inventory). */
const UNSUPPORTED_FIELDS: Record<string, string> = {
    dependencies: "plugin dependencies are not supported; install them yourself",
    userConfig: "user configuration of plugins is not supported",
    channels: "message channels are not supported",
    workflows: "workflows are not supported",
    experimental: "experimental parts (themes, monitors) are not supported",
    monitors: "monitors are not supported",
};

/** Fields only a marketplace entry has. */
export const ENTRY_FIELDS = new Set(["source", "category", "tags", "strict", "relevance"]);

/** A name that can prefix a command: `my-plugin`, `tools.v2`; no `:`, `/`, `@` or spaces. */
export const PLUGIN_NAME = /^[a-z0-9][a-z0-9._-]*$/i;

function isObject(value: unknown): value is Record<string, unknown> {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}

class ManifestError extends Error {}

function pathList(value: unknown, where: string, field: string): string[] {
    if (typeof value === "string") return [value];
    if (Array.isArray(value) && value.every((item) => typeof item === "string")) return value;
    throw new ManifestError(
        `${where}: "${field}" must be a path or a list of paths (strings starting with "./")`
    );
}

function componentSpec(value: unknown, where: string, field: string): ComponentSpec {
    if (typeof value === "string" || isObject(value)) return [value];
    if (Array.isArray(value) && value.every((item) => typeof item === "string" || isObject(item))) {
        return value as ComponentSpec;
    }
    throw new ManifestError(`${where}: "${field}" must be a path, an object, or a list of them`);
}

function readAuthor(value: unknown, where: string): PluginManifest["author"] {
    if (!isObject(value) || typeof value.name !== "string") {
        throw new ManifestError(`${where}: "author" must be an object with a "name" string`);
    }
    const author: NonNullable<PluginManifest["author"]> = { name: value.name };
    if (typeof value.email === "string") author.email = value.email;
    if (typeof value.url === "string") author.url = value.url;
    return author;
}

/**
 * Checks the plugin fields of `raw` (a parsed plugin.json, or a marketplace
 * entry when `entry` is set: its own fields are then allowed). `where`
 * names the file (and entry) in messages.
 */
export function checkManifest(
    raw: unknown,
    where: string,
    o: { entry?: boolean } = {}
): ManifestResult {
    if (!isObject(raw)) return { ok: false, error: `${where}: must be a JSON object` };
    const manifest: PluginManifest = { unsupported: [], warnings: [] };
    try {
        if (raw.name !== undefined) {
            if (typeof raw.name !== "string")
                throw new ManifestError(`${where}: "name" must be a string`);
            if (!PLUGIN_NAME.test(raw.name)) {
                throw new ManifestError(
                    `${where}: "name" ${JSON.stringify(raw.name)} cannot prefix a command; use letters, digits, ".", "_" and "-" (kebab-case)`
                );
            }
            if (raw.name !== raw.name.toLowerCase()) {
                manifest.warnings.push(`${where}: "name" ${raw.name} is not kebab-case`);
            }
            manifest.name = raw.name;
        }
        for (const field of STRING_FIELDS) {
            const value = raw[field];
            if (value === undefined) continue;
            if (typeof value !== "string")
                throw new ManifestError(`${where}: "${field}" must be a string`);
            manifest[field] = value;
        }
        if (raw.author !== undefined) manifest.author = readAuthor(raw.author, where);
        if (raw.keywords !== undefined) {
            if (!Array.isArray(raw.keywords) || !raw.keywords.every((k) => typeof k === "string")) {
                throw new ManifestError(`${where}: "keywords" must be a list of strings`);
            }
            manifest.keywords = raw.keywords as string[];
        }
        if (raw.defaultEnabled !== undefined) {
            if (typeof raw.defaultEnabled !== "boolean") {
                throw new ManifestError(`${where}: "defaultEnabled" must be true or false`);
            }
            manifest.defaultEnabled = raw.defaultEnabled;
        }
        if (raw.metadata !== undefined && !isObject(raw.metadata)) {
            manifest.warnings.push(`${where}: "metadata" is not an object; ignored`);
        }
        for (const field of ["commands", "agents", "outputStyles", "skills"] as const) {
            if (raw[field] !== undefined) manifest[field] = pathList(raw[field], where, field);
        }
        for (const field of ["hooks", "mcpServers", "lspServers"] as const) {
            if (raw[field] !== undefined) manifest[field] = componentSpec(raw[field], where, field);
        }
    } catch (error) {
        if (error instanceof ManifestError) return { ok: false, error: error.message };
        throw error;
    }
    for (const spec of manifest.mcpServers ?? []) {
        if (typeof spec === "string" && spec.toLowerCase().endsWith(".mcpb")) {
            manifest.unsupported.push(`mcpServers ${spec} (.mcpb bundles are not supported)`);
        }
    }
    for (const key of Object.keys(raw)) {
        if (key in manifest || IGNORED_FIELDS.has(key) || key === "author" || key === "name")
            continue;
        if ((COMPONENT_FIELDS as readonly string[]).includes(key)) continue;
        if (o.entry && ENTRY_FIELDS.has(key)) continue;
        const why = UNSUPPORTED_FIELDS[key];
        if (why) manifest.unsupported.push(`${key} (${why})`);
        else manifest.warnings.push(`${where}: unknown field "${key}" ignored`);
    }
    return { ok: true, manifest };
}

/** Parses plugin.json's text; `file` names it in messages. */
export function parsePluginManifest(text: string, file: string): ManifestResult {
    let raw: unknown;
    try {
        raw = JSON.parse(text.replace(/^\uFEFF/, ""));
    } catch (error) {
        return { ok: false, error: `${file}: not valid JSON (${(error as Error).message})` };
    }
    return checkManifest(raw, file);
}

/** True when the manifest sets any component field. */
export function declaresComponents(manifest: PluginManifest): boolean {
    return COMPONENT_FIELDS.some((field) => manifest[field] !== undefined);
}
