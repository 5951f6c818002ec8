/**
 * Marketplace and plugin repositories are fetched with North's hardened git:
 * no hooks, no filters or merge drivers of the repository, no submodules, no
 * LFS, and never a credential prompt (a source that needs one fails at once).
 * A fetch pins one commit; nothing moves until the user asks for an update.
 */
import { mkdirSync } from "node:fs";
import { type GitOptions, runGit } from "../../util/hardened-git";

/** Transports a marketplace may use (`ext::`, `fd::` and the like stay off). */
const ALLOWED_PROTOCOLS = "https:http:ssh:git:file";

/** Extra config for every fetch: no stored credential helper, no askpass program. */
const FETCH_CONFIG: readonly string[] = [
    "-c",
    "credential.helper=",
    "-c",
    "core.askPass=",
    "-c",
    "advice.detachedHead=false",
    "-c",
    "submodule.recurse=false",
    "-c",
    "fetch.recurseSubmodules=false",
];

export class GitFetchError extends Error {}

function fetchEnv(): Record<string, string> {
    const ssh = process.env.GIT_SSH_COMMAND?.trim() || "ssh";
    return {
        GIT_ALLOW_PROTOCOL: ALLOWED_PROTOCOLS,
        GIT_TERMINAL_PROMPT: "0",
        GIT_ASKPASS: "",
        SSH_ASKPASS: "",
        SSH_ASKPASS_REQUIRE: "never",
        GIT_SSH_COMMAND: `${ssh} -o BatchMode=yes`,
        GIT_LFS_SKIP_SMUDGE: "1",
    };
}

function gitOptions(signal?: AbortSignal): GitOptions {
    return { extraConfig: FETCH_CONFIG, env: fetchEnv(), signal, timeoutMs: 300_000 };
}

/**
 * git's own words for "this needs a user name, password or key" (git gives no
 * exit code of its own for it, so the message is all there is).
 */
const CREDENTIAL_PATTERNS = [
    /terminal prompts disabled/i,
    /could not read (Username|Password)/i,
    /Authentication failed/i,
    /Permission denied \(publickey/i,
    /Host key verification failed/i,
    /returned error: 40[13]/i,
];

function describeFailure(url: string, stderr: string): string {
    const text = stderr.trim().split("\n").filter(Boolean);
    if (CREDENTIAL_PATTERNS.some((pattern) => pattern.test(stderr))) {
        return (
            `${url} needs credentials; North does not prompt for them: use a URL your git can ` +
            `reach without a prompt (ssh key, credential helper) or a local clone`
        );
    }
    const last = text.filter((line) => !/^(hint|warning):/i.test(line)).at(-1);
    return `could not fetch ${url}: ${last ?? "git failed"}`;
}

/**
 * `git fetch --depth 1 URL REF` into `repo` and a detached checkout of what it
 * fetched (the repository's filter drivers off): the pinned commit.
 */
async function fetchAndCheckout(
    repo: string,
    url: string,
    want: string,
    signal?: AbortSignal
): Promise<string> {
    const options = gitOptions(signal);
    const fetched = await runGit(
        repo,
        [
            "fetch",
            "--quiet",
            "--depth",
            "1",
            "--no-tags",
            "--no-recurse-submodules",
            "--",
            url,
            want,
        ],
        options
    );
    if (fetched.code !== 0) throw new GitFetchError(describeFailure(url, fetched.stderr));
    const commit = await runGit(repo, ["rev-parse", "--verify", "FETCH_HEAD^{commit}"], options);
    if (commit.code !== 0) throw new GitFetchError(`could not fetch ${url}: no commit fetched`);
    const sha = commit.stdout.trim();
    const checkout = await runGit(
        repo,
        ["checkout", "--quiet", "--force", "--detach", "--no-recurse-submodules", sha],
        options
    );
    if (checkout.code !== 0) {
        throw new GitFetchError(`could not check out ${sha} of ${url}: ${checkout.stderr.trim()}`);
    }
    return sha;
}

export interface FetchRequest {
    /** A git URL or an absolute path of a local repository. */
    url: string;
    /** A branch or tag; the remote's HEAD when absent. */
    ref?: string;
    /** A full commit (plugin sources only): wins over `ref`. */
    sha?: string;
    signal?: AbortSignal;
}

/**
 * Makes `dir` (absent or empty) a repository holding one commit of the source,
 * checked out; returns the commit.
 */
export async function cloneAtCommit(dir: string, request: FetchRequest): Promise<string> {
    mkdirSync(dir, { recursive: true });
    // No template: no sample hooks copied in (hooks are off anyway).
    const init = await runGit(dir, ["init", "--quiet", "--template=", "."], gitOptions());
    if (init.code !== 0) throw new GitFetchError(`git init failed: ${init.stderr.trim()}`);
    return fetchAndCheckout(dir, request.url, request.sha ?? request.ref ?? "HEAD", request.signal);
}

/** Fetches the source again into its clone and checks the new commit out; returns it. */
export async function refetch(dir: string, request: FetchRequest): Promise<string> {
    return fetchAndCheckout(dir, request.url, request.sha ?? request.ref ?? "HEAD", request.signal);
}

/** Moves the clone back to a commit it already has (an update that turned out broken). */
export async function checkoutCommit(dir: string, commit: string): Promise<void> {
    await runGit(dir, ["checkout", "--quiet", "--force", "--detach", commit], gitOptions());
}

/** The top folder of the repository `dir` is in, or undefined when it is in none. */
export async function repositoryTop(dir: string): Promise<string | undefined> {
    const result = await runGit(dir, ["rev-parse", "--show-toplevel"], gitOptions());
    if (result.code !== 0) return undefined;
    return result.stdout.trim() || undefined;
}

/** A bare repository (no work tree) counts as a repository too. */
export async function isBareRepository(dir: string): Promise<boolean> {
    const result = await runGit(dir, ["rev-parse", "--is-bare-repository"], gitOptions());
    return result.code === 0 && result.stdout.trim() === "true";
}
