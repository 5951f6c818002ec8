/**
 * Workspace trust. Files a repository ships that run code or grant rights
 * (MCP servers, hooks, standing approvals) are inert until the user trusts the
 * repository. The decision lives outside the repository, in
 * `~/.north/trusted-projects.json`, keyed by the project's real path and bound
 * to a fingerprint of those files: when they change (a `git pull` adds a
 * hook), the old decision no longer applies and North asks again. The
 * fingerprint also covers the repository files those commands run
 * (trust-scripts.ts) and the programs the repository's git configuration
 * names (trust-git.ts): a pull that changes only a hook's script asks again too.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, readdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { readRegularFileSync } from "../util/read-regular-file";
import { writeConfigFileAtomicSync } from "../util/atomic-write";
import { withFileLock } from "../util/file-lock";
import { type GitProgram, fingerprintGitPrograms } from "./trust-git";
import {
    type CommandScript,
    type ConfiguredCommand,
    fingerprintCommandScripts,
} from "./trust-scripts";

/**
 * Project files whose content runs code or grants approval, relative to the
 * project root. Everything North loads from them is gated by trust.
 */
export const TRUST_GATED_FILES = [
    ".mcp.json",
    // Claude Code's language servers (tools/lsp/server-definitions.ts).
    ".lsp.json",
    ".north/settings.json",
    ".north/settings.local.json",
    ".claude/settings.json",
    ".claude/settings.local.json",
    // No settings any more, but what they hold moves once under trust (legacy-approvals.ts):
    // gated, so what moves is what the user trusted.
    ".north/allowlist.json",
    ".north/autoaccept.json",
] as const;

export type TrustGatedFile = (typeof TRUST_GATED_FILES)[number];

/**
 * Folders of a project's output styles: repository text that changes the
 * system prompt, so trust covers them as it covers the gated files.
 */
export const PROJECT_OUTPUT_STYLE_DIRS = [".north/output-styles", ".claude/output-styles"] as const;
/** Style files read per folder (sorted by name); more are fingerprinted by name only. */
const MAX_STYLE_FILES = 100;
const MAX_STYLE_BYTES = 64 * 1024;

/** Larger files are fingerprinted but not parsed: no settings file is this big. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * The gated files as read at one moment. Loaders parse `files` rather than
 * reading again, so what runs is exactly what was fingerprinted (and shown).
 */
export interface ProjectConfigSnapshot {
    /** Text of each gated file that exists (absent: missing or unreadable). */
    files: Partial<Record<TrustGatedFile, string>>;
    /** Files that exist but could not be read or are too large, with the reason. */
    unreadable: Partial<Record<TrustGatedFile, string>>;
    /** Repository (and outside) files the configured hooks and MCP servers run. */
    scripts: CommandScript[];
    /** Programs the repository's git configuration names, and its git hooks. */
    gitPrograms: GitProgram[];
    /** The project's output styles (`.north/output-styles/x.md` → text), as fingerprinted. */
    outputStyles?: Record<string, string>;
    /** Null when no gated file exists: there is nothing to trust. */
    fingerprint: string | null;
}

/** The project's output-style files, hashed into `hash`; false when there are none. */
function readOutputStyles(
    repoRoot: string,
    hash: ReturnType<typeof createHash>,
    styles: Record<string, string>,
    unreadable: Record<string, string>
): boolean {
    let any = false;
    for (const dir of PROJECT_OUTPUT_STYLE_DIRS) {
        let names: string[];
        try {
            names = readdirSync(join(repoRoot, dir))
                .filter((name) => name.toLowerCase().endsWith(".md"))
                .sort();
        } catch {
            continue;
        }
        for (const [index, name] of names.entries()) {
            const rel = `${dir}/${name}`;
            any = true;
            if (index >= MAX_STYLE_FILES) {
                hash.update(`${rel}\0skipped\0`);
                continue;
            }
            try {
                const { bytes } = readRegularFileSync(join(repoRoot, rel), {
                    insideRoot: repoRoot,
                    label: rel,
                });
                hash.update(`${rel}\0${bytes.length}\0`).update(bytes);
                if (bytes.length > MAX_STYLE_BYTES) unreadable[rel] = "larger than 64 KB";
                else styles[rel] = bytes.toString("utf8");
            } catch (error) {
                hash.update(`${rel}\0unreadable\0`);
                unreadable[rel] = (error as Error).message;
            }
        }
    }
    return any;
}

/** Gated files that may hold hooks and a status-line command. */
const HOOK_FILES: readonly TrustGatedFile[] = [
    ".north/settings.json",
    ".north/settings.local.json",
    ".claude/settings.json",
    ".claude/settings.local.json",
];

function parseJsonObject(text: string | undefined): Record<string, unknown> | undefined {
    if (text === undefined) return undefined;
    try {
        const json = JSON.parse(text) as unknown;
        return typeof json === "object" && json !== null
            ? (json as Record<string, unknown>)
            : undefined;
    } catch {
        return undefined;
    }
}

