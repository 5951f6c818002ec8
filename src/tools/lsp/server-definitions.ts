/**
 * Which language servers North knows, as data: the built-ins, then the user's
 * `lsp.servers` settings and the project's Claude Code `.lsp.json` laid over
 * them, and where each binary is (PATH or the project's `node_modules/.bin`).
 * Nothing here starts a process.
 */
import { accessSync, constants, existsSync, realpathSync, statSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";

export interface LspServerDefinition {
    name: string;
    command: string;
    args: readonly string[];
    /** Lower-case extension with its dot → the `languageId` sent on didOpen. */
    languages: Readonly<Record<string, string>>;
    /**
     * Files whose nearest folder (inside the project) is the server's root, as
     * `go.mod` is gopls's; without one the project root serves every file.
     */
    rootMarkers?: readonly string[];
    initializationOptions?: unknown;
    /** Answers to `workspace/configuration`, by section (`python.analysis`…). */
    settings?: Record<string, unknown>;
    env?: Record<string, string>;
    /** "built-in", "settings", ".lsp.json" or "plugin <name@marketplace>". */
    origin: string;
    /** The plugin (`name@marketplace`) that brought it. */
    plugin?: string;
    /** Time allowed for start and `initialize`. */
    startupTimeoutMs?: number;
    /**
     * A program the server runs to find problems (bash-language-server runs
     * shellcheck); without it on PATH the server navigates but reports nothing,
     * so edits do not wait for its diagnostics.
     */
    diagnosticsNeed?: string;
    /**
     * A request answered once the server has checked a file. For a server
     * that publishes nothing when a file stays clean (typescript-language-server
     * skips empty-to-empty), silence cannot tell "done" from "slow"; its answer can.
     */
    diagnosticsBarrier?: (uri: string) => { method: string; params: unknown };
    /** Restarts allowed after a crash (default 1); 0 disables at the first failure. */
    maxRestarts?: number;
    disabled?: boolean;
}

const TYPESCRIPT_LANGUAGES = {
    ".ts": "typescript",
    ".tsx": "typescriptreact",
    ".mts": "typescript",
    ".cts": "typescript",
    ".js": "javascript",
    ".jsx": "javascriptreact",
    ".mjs": "javascript",
    ".cjs": "javascript",
};

const C_LANGUAGES = {
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
};

/** The servers North starts without being told, each only when its binary is found. */
export const BUILT_IN_SERVERS: readonly LspServerDefinition[] = [
    {
        name: "typescript",
        command: "typescript-language-server",
        args: ["--stdio"],
        languages: TYPESCRIPT_LANGUAGES,
        // tsserver answers this once the file is checked (its own geterr publishes follow).
        diagnosticsBarrier: (uri) => ({
            method: "workspace/executeCommand",
            params: {
                command: "typescript.tsserverRequest",
                arguments: ["semanticDiagnosticsSync", { file: uri }],
            },
        }),
        origin: "built-in",
    },
    {
        name: "pyright",
        command: "pyright-langserver",
        args: ["--stdio"],
        languages: { ".py": "python", ".pyi": "python" },
        origin: "built-in",
    },
    {
        name: "gopls",
        command: "gopls",
        args: [],
        languages: { ".go": "go" },
        rootMarkers: ["go.work", "go.mod"],
        origin: "built-in",
    },
    {
        name: "clangd",
        command: "clangd",
        args: [],
        languages: C_LANGUAGES,
        origin: "built-in",
    },
    {
        name: "bash",
        command: "bash-language-server",
        args: ["start"],
        languages: { ".sh": "shellscript", ".bash": "shellscript" },
        diagnosticsNeed: "shellcheck",
        origin: "built-in",
    },
    {
        // Untested here: no rust-analyzer package on North's test machines.
        name: "rust-analyzer",
        command: "rust-analyzer",
        args: [],
        languages: { ".rs": "rust" },
        rootMarkers: ["Cargo.toml"],
        origin: "built-in",
    },
];

/** languageIds for extensions a user lists without naming the language. */
const KNOWN_LANGUAGES: Record<string, string> = Object.assign(
    {},
    ...BUILT_IN_SERVERS.map((server) => server.languages)
) as Record<string, string>;

/** One entry of the `lsp.servers` setting (storage/settings/schema.ts checks its shape). */
export interface LspServerSetting {
    command?: string;
    args?: string[];
    /** `[".zig"]`, or Claude Code's `{".zig": "zig"}` with the languageIds. */
    extensions?: string[] | Record<string, string>;
    rootMarkers?: string[];
    initializationOptions?: unknown;
    settings?: Record<string, unknown>;
    env?: Record<string, string>;
    disabled?: boolean;
}

/** The `lsp` setting. */
export interface LspSettings {
    /** false: no language server is started. */
    enabled?: boolean;
    /** A server whose process tree holds more is restarted, then disabled. Default 2048 MB. */
    memoryLimitMb?: number;
    /** A server unused this long is stopped (started again on the next file). Default 10. */
    idleMinutes?: number;
    servers?: Record<string, LspServerSetting>;
}

function languagesOf(extensions: string[] | Record<string, string>): Record<string, string> {
    const entries = Array.isArray(extensions)
        ? extensions.map((ext) => [ext, undefined] as const)
        : Object.entries(extensions);
    const languages: Record<string, string> = {};
    for (const [raw, language] of entries) {
        const ext = (raw.startsWith(".") ? raw : `.${raw}`).toLowerCase();
        languages[ext] = language ?? KNOWN_LANGUAGES[ext] ?? ext.slice(1);
    }
    return languages;
}

/**
 * The built-ins with the user's entries laid over them: a known name changes
 * only the fields it sets, a new one needs a command and extensions.
 */
export function mergeServerSettings(
    base: readonly LspServerDefinition[],
    servers: Record<string, LspServerSetting> | undefined,
    origin: string,
    warn: (message: string) => void
): LspServerDefinition[] {
    const merged = new Map(base.map((server) => [server.name, server]));
    for (const [name, entry] of Object.entries(servers ?? {})) {
        const known = merged.get(name);
        if (!known && (!entry.command || !entry.extensions)) {
            warn(`${origin}: language server "${name}" needs a command and extensions; ignored`);
            continue;
        }
        merged.set(name, {
            name,
            command: entry.command ?? known?.command ?? "",
            args: entry.args ?? (entry.command ? [] : (known?.args ?? [])),
            languages: entry.extensions ? languagesOf(entry.extensions) : (known?.languages ?? {}),
            rootMarkers: entry.rootMarkers ?? known?.rootMarkers,
            initializationOptions: entry.initializationOptions ?? known?.initializationOptions,
            settings: entry.settings ?? known?.settings,
            env: entry.env ?? known?.env,
            origin: known && known.origin !== origin ? `${known.origin}, ${origin}` : origin,
            diagnosticsNeed: entry.command ? undefined : known?.diagnosticsNeed,
            diagnosticsBarrier: entry.command ? undefined : known?.diagnosticsBarrier,
            startupTimeoutMs: known?.startupTimeoutMs,
            maxRestarts: known?.maxRestarts,
            disabled: entry.disabled ?? known?.disabled,
        });
    }
    return [...merged.values()];
}

function isRecord(value: unknown): value is Record<string, unknown> {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringRecord(value: unknown): Record<string, string> | undefined {
    if (!isRecord(value)) return undefined;
    const entries = Object.entries(value).filter(
        (entry): entry is [string, string] => typeof entry[1] === "string"
    );
    return Object.fromEntries(entries);
}

/**
 * Claude Code's `.lsp.json` (a plugin's `lspServers` shape): a map of name →
 * `{command, args, extensionToLanguage, env, initializationOptions, settings,
 * transport, startupTimeout, restartOnCrash, maxRestarts, …}`, optionally
 * wrapped in `{"lspServers": …}`. Only stdio servers are used; fields North
 * has no use for (`workspaceFolder`, `shutdownTimeout`) are ignored.
 */
export function parseClaudeLspConfig(
    text: string,
    file: string,
    warn: (message: string) => void
): LspServerDefinition[] {
    let json: unknown;
    try {
        json = JSON.parse(text);
    } catch (error) {
        warn(
            `${file}: not valid JSON (${(error as Error).message}); its language servers are ignored`
        );
        return [];
    }
    const servers = isRecord(json) && isRecord(json.lspServers) ? json.lspServers : json;
    if (!isRecord(servers)) {
        warn(`${file}: expected an object of language servers; ignored`);
        return [];
    }
    return lspServerEntries(servers, file, ".lsp.json", warn);
}

/**
 * Language servers in Claude Code's `.lsp.json` shape (server name → entry),
 * from a file or a plugin; `origin` says where they came from.
 */
export function lspServerEntries(
    servers: unknown,
    file: string,
    origin: string,
    warn: (message: string) => void,
    extra?: { namePrefix?: string; env?: Record<string, string>; plugin?: string }
): LspServerDefinition[] {
    if (!isRecord(servers)) {
        warn(`${file}: expected an object of language servers; ignored`);
        return [];
    }
    const definitions: LspServerDefinition[] = [];
    for (const [name, entry] of Object.entries(servers)) {
        const languages = isRecord(entry) ? stringRecord(entry.extensionToLanguage) : undefined;
        if (!isRecord(entry) || typeof entry.command !== "string" || !languages) {
            warn(`${file}: "${name}" needs "command" and "extensionToLanguage"; ignored`);
            continue;
        }
        if (entry.transport !== undefined && entry.transport !== "stdio") {
            warn(
                `${file}: "${name}" uses transport "${String(entry.transport)}"; North speaks stdio only; ignored`
            );
            continue;
        }
        const args = Array.isArray(entry.args)
            ? entry.args.filter((a) => typeof a === "string")
            : [];
        definitions.push({
            name: `${extra?.namePrefix ?? ""}${name}`,
            command: entry.command,
            args,
            languages: languagesOf(languages),
            initializationOptions: entry.initializationOptions,
            settings: isRecord(entry.settings) ? entry.settings : undefined,
            env: extra?.env
                ? { ...extra.env, ...stringRecord(entry.env) }
                : stringRecord(entry.env),
            origin,
            ...(extra?.plugin !== undefined ? { plugin: extra.plugin } : {}),
            startupTimeoutMs:
                typeof entry.startupTimeout === "number" ? entry.startupTimeout : undefined,
            maxRestarts:
                entry.restartOnCrash === false
                    ? 0
                    : typeof entry.maxRestarts === "number"
                      ? entry.maxRestarts
                      : undefined,
        });
    }
    return definitions;
}

function isExecutableFile(path: string): boolean {
    try {
        if (!statSync(path).isFile()) return false;
        accessSync(path, constants.X_OK);
        return true;
    } catch {
        return false;
    }
}

/**
 * The absolute path of `command`: as given when it has a slash (relative to
 * the project), else the project's `node_modules/.bin`, then PATH. Null when
 * nowhere.
 */
export function findBinary(
    command: string,
    repoRoot: string,
    pathEnv: string | undefined
): string | null {
    if (command.includes("/")) {
        const path = isAbsolute(command) ? command : resolve(repoRoot, command);
        return isExecutableFile(path) ? path : null;
    }
    const dirs = [join(repoRoot, "node_modules", ".bin"), ...(pathEnv ?? "").split(delimiter)];
    for (const dir of dirs) {
        if (!dir) continue;
        const path = join(dir, command);
        if (isExecutableFile(path)) return path;
    }
    return null;
}

/** The `lib` folder of the `typescript` package nearest above `from`, if any. */
function typescriptLibAbove(from: string): string | null {
    let dir = from;
    for (;;) {
        const lib = join(dir, "node_modules", "typescript", "lib");
        if (existsSync(join(lib, "tsserver.js"))) return lib;
        const parent = dirname(dir);
        if (parent === dir) return null;
        dir = parent;
    }
}

/**
 * typescript-language-server's options: the project's own TypeScript when it
 * has one (its version decides what is an error), else the one installed
 * beside the server (a global `npm i -g typescript typescript-language-server`).
 */
export function typescriptInitializationOptions(
    repoRoot: string,
    binary: string,
    configured: unknown
): unknown {
    const project = typescriptLibAbove(repoRoot);
    let beside: string | null = null;
    try {
        beside = typescriptLibAbove(dirname(realpathSync(binary)));
    } catch {
        beside = null;
    }
    // Without a separate syntax server every answer comes from the loaded project:
    // early navigation requests would otherwise get syntax-only answers (an
    // imported name's definition is its import line, implementations none).
    const tsserver: Record<string, string> = { useSyntaxServer: "never" };
    if (project) tsserver.path = project;
    else if (beside) tsserver.fallbackPath = beside;
    const options = isRecord(configured) ? configured : {};
    const own = isRecord(options.tsserver) ? options.tsserver : {};
    return { ...options, tsserver: { ...tsserver, ...own } };
}
