/**
 * A repository's own .git/config can name programs for git to run (a tarball
 * or a copied folder brings its .git along, and trust does not cover it).
 * North's own git calls (the file list, the history hotfiles reads) run with
 * these settings, so that config runs nothing: no fsmonitor hook, no
 * signature-checking program, no lazy fetch of a fake partial clone (which
 * would run its `uploadpack` or `sshCommand`), no hooks.
 */
export const GIT_NO_REPO_PROGRAMS_ARGS: readonly string[] = [
    "-c",
    "core.fsmonitor=false",
    "-c",
    "log.showSignature=false",
    "-c",
    "protocol.allow=never",
    "-c",
    "core.hooksPath=/dev/null",
];

/**
 * The environment half: no transport at all (unlike `protocol.allow`, the
 * repository's own `protocol.<name>.allow` cannot override it), no lazy fetch
 * (git 2.44+), no prompts, no index lock taken.
 */
export const GIT_NO_REPO_PROGRAMS_ENV: Readonly<Record<string, string>> = {
    GIT_ALLOW_PROTOCOL: "none",
    GIT_NO_LAZY_FETCH: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
};
