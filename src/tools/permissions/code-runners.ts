/**
 * Programs whose prefix rule would let any code run, for the "don't ask again
 * for commands starting …" option: an interpreter runs whatever program text
 * or file it is given, a launcher runs whatever command follows it, and some
 * subcommands fetch or run an arbitrary program. A prefix rule for these
 * grants everything, so the shell review offers none (or, for an interpreter
 * given a script in the project, the prefix with the script).
 */

/** Interpreters: `python3 tools/gen.py` may keep its script; `python3:*` is never offered. */
const INTERPRETER =
    /^(?:python[\d.]*|pypy[\d.]*|node|nodejs|ts-node|tsx|bash|sh|dash|zsh|ksh|mksh|fish|csh|tcsh|perl[\d.]*|ruby[\d.]*|php[\d.]*|lua[\d.]*|luajit|rscript|tclsh|wish|osascript|pwsh|powershell|groovy|jshell|elixir|erl|escript|julia)$/i;

/** Programs that run code from their arguments or a file they pick up, or launch another program: never a prefix. */
const NEVER_PREFIX = new Set([
    // Program text in the arguments.
    "awk",
    "gawk",
    "mawk",
    "nawk",
    "sed",
    "jq",
    "busybox",
    // Launchers of whatever command follows.
    "env",
    "sudo",
    "doas",
    "su",
    "runuser",
    "pkexec",
    "xargs",
    "parallel",
    "nice",
    "nohup",
    "timeout",
    "time",
    "exec",
    "eval",
    "command",
    "builtin",
    "source",
    ".",
    "chroot",
    "stdbuf",
    "ionice",
    "setsid",
    "flock",
    "strace",
    "ltrace",
    "gdb",
    "watch",
    "script",
    "unbuffer",
    "unshare",
    "nsenter",
    "bwrap",
    "firejail",
    "ssh",
    "find",
    "fd",
    // Run a file of rules that names any program, or any options that load code.
    "make",
    "gmake",
    "cmake",
    "ninja",
    "just",
    "rake",
    "npx",
    "pnpx",
    "bunx",
    "uvx",
    "pipx",
    "deno",
]);

/** Subcommands that run or fetch an arbitrary program (`uv run python -c …`, `npm exec x --flag`). */
const LAUNCHING_SUBCOMMANDS: Record<string, ReadonlySet<string>> = {
    npm: new Set(["exec", "x", "explore"]),
    pnpm: new Set(["exec", "dlx", "x"]),
    yarn: new Set(["exec", "dlx"]),
    bun: new Set(["x", "exec"]),
    uv: new Set(["run", "tool"]),
    poetry: new Set(["run"]),
    pip: new Set(["install"]),
    pip3: new Set(["install"]),
    go: new Set(["run", "generate", "tool"]),
    cargo: new Set(["install"]),
    docker: new Set(["run", "exec", "compose", "build"]),
    kubectl: new Set(["exec", "run", "debug"]),
    gh: new Set(["extension", "alias"]),
    git: new Set([
        "config",
        "submodule",
        "filter-branch",
        "bisect",
        "rebase",
        "difftool",
        "mergetool",
    ]),
};

/** What the shell review may offer as a prefix for a command starting `name`. */
export type PrefixPolicy = "never" | "interpreter" | "plain";

export function prefixPolicy(name: string): PrefixPolicy {
    // A path names whatever program is there: a script in the project keeps its name, nothing else.
    if (name.includes("/")) return isProjectScript(name) ? "plain" : "never";
    if (NEVER_PREFIX.has(name)) return "never";
    if (INTERPRETER.test(name)) return "interpreter";
    return "plain";
}

/** `subcommand` of `tool` runs or fetches an arbitrary program. */
export function launchesProgram(tool: string, subcommand: string): boolean {
    return LAUNCHING_SUBCOMMANDS[tool]?.has(subcommand) ?? false;
}

/**
 * A script an interpreter's prefix may keep: a plain relative path inside the
 * project (no option, no `..`, no home or absolute path, no pattern), naming a
 * file rather than a module or program text.
 */
export function isProjectScript(word: string): boolean {
    if (!/^[\w@%+=,./-]+$/.test(word) || word.startsWith("-") || word.startsWith("/")) return false;
    if (word.split("/").some((part) => part === ".." || part === "")) return false;
    return /\.[a-z0-9]+$/i.test(word) || word.includes("/");
}
