/**
 * `.claude-plugin/marketplace.json`: a catalogue of plugins. A bad entry is
 * skipped with a warning (the rest of the catalogue stays usable); sources
 * are data here — nothing is fetched.
 */
import { normalize, resolve } from "node:path";
import { isPathInside } from "../../util/read-regular-file";
import { PLUGIN_NAME } from "./manifest";

export interface MarketplaceEntry {
    name: string;
    source: string | Record<string, unknown>;
    description?: string;
    version?: string;
    category?: string;
    /** `false`: the entry is the plugin's whole definition. */
    strict: boolean;
    /** The entry as written (component fields, author…), for `readPlugin`'s `entry`. */
    raw: Record<string, unknown>;
}

export interface MarketplaceManifest {
    name: string;
    owner?: { name: string };
    description?: string;
    plugins: MarketplaceEntry[];
    /** `metadata.pluginRoot`: the folder bare plugin sources are relative to. */
    pluginRoot?: string;
}

export type MarketplaceManifestResult =
    { ok: true; manifest: MarketplaceManifest; warnings: string[] } | { ok: false; error: string };

function isObject(value: unknown): value is Record<string, unknown> {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}

const KNOWN_TOP = new Set([
    "$schema",
    "name",
    "owner",
    "description",
    "version",
    "plugins",
    "metadata",
]);

function readEntry(
    raw: unknown,
    index: number,
    file: string,
    warnings: string[]
): MarketplaceEntry | undefined {
    const where = `${file}: plugins[${index}]`;
    if (!isObject(raw)) {
        warnings.push(`${where} is not an object; skipped`);
        return undefined;
    }
    if (typeof raw.name !== "string" || !PLUGIN_NAME.test(raw.name)) {
        warnings.push(`${where} has no usable "name" (letters, digits, ".", "_", "-"); skipped`);
        return undefined;
    }
    const label = `${file}: plugin ${raw.name}`;
    if (!(
        typeof raw.source === "string" ||
        (isObject(raw.source) && typeof raw.source.source === "string")
    )) {
        warnings.push(`${label} has no "source" (a "./path" or an object with "source"); skipped`);
        return undefined;
    }
    if (raw.strict !== undefined && typeof raw.strict !== "boolean") {
        warnings.push(`${label}: "strict" must be true or false; skipped`);
        return undefined;
    }
    const entry: MarketplaceEntry = {
        name: raw.name,
        source: raw.source,
        strict: raw.strict !== false,
        raw,
    };
    for (const field of ["description", "version", "category"] as const) {
        const value = raw[field];
        if (value === undefined) continue;
        if (typeof value === "string") entry[field] = value;
        else warnings.push(`${label}: "${field}" is not a string; ignored`);
    }
    return entry;
}

/** Parses marketplace.json's text; `file` names it in messages. */
export function parseMarketplaceManifest(text: string, file: string): MarketplaceManifestResult {
    let raw: unknown;
    try {
        raw = JSON.parse(text.replace(/^\uFEFF/, ""));
    } catch (error) {
        return { ok: false, error: `${file}: not valid JSON (${(error as Error).message})` };
    }
    if (!isObject(raw)) return { ok: false, error: `${file}: must be a JSON object` };
    if (typeof raw.name !== "string" || !PLUGIN_NAME.test(raw.name)) {
        return {
            ok: false,
            error: `${file}: "name" must be a kebab-case string (letters, digits, ".", "_", "-")`,
        };
    }
    if (!Array.isArray(raw.plugins))
        return { ok: false, error: `${file}: "plugins" must be a list` };
    const warnings: string[] = [];
    const metadata = isObject(raw.metadata) ? raw.metadata : {};
    const manifest: MarketplaceManifest = { name: raw.name, plugins: [] };
    if (isObject(raw.owner) && typeof raw.owner.name === "string")
        manifest.owner = { name: raw.owner.name };
    else if (raw.owner !== undefined)
        warnings.push(`${file}: "owner" needs a "name" string; ignored`);
    const description =
        typeof raw.description === "string" ? raw.description : metadata.description;
    if (typeof description === "string") manifest.description = description;
    if (typeof metadata.pluginRoot === "string") manifest.pluginRoot = metadata.pluginRoot;
    for (const key of Object.keys(raw)) {
        if (!KNOWN_TOP.has(key))
            warnings.push(`${file}: field "${key}" is not used by North; ignored`);
    }
    const seen = new Set<string>();
    raw.plugins.forEach((item, index) => {
        const entry = readEntry(item, index, file, warnings);
        if (!entry) return;
        if (seen.has(entry.name)) {
            warnings.push(`${file}: plugin ${entry.name} is listed twice; the first entry is used`);
            return;
        }
        seen.add(entry.name);
        manifest.plugins.push(entry);
    });
    return { ok: true, manifest, warnings };
}