function asArray(value: unknown): unknown[] {
    return Array.isArray(value) ? (value as unknown[]) : [];
}

/**
 * The entries of Claude Code's `.lsp.json`: a map of name → server, or the
 * same map under `lspServers` (a plugin's shape), read leniently.
 */
export function lspServerEntries(
    text: string | undefined
): Array<{ name: string; command?: unknown; args?: unknown; env?: unknown }> {
    const json = parseJsonObject(text);
    const wrapped = json?.lspServers;
    const servers =
        typeof wrapped === "object" && wrapped !== null && !Array.isArray(wrapped)
            ? (wrapped as Record<string, unknown>)
            : json;
    return Object.entries(servers ?? {}).flatMap(([name, raw]) =>
        typeof raw === "object" && raw !== null
            ? [{ name, ...(raw as Record<string, unknown>) }]
            : []
    );
}

/**
 * Every command the gated files configure (hooks, status lines, stdio MCP and
 * language servers), read
 * leniently: a shape the loaders would reject still counts here.
 */
function configuredCommands(files: ProjectConfigSnapshot["files"]): ConfiguredCommand[] {
    const commands: ConfiguredCommand[] = [];
    const servers = parseJsonObject(files[".mcp.json"])?.mcpServers;
    if (typeof servers === "object" && servers !== null) {
        for (const raw of Object.values(servers as Record<string, unknown>)) {
            const server = raw as { command?: unknown; args?: unknown } | null;
            if (typeof server?.command !== "string") continue;
            const args = asArray(server.args).map((a) => String(a));
            commands.push({ source: ".mcp.json", command: [server.command, ...args] });
        }
    }
    for (const server of lspServerEntries(files[".lsp.json"])) {
        if (typeof server.command !== "string") continue;
        const args = asArray(server.args).map((a) => String(a));
        commands.push({ source: ".lsp.json", command: [server.command, ...args] });
    }
    for (const source of HOOK_FILES) {
        const settings = parseJsonObject(files[source]);
        // The status line's command runs as a hook does: what it runs counts too.
        const statusLine = settings?.statusLine as { command?: unknown } | null | undefined;
        if (typeof statusLine?.command === "string")
            commands.push({ source, command: statusLine.command });
        const hooks = settings?.hooks;
        if (typeof hooks !== "object" || hooks === null) continue;
        for (const groups of Object.values(hooks as Record<string, unknown>)) {
            for (const group of asArray(groups)) {
                for (const hook of asArray((group as { hooks?: unknown } | null)?.hooks)) {
                    const command = (hook as { command?: unknown } | null)?.command;
                    if (typeof command === "string") commands.push({ source, command });
                }
            }
        }
    }
    return commands;
}

/** Reads the gated files of `repoRoot` and fingerprints them. Never throws. */
export function readProjectConfig(repoRoot: string): ProjectConfigSnapshot {
    const files: ProjectConfigSnapshot["files"] = {};
    const unreadable: ProjectConfigSnapshot["unreadable"] = {};
    const hash = createHash("sha256");
    let any = false;
    for (const name of TRUST_GATED_FILES) {
        let bytes: Buffer;
        try {
            // Never blocks on a FIFO; a symlink out of the repository is refused.
            bytes = readRegularFileSync(join(repoRoot, name), {
                insideRoot: repoRoot,
                label: name,
            }).bytes;
        } catch (error) {
            const code = (error as NodeJS.ErrnoException).code;
            if (code === "ENOENT" || code === "ENOTDIR") continue;
            // Unreadable now, maybe readable later: count it, so a change is noticed.
            any = true;
            unreadable[name] = (error as Error).message;
            hash.update(`${name}\0unreadable\0`);
            continue;
        }
        any = true;
        hash.update(`${name}\0${bytes.length}\0`).update(bytes);
        if (bytes.length > MAX_CONFIG_BYTES) unreadable[name] = "larger than 1 MiB";
        else files[name] = bytes.toString("utf8");
    }
    const outputStyles: Record<string, string> = {};
    if (readOutputStyles(repoRoot, hash, outputStyles, unreadable)) any = true;
    if (!any) return { files, unreadable, scripts: [], gitPrograms: [], fingerprint: null };
    // Added only when present, so a project whose commands run no file of its own keeps its trust.
    const scripts = fingerprintCommandScripts(repoRoot, configuredCommands(files));
    if (scripts.digest !== null) hash.update(`\0scripts\0${scripts.digest}`);
    const git = fingerprintGitPrograms(repoRoot);
    if (git.digest !== null) hash.update(`\0git\0${git.digest}`);
    return {
        files,
        unreadable,
        scripts: scripts.scripts,
        gitPrograms: git.programs,
        outputStyles,
        fingerprint: hash.digest("hex"),
    };
}

