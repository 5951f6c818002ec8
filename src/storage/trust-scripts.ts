/**
 * The repository files a configured command runs. Trust is given to what
 * runs, not only to the line that names it: a hook `sh scripts/setup.sh` or an
 * MCP server `node tools/mcp.js` runs whatever those files hold today. Which
 * words name such files is command-files.ts's call (script arguments, stdin,
 * pipes into a shell, preloads, `git -c` programs); a shell script found that
 * way is read in turn for what it runs and sources, a bounded number of
 * scripts deep, inside the project. Files a command only writes or reads
 * (`> log`, `touch x`) do not count.
 * Each file is fingerprinted together with the git-tracked files in its
 * folder (recursively), which is where its helpers live; a script at the
 * project root brings only itself (its folder is the whole project). A file
 * outside the project is listed, never fingerprinted.
 */
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, posix, relative, resolve, sep } from "node:path";
import { listTrackedFilesUnder } from "../util/git-index";
import { isPathInside, readRegularFileSync } from "../util/read-regular-file";
import { type CommandFile, CommandFileCollector, type LineScope } from "./command-files";

/** A command as configured, with the file that configures it. */
export interface ConfiguredCommand {
    /** The gated file it comes from, relative to the project root. */
    source: string;
    /** A shell command line (hooks), or a program and its arguments (MCP servers). */
    command: string | readonly string[];
}

/** A file a configured command runs. */
export interface CommandScript {
    /** Repo-relative POSIX path when inside the project; the absolute path when outside. */
    path: string;
    inside: boolean;
    /** The gated file that names it. */
    source: string;
    /** Tracked files in its folder fingerprinted with it (0 for a script at the root). */
    companions: number;
    /** Why part of it was fingerprinted by size and time only, or not at all. */
    partial?: string;
    /** Digest of it and the files beside it (inside the project only). */
    digest?: string;
}

export interface CommandScriptsFingerprint {
    scripts: CommandScript[];
    /** Null when no configured command names a file inside the project. */
    digest: string | null;
}

/** Beyond this many files, or bytes read, the rest are fingerprinted by size and modification time. */
export const MAX_SCRIPT_FILES_READ = 2000;
export const MAX_SCRIPT_BYTES_READ = 16 * 1024 * 1024;
/** Beyond this many files beside a script, the rest are not looked at (said in the inventory). */
export const MAX_SCRIPT_FILES_LISTED = 20_000;

/** Programs installed on the system are not the repository's: not listed as outside files. */
const SYSTEM_PREFIXES = ["/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/nix/store/"];

/** Shell scripts are followed this many scripts deep, at most this many in all, each read up to this size. */
const MAX_FOLLOW_DEPTH = 4;
const MAX_FOLLOWED_SCRIPTS = 64;
const MAX_FOLLOWED_BYTES = 256 * 1024;

/** `python -m a.b`: the package's `__main__.py` or the module file, from `cwd`. */
function moduleFiles(name: string, cwd: string): string[] {
    if (!/^[A-Za-z_][\w.]*$/.test(name)) return [];
    const base = join(cwd, ...name.split("."));
    return [join(base, "__main__.py"), `${base}.py`];
}

interface Resolved {
    inside: Map<string, string>; // repo-relative path → source
    outside: Map<string, string>; // absolute path → source
}

