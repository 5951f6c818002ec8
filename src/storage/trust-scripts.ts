/**
 * The repository files a configured command runs. Trust is given to what
 * runs, not only to the line that names it: a hook `sh scripts/setup.sh` or an
 * MCP server `node tools/mcp.js` runs whatever those files hold today. What
 * counts: a program written as a path (`./scripts/x.sh`), every argument of
 * an interpreter, package runner or wrapper that names an existing file
 * (`node`, `npx tsx`, `uv run`, `timeout`, the words of a `bash -c` body),
 * `python -m pkg` (`pkg/__main__.py` or `pkg.py`), each from where an earlier
 * `cd` moved; `$CLAUDE_PROJECT_DIR`/`$NORTH_PROJECT_DIR` stand for the
 * project. Files a command only writes or reads (`> log`, `touch x`) do not.
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

/** Nested command lines (`bash -c '…'` inside `sh -c "…"`) are read this deep. */
const MAX_NESTING = 4;

/** Programs installed on the system are not the repository's: not listed as outside files. */
const SYSTEM_PREFIXES = ["/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/nix/store/"];

/**
 * Splits a shell command line into simple commands of words, as bash quotes
 * them. `; & | ( )`, backquotes and newlines end a command; a redirection's
 * target (`> out.log`, `2>err`, `< in`) is dropped: it is data, not code.
 * `#` at a word's start comments out the rest of the line. Expansions stay
 * as written.
 */
export function shellCommands(line: string): string[][] {
    const commands: string[][] = [];
    let words: string[] = [];
    let word = "";
    let inWord = false;
    let redirectTarget = false;
    const endWord = (): void => {
        if (inWord) {
            if (redirectTarget) redirectTarget = false;
            else words.push(word);
        }
        word = "";
        inWord = false;
    };
    const endCommand = (): void => {
        endWord();
        if (words.length > 0) commands.push(words);
        words = [];
    };
    for (let i = 0; i < line.length; i++) {
        const c = line[i]!;
        if (c === "'" || (c === "$" && line[i + 1] === "'")) {
            const ansi = c === "$";
            let j = i + (ansi ? 2 : 1);
            for (; j < line.length && line[j] !== "'"; j++) {
                if (ansi && line[j] === "\\" && j + 1 < line.length) j++;
                word += line[j];
            }
            i = j;
            inWord = true;
        } else if (c === '"') {
            let j = i + 1;
            for (; j < line.length && line[j] !== '"'; j++) {
                if (line[j] === "\\" && '"\\$`'.includes(line[j + 1] ?? "")) j++;
                word += line[j];
            }
            i = j;
            inWord = true;
        } else if (c === "\\") {
            if (line[i + 1] !== "\n" && i + 1 < line.length) {
                word += line[i + 1];
                inWord = true;
            }
            i++;
        } else if (c === "#" && !inWord) {
            const eol = line.indexOf("\n", i);
            i = eol < 0 ? line.length - 1 : eol - 1;
        } else if (c === "<" || c === ">") {
            // `2>`: the digits name a descriptor, not a word.
            if (inWord && /^\d+$/.test(word)) {
                word = "";
                inWord = false;
            }
            endWord();
            redirectTarget = true;
            while (line[i + 1] === "<" || line[i + 1] === ">" || line[i + 1] === "&") i++;
        } else if (" \t".includes(c)) {
            endWord();
        } else if (";&|()`\n".includes(c)) {
            endCommand();
        } else {
            word += c;
            inWord = true;
        }
    }
    endCommand();
    return commands;
}

/**
 * Programs that run a file named among their arguments: interpreters, package
 * runners (`npx tsx x.ts`, `uv run x.py`) and wrappers (`env`, `timeout`).
 * Every argument of theirs that names a file counts; of any other program,
 * only the program itself when it is written as a path (`./scripts/x.sh`).
 */
const RUNNER =
    /^(?:sh|bash|zsh|dash|ksh|mksh|fish|node|nodejs|deno|bun|tsx|ts-node|python[0-9.]*|pypy[0-9.]*|ruby|perl|php|lua|Rscript|awk|gawk|osascript|pwsh|npx|pnpx|bunx|uv|uvx|poetry|pipenv|pdm|hatch|env|exec|nohup|timeout|nice|time|command|sudo|stdbuf|xargs|source|\.)$/;

const PROJECT_DIR_VARIABLE = /\$\{(?:CLAUDE|NORTH)_PROJECT_DIR\}|\$(?:CLAUDE|NORTH)_PROJECT_DIR\b/g;

interface Candidate {
    word: string;
    /** Named after `-m`: a Python module. */
    module: boolean;
    /** Where the command runs, after any `cd` before it. */
    cwd: string;
}

/** The candidates of a command line's simple commands, in order: `cd dir` moves the ones after it. */
function candidatesOfLine(commands: readonly string[][], cwd: string, depth: number): Candidate[] {
    const out: Candidate[] = [];
    let here = cwd;
    for (const words of commands) {
        if (words[0] === "cd" || words[0] === "pushd") {
            const target = words.slice(1).find((w) => !w.startsWith("-"));
            if (target !== undefined && !/[$`*?[\]{}~]/.test(target)) here = resolve(here, target);
            continue;
        }
        out.push(...candidateWords(words, depth, here));
    }
    return out;
}

/** The words of one simple command that may name a file it runs. */
function candidateWords(words: readonly string[], depth: number, cwd: string): Candidate[] {
    let at = 0;
    // `NAME=value cmd`: the assignments are not the program.
    while (at < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[at]!)) at++;
    const program = words[at];
    if (program === undefined) return [];
    const out: Candidate[] = [{ word: program, module: false, cwd }];
    const name = program.slice(program.lastIndexOf("/") + 1);
    // A program named by a variable (`${PYTHON:-python3}`) may be any of them.
    if (!RUNNER.test(name) && !program.includes("$")) return program.includes("/") ? out : [];
    for (let i = at + 1; i < words.length; i++) {
        const word = words[i]!;
        out.push({ word, module: words[i - 1] === "-m", cwd });
        const assigned = /^(?:[A-Za-z_][A-Za-z0-9_]*|--?[A-Za-z0-9][\w-]*)=(.+)$/s.exec(word);
        if (assigned) out.push({ word: assigned[1]!, module: false, cwd });
        // `bash -c '…'`, `env sh -c "…"`: a word that is itself a command line.
        if (depth < MAX_NESTING && /[\s;&|]/.test(word)) {
            out.push(...candidatesOfLine(shellCommands(word), cwd, depth + 1));
        }
    }
    return out;
}

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

function collectScripts(commands: readonly ConfiguredCommand[], realRoot: string): Resolved {
    const found: Resolved = { inside: new Map(), outside: new Map() };
    for (const { source, command } of commands) {
        const commandsOfLine =
            typeof command === "string"
                ? shellCommands(command.replace(PROJECT_DIR_VARIABLE, realRoot))
                : [command.map((w) => w.replace(PROJECT_DIR_VARIABLE, realRoot))];
        for (const { word, module, cwd } of candidatesOfLine(commandsOfLine, realRoot, 0)) {
            const paths = module ? moduleFiles(word, cwd) : [word];
            for (const path of paths) {
                const hit = resolveWord(path, cwd, realRoot);
                if (hit.inside !== undefined && !found.inside.has(hit.inside)) {
                    found.inside.set(hit.inside, source);
                }
                if (hit.outside !== undefined && !found.outside.has(hit.outside)) {
                    found.outside.set(hit.outside, source);
                }
            }
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
