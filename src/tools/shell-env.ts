/**
 * The environment of the commands the shell service runs: the inherited one
 * without North's secrets, marked with the owner tag. A command has no
 * terminal, so it is made non-interactive: no editor opens (`true` accepts
 * the file as it is), no pager waits, git asks for no password. A tty
 * process has a terminal the model drives: editors and git's prompts are
 * what it is for, so it keeps the user's editor (or `vi`) and git may ask
 * (a password prompt goes to the user's masked field). Pagers stay off
 * there too: `git log` waiting in `less` would surprise the model.
 */
import { childEnv } from "../util/child-env";
import { findOnPath } from "../util/find-on-path";
import { ownerEnv } from "./child-reaper";

/** What makes a command without a terminal non-interactive (also a tty command that fell back to pipes). */
export const NON_INTERACTIVE_ENV: Readonly<Record<string, string>> = {
    GIT_TERMINAL_PROMPT: "0",
    GIT_EDITOR: "true",
    EDITOR: "true",
    VISUAL: "true",
};

/** The editor a tty process gets when the user set none (if it is on PATH). */
const TTY_EDITOR = "vi";

/** The editor variables of a tty process: the user's, else `vi` where there is one, else none. */
function ttyEditors(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
    const chosen =
        base.VISUAL ||
        base.EDITOR ||
        (findOnPath(TTY_EDITOR, base.PATH) !== null ? TTY_EDITOR : undefined);
    const editors: NodeJS.ProcessEnv = {};
    if (chosen === undefined) return editors;
    editors.VISUAL = base.VISUAL || chosen;
    editors.EDITOR = base.EDITOR || chosen;
    // Unset, git looks at core.editor, then VISUAL and EDITOR: the user's choice.
    if (base.GIT_EDITOR) editors.GIT_EDITOR = base.GIT_EDITOR;
    return editors;
}

/** A command's environment; `tty`: a tty process's (editors and git prompts left working). */
export function shellEnv(
    base: NodeJS.ProcessEnv,
    hidden: readonly string[],
    ownerTag: string,
    options: { tty?: boolean } = {}
): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {
        ...childEnv(base, hidden),
        ...ownerEnv(ownerTag),
        PAGER: "cat",
        GIT_PAGER: "cat",
        NO_COLOR: "1",
    };
    if (options.tty) {
        for (const name of ["EDITOR", "VISUAL", "GIT_EDITOR"]) delete env[name];
        Object.assign(env, ttyEditors(base));
    } else {
        Object.assign(env, NON_INTERACTIVE_ENV);
    }
    delete env.FORCE_COLOR;
    delete env.CLICOLOR_FORCE;
    return env;
}
