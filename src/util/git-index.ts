/**
 * The paths git tracks in a working tree, read straight from its index file
 * (versions 2 to 4, SHA-1 or SHA-256) so a walk can keep tracked files that a
 * .gitignore matches. Entries are only located, not decoded: the walker asks
 * about the few paths it ignores, by binary search in git's own byte order.
 * A split index (the `link` extension, opt-in and rare) or an index this parser
 * does not know falls back to `git ls-files -z`; without git the answer is
 * "nothing tracked".
 */
import { execFileSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { PROVIDER_SECRET_ENV, childEnv } from "./child-env";
import { GIT_NO_REPO_PROGRAMS_ARGS, GIT_NO_REPO_PROGRAMS_ENV } from "./git-no-repo-programs";

export interface TrackedFiles {
    /** Whether `rel` (a repo-relative POSIX path) is a tracked file or symlink. */
    hasFile(rel: string): boolean;
    /** Whether some tracked file lies below the directory `rel`. */
    hasUnder(rel: string): boolean;
}

const GITLINK = 0o160000;
const MODE_TYPE = 0o170000;

/** The git directory of a working tree root: `.git` itself, or where a `.git` file points. */
export function gitDirOf(root: string): string | null {
    const dotGit = path.join(root, ".git");
    let stat;
    try {
        stat = statSync(dotGit, { throwIfNoEntry: false });
    } catch {
        return null;
    }
    if (!stat) return null;
    if (stat.isDirectory()) return dotGit;
    try {
        const match = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, "utf8"));
        return match ? path.resolve(root, match[1]!) : null;
    } catch {
        return null;
    }
}

/** Tracked paths in git's order (bytewise), as byte ranges of one buffer. */
class SortedPaths implements TrackedFiles {
    constructor(
        private readonly buf: Buffer,
        private readonly starts: Uint32Array,
        private readonly ends: Uint32Array
    ) {}

