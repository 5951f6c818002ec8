/**
 * The keys of a git config file that make git run a program (or read another
 * file that may): one list for trust's inventory and the sandbox's check of
 * repositories a command made, so the two cannot drift apart.
 */

const PROGRAM_KEYS = new Set([
    "core.fsmonitor",
    "core.hookspath",
    "core.sshcommand",
    "core.editor",
    "core.pager",
    "core.askpass",
    "core.gitproxy",
    "core.alternaterefscommand",
    "diff.external",
    "gpg.program",
    "credential.helper",
    "sequence.editor",
    "uploadpack.packobjectshook",
    "include.path",
    "sendemail.sendmailcmd",
    "imap.tunnel",
]);

const PROGRAM_KEY_PATTERNS = [
    /^diff\..+\.(?:command|textconv)$/,
    /^merge\..+\.driver$/,
    /^filter\..+\.(?:clean|smudge|process)$/,
    /^gpg\..+\.program$/,
    /^credential\..+\.helper$/,
    /^includeif\..+\.path$/,
    /^remote\..+\.(?:uploadpack|receivepack)$/,
    /^(?:mergetool|difftool)\..+\.cmd$/,
    /^pager\..+$/,
    /^(?:browser|man)\..+\.(?:cmd|path)$/,
    /^trailer\..+\.(?:command|cmd)$/,
];

/** A value that names no program (`core.fsmonitor = true` is git's own daemon). */
const NO_PROGRAM = /^(?:|true|false|yes|no|on|off|[01])$/i;

/** Whether `key = value` (key lower-cased, as parseGitConfig gives it) makes git run a program. */
export function isGitProgramKey(key: string, value: string): boolean {
    // `!cmd` runs a shell command: an alias, or `git submodule update` with this value.
    if (key.startsWith("alias.") || /^submodule\..+\.update$/.test(key))
        return value.trim().startsWith("!");
    if (NO_PROGRAM.test(value.trim())) return false;
    return PROGRAM_KEYS.has(key) || PROGRAM_KEY_PATTERNS.some((p) => p.test(key));
}
