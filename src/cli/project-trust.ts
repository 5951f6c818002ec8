/**
 * What a repository's own configuration would run or allow, listed for the
 * trust question, and the decision for this start: a stored decision for the
 * same files, `--trust`, or the front-end's answer (the chat asks; print mode
 * never asks and skips). See storage/trust.ts.
 */
import { createHash } from "node:crypto";
import { dirname, relative, sep } from "node:path";
import { parseHookSettings } from "../agent/hooks/settings";
import { HOOK_EVENTS } from "../agent/hooks/types";
import { legacyApprovalLayers } from "../storage/legacy-approvals";
import { parseProjectLayers } from "../storage/settings/load";
import {
    type ProjectConfigSnapshot,
    type ProjectTrust,
    type TrustGatedFile,
    type TrustStore,
    createProjectTrust,
    lspServerEntries,
    readProjectConfig,
} from "../storage/trust";
import {
    type DeclaredPlugins,
    declaredPluginText,
    describeMarketplaceSource,
    readDeclaredPlugins,
} from "./project-declared-plugins";

/** One thing the project would run or allow once trusted. */
export interface TrustItem {
    /** `script`: a file a hook or server runs; `git`: a program the git configuration names. */
    kind:
        | "mcp"
        | "lsp"
        | "hook"
        | "status"
        | "approval"
        | "unreadable"
        | "script"
        | "git"
        /** A plugin or marketplace the project expects (`enabledPlugins`, `extraKnownMarketplaces`). */
        | "plugin"
        /** An output style: repository text added to the system prompt. */
        | "style";
    /** The file it comes from, relative to the project root (absolute when outside it). */
    source: string;
    /** What runs or is allowed, as configured (variables unexpanded). */
    text: string;
    /** What it is across decisions, when not its kind, source and text (a script: its path). */
    key?: string;
    /** Digest of what it runs, when its text does not say it all (a script, a git hook). */
    digest?: string;
}

export interface TrustInventory {
    repoRoot: string;
    items: TrustItem[];
    /** The plugins and marketplaces the project expects, for the install offer after trust. */
    plugins?: DeclaredPlugins;
}

/** Settings files that may hold hooks, in the order they are merged. */
export const PROJECT_HOOK_FILES = [
    ".north/settings.json",
    ".north/settings.local.json",
    ".claude/settings.json",
    ".claude/settings.local.json",
] as const satisfies readonly TrustGatedFile[];