    /** Index of the first path not below `key` bytewise. */
    private lowerBound(key: Buffer): number {
        let lo = 0;
        let hi = this.starts.length;
        while (lo < hi) {
            const mid = (lo + hi) >>> 1;
            // Negative: the entry sorts before the key.
            if (this.buf.compare(key, 0, key.length, this.starts[mid], this.ends[mid]) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    private equals(i: number, key: Buffer): boolean {
        return (
            i < this.starts.length &&
            this.ends[i]! - this.starts[i]! === key.length &&
            this.buf.compare(key, 0, key.length, this.starts[i], this.ends[i]) === 0
        );
    }

    hasFile(rel: string): boolean {
        const key = Buffer.from(rel);
        return this.equals(this.lowerBound(key), key);
    }

    hasUnder(rel: string): boolean {
        const key = Buffer.from(`${rel}/`);
        const i = this.lowerBound(key);
        if (i >= this.starts.length || this.ends[i]! - this.starts[i]! < key.length) return false;
        return (
            this.buf.compare(key, 0, key.length, this.starts[i], this.starts[i]! + key.length) === 0
        );
    }
}

/** Tracked paths as strings (index version 4, or `git ls-files`). */
class PathSet implements TrackedFiles {
    private dirs: Set<string> | null = null;
    constructor(private readonly files: Set<string>) {}

    hasFile(rel: string): boolean {
        return this.files.has(rel);
    }

    hasUnder(rel: string): boolean {
        if (!this.dirs) {
            this.dirs = new Set();
            for (const file of this.files) {
                for (let s = file.lastIndexOf("/"); s > 0; s = file.lastIndexOf("/", s - 1)) {
                    const dir = file.slice(0, s);
                    if (this.dirs.has(dir)) break;
                    this.dirs.add(dir);
                }
            }
        }
        return this.dirs.has(rel);
    }
}

export const NOTHING_TRACKED: TrackedFiles = { hasFile: () => false, hasUnder: () => false };

type Parsed = TrackedFiles | "unsupported";

/** Reads a v4 varint (git's offset encoding). */
function readVarint(buf: Buffer, at: number): { value: number; next: number } {
    let byte = buf[at++]!;
    let value = byte & 0x7f;
    while (byte & 0x80) {
        byte = buf[at++]!;
        value = ((value + 1) << 7) | (byte & 0x7f);
    }
    return { value, next: at };
}

/** Parses the entries with a given object-id size; null when they do not fit it. */
function parseEntries(
    buf: Buffer,
    version: number,
    count: number,
    hashSize: number
): Parsed | null {
    const flagsAt = 40 + hashSize;
    const starts = new Uint32Array(count);
    const ends = new Uint32Array(count);
    const v4Paths: string[] = [];
    let previous = Buffer.alloc(0);
    let kept = 0;
    let at = 12;
    for (let i = 0; i < count; i++) {
        if (at + flagsAt + 2 > buf.length) return null;
        const mode = buf.readUInt32BE(at + 24);
        const flags = buf.readUInt16BE(at + flagsAt);
        let nameAt = at + flagsAt + 2;
        if (flags & 0x4000) {
            if (version < 3) return null;
            nameAt += 2;
        }
        const nameLength = flags & 0xfff;
        let nameEnd: number;
        let next: number;
        if (version === 4) {
            const { value: strip, next: suffixAt } = readVarint(buf, nameAt);
            const nul = buf.indexOf(0, suffixAt);
            if (nul < 0 || strip > previous.length) return null;
            const name = Buffer.concat([
                previous.subarray(0, previous.length - strip),
                buf.subarray(suffixAt, nul),
            ]);
            if (nameLength < 0xfff && name.length !== nameLength) return null;
            previous = name;
            if ((mode & MODE_TYPE) !== GITLINK) v4Paths.push(name.toString("utf8"));
            next = nul + 1;
            at = next;
            continue;
        }
        if (nameLength < 0xfff) {
            nameEnd = nameAt + nameLength;
            if (buf[nameEnd] !== 0) return null;
        } else {
            nameEnd = buf.indexOf(0, nameAt + 0xfff);
            if (nameEnd < 0) return null;
        }
        // Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
        next = at + ((nameEnd - at + 8) & ~7);
        if ((mode & MODE_TYPE) !== GITLINK) {
            starts[kept] = nameAt;
            ends[kept] = nameEnd;
            kept++;
        }
        at = next;
    }
    // Extensions follow until the trailing checksum.
    while (at + 8 <= buf.length - hashSize) {
        const signature = buf.toString("latin1", at, at + 4);
        if (signature === "link") return "unsupported";
        at += 8 + buf.readUInt32BE(at + 4);
    }
    if (at !== buf.length - hashSize) return null;
    if (version === 4) return new PathSet(new Set(v4Paths));
    return new SortedPaths(buf, starts.subarray(0, kept), ends.subarray(0, kept));
}

/** Parses an index file; "unsupported" for a format left to git itself. */
export function parseGitIndex(buf: Buffer): Parsed {
    if (buf.length < 12 || buf.toString("latin1", 0, 4) !== "DIRC") return "unsupported";
    const version = buf.readUInt32BE(4);
    if (version < 2 || version > 4) return "unsupported";
    const count = buf.readUInt32BE(8);
    return (
        parseEntries(buf, version, count, 20) ??
        parseEntries(buf, version, count, 32) ??
        "unsupported"
    );
}

const GIT_LOCATION_ENV = ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR"];

/**
 * `git ls-files -z ARGS` in the repository whose working tree is `root`, with
 * the repository's programs switched off: its NUL-separated records, or null
 * when git cannot answer.
 */
function hardenedLsFiles(root: string, lsArgs: readonly string[]): string[] | null {
    try {
        const args = ["-c", "core.quotePath=false", ...GIT_NO_REPO_PROGRAMS_ARGS];
        const stdout = execFileSync("git", [...args, "ls-files", "-z", ...lsArgs], {
            cwd: root,
            // git must read this tree's own index, whatever the caller's environment says.
            env: {
                ...childEnv(process.env, [...PROVIDER_SECRET_ENV, ...GIT_LOCATION_ENV]),
                ...GIT_NO_REPO_PROGRAMS_ENV,
            },
            maxBuffer: 1 << 30,
            stdio: ["ignore", "pipe", "ignore"],
            timeout: 30_000,
            windowsHide: true,
        });
        return stdout
            .toString("utf8")
            .split("\0")
            .filter((record) => record !== "");
    } catch {
        return null;
    }
}

/** `--stage` records ("<mode> <object> <stage>\t<path>") split into mode and path. */
function stagedEntries(records: readonly string[]): { gitlink: boolean; path: string }[] {
    return records.flatMap((record) => {
        const tab = record.indexOf("\t");
        if (tab < 0) return [];
        return [{ gitlink: record.startsWith("160000 "), path: record.slice(tab + 1) }];
    });
}

function gitLsFiles(root: string): TrackedFiles {
    const records = hardenedLsFiles(root, ["--stage"]);
    if (records === null) return NOTHING_TRACKED;
    const files = stagedEntries(records)
        .filter((entry) => !entry.gitlink)
        .map((entry) => entry.path);
    return new PathSet(new Set(files));
}

/**
 * The tracked files of the repository whose working tree is `root`: none for a
 * folder that is not a repository or a repository with nothing staged yet.
 * Synchronous, like the walk that asks for it (only once it meets an ignored path).
 */
export function readTrackedFiles(root: string): TrackedFiles {
    const gitDir = gitDirOf(root);
    if (!gitDir) return NOTHING_TRACKED;
    let buf: Buffer;
    try {
        buf = readFileSync(path.join(gitDir, "index"));
    } catch {
        return NOTHING_TRACKED;
    }
    const parsed = parseGitIndex(buf);
    return parsed === "unsupported" ? gitLsFiles(root) : parsed;
}

/**
 * The tracked files below `dirs` (repo-relative POSIX folders) of the
 * repository whose working tree is `root`, from `git ls-files` run with the
 * repository's programs switched off. Null when `root` is not a repository
 * or git cannot answer: the caller decides what stands in.
 */
export function listTrackedFilesUnder(root: string, dirs: readonly string[]): string[] | null {
    if (!gitDirOf(root)) return null;
    // `:(literal)`: a folder named `[x]` or `*` is that folder, not a pattern.
    return hardenedLsFiles(root, ["--", ...dirs.map((dir) => `:(literal)${dir}/`)]);
}

/**
 * The gitlinks (submodule entries, mode 160000) in the index of the repository
 * whose working tree is `root`, as repo-relative POSIX paths, from
 * `git ls-files --stage` run with the repository's programs switched off.
 * Null when `root` is not a repository or git cannot answer.
 */
export function listGitlinks(root: string): string[] | null {
    if (!gitDirOf(root)) return null;
    const records = hardenedLsFiles(root, ["--stage"]);
    if (records === null) return null;
    return stagedEntries(records)
        .filter((entry) => entry.gitlink)
        .map((entry) => entry.path);
}