function resolveWord(
    word: string,
    cwd: string,
    realRoot: string
): { inside?: string; outside?: string } {
    if (word === "" || word.startsWith("-") || /[$`*?[\]{}]/.test(word)) return {};
    const expanded = word === "~" || word.startsWith("~/") ? homedir() + word.slice(1) : word;
    if (expanded.startsWith("~")) return {};
    const path = resolve(cwd, expanded);
    let real: string;
    try {
        if (!statSync(path).isFile()) return {};
        real = realpathSync(path);
    } catch {
        return {};
    }
    if (isPathInside(realRoot, real)) {
        return { inside: relative(realRoot, real).split(sep).join("/") };
    }
    // Only a word written as a path is the repository's choice of an outside file.
    if (!expanded.includes("/") || SYSTEM_PREFIXES.some((p) => real.startsWith(p))) return {};
    return { outside: real };
}

/** A file whose lines bash reads: a shell extension or a shell `#!` line, or run by a shell. */
function shellScriptText(path: string, realRoot: string, runByShell: boolean): string | null {
    try {
        const { bytes } = readRegularFileSync(path, {
            insideRoot: realRoot,
            cap: MAX_FOLLOWED_BYTES,
        });
        const text = bytes.toString("utf8");
        const byName = /\.(?:sh|bash|zsh|ksh|dash)$/.test(path);
        const byLine = /^#!\s*\S*(?:\/|\s|env\s+)(?:ba|da|z|k|mk)?sh\b/.test(text);
        return runByShell || byName || byLine ? text : null;
    } catch {
        return null;
    }
}

function collectScripts(commands: readonly ConfiguredCommand[], realRoot: string): Resolved {
    const found: Resolved = { inside: new Map(), outside: new Map() };
    const scope = (): LineScope => ({ root: realRoot, cwd: realRoot, vars: new Map() });
    let followed = 0;
    const record = (
        file: CommandFile,
        source: string,
        depth: number,
        queue: Array<[CommandFile, string, number]>
    ) => {
        const paths = file.module ? moduleFiles(file.word, file.cwd) : [file.word];
        for (const path of paths) {
            let hit = resolveWord(path, file.cwd, realRoot);
            // A followed script's relative path may be written from its own folder.
            if (hit.inside === undefined && hit.outside === undefined && file.scriptDir) {
                if (!path.startsWith("/")) hit = resolveWord(path, file.scriptDir, realRoot);
            }
            if (hit.outside !== undefined && !found.outside.has(hit.outside)) {
                found.outside.set(hit.outside, source);
            }
            if (hit.inside === undefined || found.inside.has(hit.inside)) continue;
            found.inside.set(hit.inside, source);
            if (depth < MAX_FOLLOW_DEPTH)
                queue.push([{ ...file, word: hit.inside }, source, depth]);
        }
    };
    const collector = new CommandFileCollector();
    for (const { source, command } of commands) {
        if (typeof command === "string") collector.line(command, scope());
        else collector.argv(command, scope());
        const queue: Array<[CommandFile, string, number]> = [];
        for (const file of collector.take()) record(file, source, 0, queue);
        // What a shell script runs or sources runs too: follow it, within the project.
        while (queue.length > 0 && followed < MAX_FOLLOWED_SCRIPTS) {
            const [file, from, depth] = queue.shift()!;
            const path = join(realRoot, file.word);
            const text = shellScriptText(path, realRoot, file.shell);
            if (text === null) continue;
            followed++;
            collector.line(text, {
                ...scope(),
                cwd: file.cwd,
                script: path,
                program: file.sourced ? (file.program ?? path) : path,
            });
            for (const next of collector.take()) record(next, from, depth + 1, queue);
        }
    }
    return found;
}

/**
 * Files below `dirs` when the project is not a git repository: a walk that
 * follows no link and stops after `limit` entries (folders count too, so a
 * tree of empty folders cannot stall the start). `complete` is false when it stopped early.
 */
function walkFiles(
    realRoot: string,
    dirs: readonly string[],
    limit: number
): { files: string[]; complete: boolean } {
    const out: string[] = [];
    const queue = [...dirs];
    let seen = 0;
    while (queue.length > 0) {
        if (++seen > limit) return { files: out, complete: false };
        const current = queue.shift()!;
        let names: string[];
        try {
            names = readdirSync(join(realRoot, current)).sort();
        } catch {
            continue;
        }
        for (const name of names) {
            if (name === ".git" || name === "node_modules") continue;
            const rel = `${current}/${name}`;
            let stats;
            try {
                stats = lstatSync(join(realRoot, rel));
            } catch {
                continue;
            }
            if (stats.isDirectory()) queue.push(rel);
            else if (stats.isFile() || stats.isSymbolicLink()) {
                if (++seen > limit) return { files: out, complete: false };
                out.push(rel);
            }
        }
    }
    return { files: out, complete: true };
}

/** The folders whose tracked files join a script (the root's are not: that is everything). */
function scriptFolders(paths: Iterable<string>): string[] {
    const folders = new Set<string>();
    for (const path of paths) {
        const dir = posix.dirname(path);
        if (dir !== ".") folders.add(dir);
    }
    // A folder inside another one adds nothing.
    return [...folders].filter(
        (dir) => ![...folders].some((other) => other !== dir && dir.startsWith(`${other}/`))
    );
}

/**
 * Fingerprints the files `commands` run inside `repoRoot`, with the tracked
 * files beside them. Never throws; a file that cannot be read counts by name.
 */
export function fingerprintCommandScripts(
    repoRoot: string,
    commands: readonly ConfiguredCommand[]
): CommandScriptsFingerprint {
    let realRoot: string;
    try {
        realRoot = realpathSync(repoRoot);
    } catch {
        return { scripts: [], digest: null };
    }
    const found = collectScripts(commands, realRoot);
    const scripts: CommandScript[] = [...found.outside].map(([path, source]) => ({
        path,
        inside: false,
        source,
        companions: 0,
    }));
    if (found.inside.size === 0) return { scripts, digest: null };

    const folders = scriptFolders(found.inside.keys());
    let listed: string[] = [];
    let partial: string | undefined;
    if (folders.length > 0) {
        // Untracked files (a build's output, a local scratch file) do not count; without git, all do.
        const tracked = listTrackedFilesUnder(realRoot, folders);
        const beside = tracked
            ? { files: tracked, complete: tracked.length <= MAX_SCRIPT_FILES_LISTED }
            : walkFiles(realRoot, folders, MAX_SCRIPT_FILES_LISTED);
        listed = beside.files.slice(0, MAX_SCRIPT_FILES_LISTED);
        if (!beside.complete) {
            partial = `beyond ${MAX_SCRIPT_FILES_LISTED} files beside it, the rest are not checked`;
        }
    }
    const files = [...new Set([...found.inside.keys(), ...listed])].sort();

    let read = 0;
    let bytesRead = 0;
    let byStat = false;
    /** Each file's own digest, so each script's share can be told apart in the question. */
    const digests = new Map<string, string>();
    for (const rel of files) {
        const path = join(realRoot, rel);
        const hash = createHash("sha256");
        try {
            const stats = lstatSync(path);
            if (stats.isSymbolicLink()) {
                hash.update(`link\0${readlinkSync(path)}`);
            } else if (
                read >= MAX_SCRIPT_FILES_READ ||
                bytesRead + stats.size > MAX_SCRIPT_BYTES_READ
            ) {
                byStat = true;
                hash.update(`stat\0${stats.size}\0${stats.mtimeMs}`);
            } else {
                const { bytes } = readRegularFileSync(path, { insideRoot: realRoot });
                read++;
                bytesRead += bytes.length;
                hash.update("file\0").update(bytes);
            }
        } catch {
            hash.update("unreadable");
        }
        digests.set(rel, hash.digest("hex"));
    }
    if (byStat && partial === undefined) {
        partial = `past ${MAX_SCRIPT_FILES_READ} files or ${MAX_SCRIPT_BYTES_READ / 1024 / 1024} MiB, files are checked by size and time`;
    }
    const digestOf = (rels: Iterable<string>): string => {
        const hash = createHash("sha256");
        for (const rel of rels) hash.update(`${rel}\0${digests.get(rel)}\0`);
        return hash.digest("hex");
    };
    for (const [path, source] of found.inside) {
        const dir = posix.dirname(path);
        const beside =
            dir === "." ? [] : listed.filter((f) => f !== path && f.startsWith(`${dir}/`));
        scripts.push({
            path,
            inside: true,
            source,
            companions: beside.length,
            partial,
            digest: digestOf([path, ...beside].sort()),
        });
    }
    scripts.sort((a, b) => Number(b.inside) - Number(a.inside) || a.path.localeCompare(b.path));
    return { scripts, digest: digestOf(files) };
}