function isRecord(value: unknown): value is Record<string, unknown> {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseJson(text: string | undefined): unknown {
    if (text === undefined) return undefined;
    try {
        return JSON.parse(text) as unknown;
    } catch {
        return undefined;
    }
}

function mcpItems(text: string | undefined): string[] {
    const json = parseJson(text);
    const servers = isRecord(json) ? json.mcpServers : undefined;
    if (!isRecord(servers)) return text === undefined ? [] : ["(not valid MCP configuration)"];
    return Object.entries(servers).map(([name, raw]) => {
        if (!isRecord(raw)) return `${name}: (invalid entry)`;
        if (typeof raw.url === "string") {
            const headers = isRecord(raw.headers) ? Object.keys(raw.headers) : [];
            return `${name}: connects to ${raw.url}${headers.length > 0 ? ` (headers: ${headers.join(", ")})` : ""}`;
        }
        const args = Array.isArray(raw.args) ? raw.args.map((a) => String(a)) : [];
        const env = isRecord(raw.env) ? Object.keys(raw.env) : [];
        return `${name}: runs ${[String(raw.command ?? "?"), ...args].join(" ")}${env.length > 0 ? ` (env: ${env.join(", ")})` : ""}`;
    });
}

function hookItems(source: TrustGatedFile, text: string | undefined): string[] {
    const json = parseJson(text);
    if (json === undefined) return text === undefined ? [] : ["(not valid JSON)"];
    const { settings } = parseHookSettings(json, source);
    const out: string[] = [];
    for (const event of HOOK_EVENTS) {
        for (const group of settings[event] ?? []) {
            const on = group.matcher && group.matcher !== "*" ? ` ${group.matcher}` : "";
            for (const hook of group.hooks) out.push(`${event}${on}: runs ${hook.command}`);
        }
    }
    return out;
}

/** The standing approvals of each project settings file, parsed as the settings loader does. */
function approvalItems(repoRoot: string, snapshot: ProjectConfigSnapshot): TrustItem[] {
    const items: TrustItem[] = [];
    const project = parseProjectLayers(repoRoot, snapshot.files).layers;
    const layers = [
        ...project.filter((l) => l.kind === "project"),
        // Trusting moves what these grant into the personal store: the question lists it.
        ...legacyApprovalLayers(repoRoot, snapshot.files),
        ...project.filter((l) => l.kind !== "project"),
    ];
    for (const { path, settings } of layers) {
        const source = relative(repoRoot, path).split(sep).join("/") as TrustGatedFile;
        const add = (text: string) => items.push({ kind: "approval", source, text });
        if (settings.shellAutoApprove === true) add("runs every command without asking");
        if (settings.editsAutoAccept === true) add("applies every edit without review");
        // The provider's searches run without review, and each one costs money.
        if (settings.webSearch?.enabled === true) add("turns on the provider's web search");
        for (const command of settings.allowedCommands ?? [])
            add(`runs without asking: ${command}`);
        // Deny and ask rules only take permissions away; they hold without trust.
        const allows = settings.permissions?.allow;
        for (const rule of Array.isArray(allows) ? (allows as unknown[]) : [])
            add(`allows without asking: ${typeof rule === "string" ? rule : JSON.stringify(rule)}`);
    }
    return items;
}

/** The files hooks and servers run: inside the project fingerprinted, outside only named. */
function scriptItems(snapshot: ProjectConfigSnapshot): TrustItem[] {
    return snapshot.scripts.map((script) => {
        if (!script.inside) {
            return {
                kind: "script",
                source: script.source,
                text: `${script.path} (outside the project: not checked for changes)`,
            };
        }
        const folder = script.path.slice(0, script.path.lastIndexOf("/"));
        const beside =
            script.companions > 0
                ? ` and ${script.companions} more tracked ${script.companions === 1 ? "file" : "files"} in ${folder}/`
                : "";
        const partial = script.partial ? ` (${script.partial})` : "";
        return {
            kind: "script",
            source: script.source,
            text: `${script.path}${beside}${partial}`,
            key: `script\0${script.path}`,
            digest: script.digest,
        };
    });
}

/**
 * The plugins and marketplaces the project expects, each plugin with its state
 * in the user's store. Keyed by id: installing one later is no change to trust.
 */
function pluginItems(plugins: DeclaredPlugins): TrustItem[] {
    const items: TrustItem[] = plugins.plugins.map((plugin) => ({
        kind: "plugin",
        source: plugin.file,
        text: declaredPluginText(plugin),
        key: `plugin\0${plugin.id}`,
    }));
    const named = new Set(plugins.plugins.map((p) => p.marketplace));
    for (const market of plugins.marketplaces) {
        if (named.has(market.name)) continue;
        items.push({
            kind: "plugin",
            source: market.file,
            text: `marketplace ${market.name}: ${describeMarketplaceSource(market.source)} (not added: north plugin marketplace add)`,
            key: `marketplace\0${market.name}`,
        });
    }
    return items;
}

/**
 * Everything the snapshot's files would run or allow; declared plugins with
 * their state in the store under `dataDirectory` (omitted: as not installed).
 */
export function describeProjectConfig(
    repoRoot: string,
    snapshot: ProjectConfigSnapshot,
    dataDirectory?: string
): TrustInventory {
    const items: TrustItem[] = [];
    const plugins = readDeclaredPlugins(snapshot, dataDirectory);
    for (const text of mcpItems(snapshot.files[".mcp.json"])) {
        items.push({ kind: "mcp", source: ".mcp.json", text });
    }
    for (const server of lspServerEntries(snapshot.files[".lsp.json"])) {
        const args = Array.isArray(server.args) ? server.args.map((a) => String(a)) : [];
        const env = isRecord(server.env) ? Object.keys(server.env) : [];
        const text = `${server.name}: runs ${[String(server.command ?? "?"), ...args].join(" ")}${env.length > 0 ? ` (env: ${env.join(", ")})` : ""}`;
        items.push({ kind: "lsp", source: ".lsp.json", text });
    }
    for (const source of PROJECT_HOOK_FILES) {
        for (const text of hookItems(source, snapshot.files[source])) {
            items.push({ kind: "hook", source, text });
        }
        // The status line's command is the repository's code as much as a hook is.
        const statusLine = (parseJson(snapshot.files[source]) as { statusLine?: unknown })
            ?.statusLine;
        if (isRecord(statusLine) && typeof statusLine.command === "string")
            items.push({ kind: "status", source, text: `runs ${statusLine.command}` });
    }
    items.push(...approvalItems(repoRoot, snapshot));
    items.push(...scriptItems(snapshot));
    for (const program of snapshot.gitPrograms) {
        const { source, text, digest } = program;
        items.push({ kind: "git", source, text, digest, key: digest && `git\0${source}` });
    }
    items.push(...pluginItems(plugins));
    for (const source of Object.keys(snapshot.outputStyles ?? {})) {
        items.push({
            kind: "style",
            source,
            text: "output style: text added to the system prompt",
        });
    }
    for (const [source, reason] of Object.entries(snapshot.unreadable)) {
        items.push({ kind: "unreadable", source, text: `(${reason})` });
    }
    return { repoRoot, items, plugins };
}

/** What an untrusted project's warning names as skipped: git's programs are git's, not skipped. */
const KIND_WORDS: Record<Exclude<TrustItem["kind"], "git">, [string, string]> = {
    mcp: ["MCP server", "MCP servers"],
    lsp: ["language server", "language servers"],
    hook: ["hook", "hooks"],
    status: ["status-line command", "status-line commands"],
    script: ["script", "scripts"],
    approval: ["standing approval", "standing approvals"],
    unreadable: ["unreadable file", "unreadable files"],
    plugin: ["expected plugin or marketplace", "expected plugins and marketplaces"],
    style: ["output style", "output styles"],
};

/** "2 MCP servers (.mcp.json), 1 hook (.claude/settings.json)": for one warning line. */
export function summarizeInventory(inventory: TrustInventory): string {
    const parts: string[] = [];
    for (const kind of Object.keys(KIND_WORDS) as Array<keyof typeof KIND_WORDS>) {
        const items = inventory.items.filter((i) => i.kind === kind);
        if (items.length === 0) continue;
        const sources = [...new Set(items.map((i) => i.source))].join(", ");
        const [one, many] = KIND_WORDS[kind];
        parts.push(`${items.length} ${items.length === 1 ? one : many} (${sources})`);
    }
    return parts.join(", ");
}

/** Hashed: the record stays small however long a configured command is. */
const itemKey = (item: TrustItem): string =>
    createHash("sha256")
        .update(item.key ?? `${item.kind}\0${item.source}\0${item.text}`)
        .digest("hex");

/** What the question showed, for the trust record: key → digest. */
function itemDigests(inventory: TrustInventory): Record<string, string> {
    return Object.fromEntries(inventory.items.map((i) => [itemKey(i), i.digest ?? ""]));
}

/** Marks what is new or changed since the user last trusted the project. */
function markChanges(inventory: TrustInventory, before: Record<string, string>): TrustInventory {
    const items = inventory.items.map((item) => {
        const previous = before[itemKey(item)];
        if (previous === (item.digest ?? "")) return item;
        const what = previous === undefined ? "new" : "changed";
        return { ...item, text: `${item.text} (${what} since you trusted this project)` };
    });
    return { ...inventory, items };
}

/**
 * How a front-end settles an untrusted project with something to run: the
 * chat asks (true: trust and remember), print mode answers from `--trust`.
 */
export type TrustDecider = (inventory: TrustInventory) => Promise<TrustAnswer>;

export type TrustAnswer =
    /** Trusted and remembered for these files. */
    | "trust"
    /** Trusted for this run only (`--trust`). */
    | "trust-once"
    | "untrusted";

export interface ProjectTrustDecision {
    /** The gated files as read for the decision; loaders parse these. */
    snapshot: ProjectConfigSnapshot;
    /** Whether the project's own configuration may act in this session. */
    trusted: boolean;
    /** What was there (empty when nothing needed trust). */
    inventory: TrustInventory;
    /** Live trust for standing approvals (changes behind North's back stop counting). */
    live: ProjectTrust;
    /** What the project expects of plugins; empty when it is not trusted (nothing of it counts). */
    declared: DeclaredPlugins;
}

/**
 * Decides trust for this start. A project without gated files, or whose files
 * are the ones the user trusted, needs no question; otherwise `decide` answers.
 */
export async function settleProjectTrust(
    repoRoot: string,
    store: TrustStore,
    decide: TrustDecider,
    options: { dataDir?: string } = {}
): Promise<ProjectTrustDecision> {
    const snapshot = readProjectConfig(repoRoot);
    const { fingerprint } = snapshot;
    // The store lives in North's data folder, beside the plugins whose state the question shows.
    const described = describeProjectConfig(
        repoRoot,
        snapshot,
        options.dataDir ?? dirname(store.path)
    );
    const before = store.trustedItems(repoRoot);
    const inventory =
        before && fingerprint !== null && !store.isTrusted(repoRoot, fingerprint)
            ? markChanges(described, before)
            : described;
    let answer: TrustAnswer;
    if (fingerprint === null || store.isTrusted(repoRoot, fingerprint)) answer = "trust";
    else if (inventory.items.every((item) => item.kind === "git")) {
        // Gated files that configure nothing (e.g. `{}`) grant nothing: no question. Git's
        // programs alone neither: saying no would switch nothing of them off.
        answer = "trust";
    } else answer = await decide(inventory);
    if (answer === "trust" && fingerprint !== null && !store.isTrusted(repoRoot, fingerprint)) {
        try {
            store.trust(repoRoot, fingerprint, itemDigests(described));
        } catch {
            // not saved: trusted for this session, asked again next time
        }
    }
    const trusted = answer !== "untrusted";
    return {
        snapshot,
        trusted,
        inventory,
        declared:
            trusted && described.plugins ? described.plugins : { marketplaces: [], plugins: [] },
        live: createProjectTrust(
            repoRoot,
            { fingerprint, trusted, persist: answer === "trust" },
            store
        ),
    };
}