interface TrustRecord {
    fingerprint: string;
    trustedAt: string;
    /** What was shown when trusted, each with its content digest: tells what changed since. */
    items?: Record<string, string>;
}

interface TrustFile {
    version: 1;
    projects: Record<string, TrustRecord>;
}

export interface TrustStore {
    readonly path: string;
    /** True when the user trusted `repoRoot` with exactly these files. */
    isTrusted(repoRoot: string, fingerprint: string): boolean;
    /**
     * Remembers that the user trusts `repoRoot` with these files, and `items`
     * (what the question showed, by key, with content digests). Throws when it cannot save.
     */
    trust(repoRoot: string, fingerprint: string, items?: Record<string, string>): void;
    /** The items of the last decision for `repoRoot`, when it kept them. */
    trustedItems(repoRoot: string): Record<string, string> | undefined;
}

function projectKey(repoRoot: string): string {
    try {
        return realpathSync(repoRoot);
    } catch {
        return repoRoot;
    }
}

function parseTrustFile(text: string): TrustFile {
    const empty: TrustFile = { version: 1, projects: {} };
    let json: unknown;
    try {
        json = JSON.parse(text);
    } catch {
        return empty; // a damaged file trusts nothing; it is rewritten on the next decision
    }
    if (typeof json !== "object" || json === null) return empty;
    const projects = (json as { projects?: unknown }).projects;
    if (typeof projects !== "object" || projects === null) return empty;
    const out: TrustFile = { version: 1, projects: {} };
    for (const [key, value] of Object.entries(projects as Record<string, unknown>)) {
        const record = value as Partial<TrustRecord> | null;
        if (typeof record?.fingerprint === "string") {
            out.projects[key] = {
                fingerprint: record.fingerprint,
                trustedAt: typeof record.trustedAt === "string" ? record.trustedAt : "",
            };
            const items = record.items as unknown;
            if (
                typeof items === "object" &&
                items !== null &&
                Object.values(items).every((v) => typeof v === "string")
            ) {
                out.projects[key].items = items as Record<string, string>;
            }
        }
    }
    return out;
}

/** The trust decisions in `<dataDirectory>/trusted-projects.json`, read fresh at each question. */
export function createTrustStore(dataDirectory: string): TrustStore {
    const path = join(dataDirectory, "trusted-projects.json");
    const read = (): TrustFile => {
        try {
            return parseTrustFile(readFileSync(path, "utf8"));
        } catch {
            return { version: 1, projects: {} };
        }
    };
    return {
        path,
        isTrusted(repoRoot, fingerprint) {
            return read().projects[projectKey(repoRoot)]?.fingerprint === fingerprint;
        },
        trustedItems(repoRoot) {
            return read().projects[projectKey(repoRoot)]?.items;
        },
        trust(repoRoot, fingerprint, items) {
            mkdirSync(dataDirectory, { recursive: true, mode: 0o700 });
            withFileLock(path, () => {
                const current = read();
                current.projects[projectKey(repoRoot)] = {
                    fingerprint,
                    trustedAt: new Date().toISOString(),
                    ...(items ? { items } : {}),
                };
                writeConfigFileAtomicSync(path, JSON.stringify(current, null, 2) + "\n", {
                    sync: true,
                });
            });
        },
    };
}

/**
 * Trust as one session sees it: the fingerprint accepted at start (by the
 * user, a stored decision or `--trust`), checked against the files as they
 * are now. Project files changed behind North's back (by a command, another
 * tool, a pull) stop counting until the user trusts them again; North's own
 * writes on the user's behalf (`recordOwnWrite`) keep the trust.
 */
export interface ProjectTrust {
    /** Whether the project's gated files, as they are now, are trusted. */
    isTrustedNow(): boolean;
    /**
     * Runs `write` (North saving the user's "always" into a gated file) and,
     * when the project was trusted before it, trusts the result too.
     * Returns false when the project is not trusted (then nothing is written).
     */
    recordOwnWrite(write: () => void): boolean;
}

export function createProjectTrust(
    repoRoot: string,
    accepted: { fingerprint: string | null; trusted: boolean; persist: boolean },
    store: TrustStore
): ProjectTrust {
    let fingerprint = accepted.fingerprint;
    let trusted = accepted.trusted;
    const isTrustedNow = (): boolean => {
        const now = readProjectConfig(repoRoot).fingerprint;
        if (now === null) return true; // nothing there to trust
        if (trusted && now === fingerprint) return true;
        // Another North process may have recorded the user's decision since.
        return store.isTrusted(repoRoot, now);
    };
    return {
        isTrustedNow,
        recordOwnWrite(write) {
            if (!isTrustedNow()) return false;
            write();
            const after = readProjectConfig(repoRoot).fingerprint;
            fingerprint = after;
            trusted = true;
            if (accepted.persist && after !== null) {
                try {
                    store.trust(repoRoot, after);
                } catch {
                    // unsaved: the write is trusted for this session; asked again next time
                }
            }
            return true;
        },
    };
}