export type EntrySource =
    | { kind: "relative"; path: string }
    | { kind: "github"; repo: string; ref?: string; sha?: string }
    | { kind: "git"; url: string; ref?: string; sha?: string; path?: string }
    | { kind: "unsupported"; reason: string };

const SHA = /^[0-9a-f]{40}$/i;
const REPO = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

function refs(raw: Record<string, unknown>): { ref?: string; sha?: string } | string {
    const out: { ref?: string; sha?: string } = {};
    if (raw.ref !== undefined) {
        if (typeof raw.ref !== "string" || raw.ref === "" || raw.ref.startsWith("-"))
            return `"ref" must be a branch or tag name`;
        out.ref = raw.ref;
    }
    if (raw.sha !== undefined) {
        if (typeof raw.sha !== "string" || !SHA.test(raw.sha))
            return `"sha" must be a full 40-hex commit`;
        out.sha = raw.sha.toLowerCase();
    }
    return out;
}

/**
 * Where an entry's plugin comes from. A relative source is resolved from the
 * marketplace root (the folder holding `.claude-plugin/`), or from
 * `pluginRoot` for a bare name, and may not leave it.
 */
export function resolveEntrySource(
    entry: Pick<MarketplaceEntry, "name" | "source">,
    marketplaceRoot: string,
    pluginRoot?: string
): EntrySource {
    const source = entry.source;
    if (typeof source === "string") {
        if (source.startsWith("/") || source.split(/[/\\]/).includes("..")) {
            return {
                kind: "unsupported",
                reason: `source "${source}" leaves the marketplace folder`,
            };
        }
        const base =
            source.startsWith("./") || !pluginRoot
                ? marketplaceRoot
                : resolve(marketplaceRoot, normalize(pluginRoot));
        const path = resolve(base, normalize(source));
        if (!isPathInside(marketplaceRoot, path)) {
            return {
                kind: "unsupported",
                reason: `source "${source}" leaves the marketplace folder`,
            };
        }
        return { kind: "relative", path };
    }
    const kind = source.source;
    const pinned = refs(source);
    if (typeof pinned === "string")
        return { kind: "unsupported", reason: `plugin ${entry.name}: ${pinned}` };
    if (kind === "github") {
        if (typeof source.repo !== "string" || !REPO.test(source.repo)) {
            return {
                kind: "unsupported",
                reason: `plugin ${entry.name}: "repo" must be "owner/repo"`,
            };
        }
        return { kind: "github", repo: source.repo, ...pinned };
    }
    if (kind === "url" || kind === "git-subdir") {
        if (typeof source.url !== "string" || source.url === "" || source.url.startsWith("-")) {
            return { kind: "unsupported", reason: `plugin ${entry.name}: "url" must be a git URL` };
        }
        const url =
            kind === "git-subdir" && REPO.test(source.url)
                ? `https://github.com/${source.url}.git`
                : source.url;
        const out: EntrySource = { kind: "git", url, ...pinned };
        if (kind === "git-subdir") {
            if (
                typeof source.path !== "string" ||
                source.path.split(/[/\\]/).includes("..") ||
                source.path.startsWith("/")
            ) {
                return {
                    kind: "unsupported",
                    reason: `plugin ${entry.name}: "path" must be a folder inside the repository`,
                };
            }
            out.path = source.path;
        }
        return out;
    }
    if (kind === "npm" || kind === "archive" || kind === "command") {
        return {
            kind: "unsupported",
            reason: `plugin ${entry.name}: "${kind}" sources are not supported`,
        };
    }
    return {
        kind: "unsupported",
        reason: `plugin ${entry.name}: unknown source kind ${JSON.stringify(kind)}`,
    };
}
