/**
 * Looks through commands that run other commands (`env`, `sudo`, `timeout`,
 * `xargs`, `find -exec`, `bash -c`, `eval`...) so that every command that
 * would run is judged, not only the first word.
 */
import { basename } from "node:path";
import { WRAPPER_OPTIONS, settingWordProblem, skipOptions } from "./command-wrapper-options";
import { type Word, wordsText } from "./command-words";

export interface CommandCheck {
    /** The argv to match against the rules (after quote removal). */
    words: Word[];
    /** The command as written, for messages and `uncovered`. */
    display: string;
    /** true: it needs an allow rule to run unasked; false: a wrapper level, matched by deny and ask rules only. */
    mustAllow: boolean;
    /** Why no allow rule covers it (a `git -c`, a variable that changes what runs, a dynamic name). */
    unallowable?: string;
}

export interface InnerScript {
    /** The script to parse and judge as if run; null when it is only known at run time. */
    text: string | null;
    display: string;
}

export interface UnwrappedCommand {
    checks: CommandCheck[];
    scripts: InnerScript[];
    /** Files the command itself writes (`find -fprint`, `time -o`). */
    writes: Word[];
}

const SHELLS = new Set(["bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "busybox-sh"]);
/** Git options before the subcommand that cannot run other programs or leave the repository. */
const HARMLESS_GIT_OPTIONS = new Set([
    "--no-pager",
    "-P",
    "-p",
    "--paginate",
    "--no-optional-locks",
    "--literal-pathspecs",
    "--no-replace-objects",
]);

interface Level {
    words: Word[];
    display: string;
    unallowable?: string;
}

/** Splits a simple command's argv into the checks of every command it runs. */
export function unwrapCommand(
    words: Word[],
    display: string,
    unallowable?: string
): UnwrappedCommand {
    const result: UnwrappedCommand = { checks: [], scripts: [], writes: [] };
    unwrapInto(result, { words, display, ...(unallowable ? { unallowable } : {}) });
    return result;
}

function unwrapInto(result: UnwrappedCommand, level: Level): void {
    const { words } = level;
    const first = words[0];
    if (!first) return;
    const needsAllow = (extra?: Partial<CommandCheck>): void => {
        result.checks.push({ ...level, mustAllow: true, ...extra });
    };
    /**
     * "transparent": only the inner command needs allowing (`timeout 5 npm test`);
     * "privileged": only the whole `sudo X` does, X's rules still deny and ask;
     * "both": the wrapper changes how it runs (`watch`, `setsid`), so both do.
     */
    const lookThrough = (
        innerStart: number | null,
        mode: "transparent" | "privileged" | "both" = "transparent",
        trailing: Word[] = []
    ): void => {
        if (innerStart === null || innerStart >= words.length) {
            // An unknown option or no inner command: the wrapper is an ordinary command.
            needsAllow();
            return;
        }
        result.checks.push({ ...level, mustAllow: mode !== "transparent" });
        const inner = [...words.slice(innerStart), ...trailing];
        const firstInner = result.checks.length;
        unwrapInto(result, {
            words: inner,
            display: wordsText(inner),
            ...(level.unallowable ? { unallowable: level.unallowable } : {}),
        });
        if (mode !== "privileged") return;
        for (const check of result.checks.slice(firstInner)) check.mustAllow = false;
    };
    if (first.dynamic) {
        needsAllow({ unallowable: `its command name ${first.value} is only known when it runs` });
        return;
    }
    const name = basename(first.value);
    switch (name) {
        case "command":
            // `command -v x` only looks x up.
            if (words.some((word) => word.value === "-v" || word.value === "-V"))
                return needsAllow();
            return lookThrough(skipOptions(words, 1, WRAPPER_OPTIONS.command!));
        case "builtin":
        case "exec":
        case "nohup":
        case "coproc":
        case "stdbuf":
        case "busybox":
        case "noglob":
            return lookThrough(skipOptions(words, 1, WRAPPER_OPTIONS[name]!));
        case "setsid":
            // A new session outlives the shell tool's process group.
            return lookThrough(skipOptions(words, 1, WRAPPER_OPTIONS.setsid!), "both");
        case "watch": {
            const start = skipOptions(words, 1, WRAPPER_OPTIONS.watch!);
            // Without -x, watch joins its arguments and runs them with `sh -c`.
            if (
                start === null ||
                start >= words.length ||
                words.some((word) => word.value === "-x" || word.value === "--exec")
            ) {
                return lookThrough(start, "both");
            }
            // watch repeats until stopped: it needs its own rule.
            result.checks.push({ ...level, mustAllow: true });
            const script = words.slice(start);
            result.scripts.push({
                text: script.some((word) => word.dynamic)
                    ? null
                    : script.map((word) => word.value).join(" "),
                display: level.display,
            });
            return;
        }
        case "time": {
            const start = skipOptions(words, 1, WRAPPER_OPTIONS.time!);
            const output = words.findIndex(
                (word, i) => i > 0 && (word.value === "-o" || word.value === "--output")
            );
            if (output > 0 && words[output + 1]) result.writes.push(words[output + 1]!);
            return lookThrough(start);
        }
        case "nice": {
            // `nice -10 cmd` is an old form of `-n 10`.
            const start =
                words[1] && /^-\d+$/.test(words[1].value)
                    ? 2
                    : skipOptions(words, 1, WRAPPER_OPTIONS.nice!);
            return lookThrough(start);
        }
        case "timeout": {
            const duration = skipOptions(words, 1, WRAPPER_OPTIONS.timeout!);
            return lookThrough(duration === null ? null : duration + 1);
        }
        case "xargs": {
            const start = skipOptions(words, 1, WRAPPER_OPTIONS.xargs!);
            // xargs runs `echo` by default and appends arguments read from its input.
            if (start !== null && start >= words.length) return needsAllow();
            const replace = xargsReplacement(words, start ?? words.length);
            if (replace === undefined)
                return lookThrough(start, "transparent", [
                    { value: "(xargs input)", dynamic: true },
                ]);
            // With -I R every word holding R is rewritten from the input (a `bash -c` script too).
            if (start === null) return needsAllow();
            result.checks.push({ ...level, mustAllow: false });
            const inner = words
                .slice(start)
                .map((word) =>
                    replace === null || word.value.includes(replace)
                        ? { value: word.value, dynamic: true }
                        : word
                );
            return unwrapInto(result, {
                words: inner,
                display: wordsText(inner),
                ...(level.unallowable ? { unallowable: level.unallowable } : {}),
            });
        }
        case "sudo":
        case "doas": {
            let start = skipOptions(words, 1, WRAPPER_OPTIONS[name]!);
            while (start !== null && words[start] && /^[A-Za-z_]\w*=/.test(words[start]!.value)) {
                const problem = settingWordProblem(words[start]!);
                if (problem) level = { ...level, unallowable: problem };
                start++;
            }
            return lookThrough(start, "privileged");
        }
        case "env": {
            if (
                words.some((word) => word.value === "-S" || word.value.startsWith("--split-string"))
            ) {
                return needsAllow({ unallowable: "env -S splits a string into a command" });
            }
            const env = envCommandStart(words);
            if (env.unallowable) level = { ...level, unallowable: env.unallowable };
            return lookThrough(env.start);
        }
        case "eval":
            result.checks.push({ ...level, mustAllow: false });
            result.scripts.push({
                text: words.slice(1).some((word) => word.dynamic)
                    ? null
                    : words
                          .slice(1)
                          .map((word) => word.value)
                          .join(" "),
                display: level.display,
            });
            return;
        case "find":
            return unwrapFind(result, level);
        case "git":
            return unwrapGit(result, level);
        case "npm":
        case "npx":
        case "pnpm":
        case "pnpx":
        case "yarn": {
            result.writes.push(...outputFiles(name, words));
            const risky = riskyPackageManagerOption(words);
            if (!risky) return needsAllow();
            return needsAllow({
                unallowable: `${risky.option} ${risky.reason}`,
            });
        }
        case "alias":
            needsAllow();
            for (const word of words.slice(1)) {
                const eq = word.value.indexOf("=");
                if (word.dynamic) result.scripts.push({ text: null, display: level.display });
                else if (eq > 0)
                    result.scripts.push({ text: word.value.slice(eq + 1), display: level.display });
            }
            return;
        case "hash": {
            // `hash -p /bin/rm r` makes `r` run /bin/rm: judge that program by deny and ask rules.
            needsAllow();
            const option = words.findIndex((word, i) => i > 0 && /^-[a-z]*p$/.test(word.value));
            const program = option > 0 ? words[option + 1] : undefined;
            if (program)
                result.checks.push({ words: [program], display: level.display, mustAllow: false });
            return;
        }
        case "trap": {
            needsAllow();
            const action = words[1];
            if (action && action.value !== "-" && !action.value.startsWith("-")) {
                result.scripts.push({
                    text: action.dynamic ? null : action.value,
                    display: level.display,
                });
            }
            return;
        }
        default:
            if (SHELLS.has(name)) return unwrapShell(result, level);
            result.writes.push(...outputFiles(name, words));
            return needsAllow();
    }
}

/**
 * The replacement string of `xargs -I R` / `-IR` / `--replace[=R]` / `-i[R]`
 * among the options before `end`: undefined without one, null when it is not
 * known (every inner word is then rewritten).
 */
function xargsReplacement(words: readonly Word[], end: number): string | null | undefined {
    let replace: string | null | undefined;
    for (let i = 1; i < end; i++) {
        const { value, dynamic } = words[i]!;
        if (dynamic) {
            if (value.startsWith("-")) replace = null;
            continue;
        }
        if (value === "--") break;
        let found: string | undefined;
        if (value === "-I") found = words[i + 1]?.dynamic ? undefined : words[++i]?.value;
        else if (value.startsWith("-I")) found = value.slice(2);
        else if (value === "--replace" || value === "-i") found = "{}";
        else if (value.startsWith("--replace=")) found = value.slice(10) || "{}";
        else if (/^-i./.test(value)) found = value.slice(2);
        else if (["-L", "-n", "-P", "-s", "-d", "-E", "-a"].includes(value)) i++;
        else continue;
        if (value === "-I" && found === undefined) replace = null;
        else if (found !== undefined) replace = found === "" ? null : found;
    }
    return replace;
}

/** Where the command after `env [options] [NAME=value]...` starts, and a variable that makes it unallowable. */
function envCommandStart(words: readonly Word[]): { start: number | null; unallowable?: string } {
    let start = skipOptions(words, 1, WRAPPER_OPTIONS.env!);
    let unallowable: string | undefined;
    while (start !== null && words[start] && /^[A-Za-z_]\w*=/.test(words[start]!.value)) {
        unallowable ??= settingWordProblem(words[start]!);
        start++;
    }
    return { start, ...(unallowable ? { unallowable } : {}) };
}

function unwrapFind(result: UnwrappedCommand, level: Level): void {
    const { words } = level;
    result.checks.push({ ...level, mustAllow: true });
    for (let i = 1; i < words.length; i++) {
        const option = words[i]!.value;
        if (["-fprint", "-fprint0", "-fls", "-fprintf"].includes(option) && words[i + 1]) {
            result.writes.push(words[i + 1]!);
        }
        if (!["-exec", "-execdir", "-ok", "-okdir"].includes(option)) continue;
        const end = words.findIndex(
            (word, j) => j > i && !word.dynamic && (word.value === ";" || word.value === "+")
        );
        const inner = words
            .slice(i + 1, end < 0 ? words.length : end)
            .map((word) =>
                word.value.includes("{}") ? { value: word.value, dynamic: true } : word
            );
        if (inner.length > 0) unwrapInto(result, { words: inner, display: wordsText(inner) });
        if (end < 0) break;
        i = end;
    }
}

/** Package-manager settings that run other code or read settings from elsewhere, and why. */
const RISKY_PACKAGE_MANAGER_SETTINGS: Record<string, string> = {
    "node-options": "passes options to every node it starts (like NODE_OPTIONS)",
    "script-shell": "chooses the shell that runs scripts",
    shell: "chooses the shell that runs commands",
    call: "runs a command",
    userconfig: "reads settings from another file",
    globalconfig: "reads settings from another file",
    npmrc: "reads settings from another file",
    "use-yarnrc": "reads settings from another file",
    yarnrc: "reads settings from another file",
    prefix: "runs the scripts of another directory",
    dir: "runs the scripts of another directory",
    cwd: "runs the scripts of another directory",
    "init-module": "runs a module",
    "onload-script": "runs a module",
    "node-gyp": "chooses the program that builds native modules",
    git: "chooses the program run as git",
    editor: "chooses a program to run",
    browser: "chooses a program to run",
    viewer: "chooses a program to run",
};
/** Options of their own that would otherwise read as abbreviations of the above (`--global`). */
const HARMLESS_PACKAGE_MANAGER_OPTIONS = new Set(["global", "ca", "user"]);
/** Short forms: `-C DIR` (npm, pnpm: --prefix / --dir), `-c CMD` (npm exec --call). */
const RISKY_PACKAGE_MANAGER_SHORT: Record<string, string> = { "-C": "prefix", "-c": "call" };

/**
 * The first `npm`/`npx`/`pnpm`/`yarn` option before `--` that changes what
 * runs. Names are matched as npm reads them: `_` for `-`, pnpm's `--config.`
 * prefix, and any abbreviation of a long name.
 */
function riskyPackageManagerOption(
    words: readonly Word[]
): { option: string; reason: string } | undefined {
    // npx passes everything after the package's command to that command.
    const npx = ["npx", "pnpx"].includes(basename(words[0]!.value));
    for (const [i, word] of words.entries()) {
        if (i === 0) continue;
        if (word.value === "--" && !word.dynamic) return undefined;
        const previous = words[i - 1]!.value;
        if (npx && !word.value.startsWith("-") && !["-p", "--package"].includes(previous))
            return undefined;
        const short = RISKY_PACKAGE_MANAGER_SHORT[word.value.slice(0, 2)];
        if (short && !word.value.startsWith("--"))
            return {
                option: word.value.slice(0, 2),
                reason: RISKY_PACKAGE_MANAGER_SETTINGS[short]!,
            };
        if (!word.value.startsWith("--")) continue;
        const name = word.value
            .slice(2)
            .split("=")[0]!
            .toLowerCase()
            .replace(/_/g, "-")
            .replace(/^config\./, "");
        if (name.length < 2 || HARMLESS_PACKAGE_MANAGER_OPTIONS.has(name)) continue;
        for (const [setting, reason] of Object.entries(RISKY_PACKAGE_MANAGER_SETTINGS)) {
            if (setting.startsWith(name)) return { option: word.value.split("=")[0]!, reason };
        }
    }
    return undefined;
}

/** Commands whose `-o FILE` writes FILE (`sort -o`, `tree -o`). */
const SHORT_OUTPUT_OPTION = new Set(["sort", "tree"]);

/**
 * Files an allowed command may write through an option rather than a
 * redirection: `--output FILE` / `--output=FILE` (`git diff --output=.env`),
 * and `-o FILE` for the commands above. They are judged like `> FILE`.
 */
function outputFiles(name: string, words: readonly Word[]): Word[] {
    const files: Word[] = [];
    for (let i = 1; i < words.length; i++) {
        const { value, dynamic } = words[i]!;
        const next = words[i + 1];
        // Long options may be abbreviated (`--outp=FILE`).
        const long = /^--(o(?:u(?:t(?:p(?:u(?:t)?)?)?)?)?)(=|$)/.exec(value);
        if (long?.[2] === "=") files.push({ value: value.slice(long[0].length), dynamic });
        else if ((long || (value === "-o" && SHORT_OUTPUT_OPTION.has(name))) && next)
            files.push(next);
        else if (SHORT_OUTPUT_OPTION.has(name) && /^-o./.test(value))
            files.push({ value: value.slice(2), dynamic });
    }
    return files;
}

function unwrapGit(result: UnwrappedCommand, level: Level): void {
    const { words } = level;
    result.writes.push(...outputFiles("git", words));
    let i = 1;
    let risky: string | undefined;
    while (i < words.length && words[i]!.value.startsWith("-")) {
        const option = words[i]!.value;
        if (!HARMLESS_GIT_OPTIONS.has(option)) risky ??= option;
        // These take their value as the next word unless written `--opt=value` or `-ckey=value`.
        const takesNext = [
            "-c",
            "-C",
            "--config-env",
            "--git-dir",
            "--work-tree",
            "--namespace",
            "--exec-path",
            "--super-prefix",
            "--attr-source",
        ].includes(option);
        i += takesNext ? 2 : 1;
    }
    if (!risky) {
        result.checks.push({ ...level, words: [words[0]!, ...words.slice(i)], mustAllow: true });
        return;
    }
    // The full form for deny rules written with the option, the plain form for `git push`-style rules.
    result.checks.push({ ...level, mustAllow: false });
    result.checks.push({
        ...level,
        words: [words[0]!, ...words.slice(i)],
        mustAllow: true,
        unallowable: `git ${risky} can run other programs or change the repository git works on`,
    });
}

/** `bash -c 'script'`: the script is judged; `bash file.sh` or plain `bash` is an ordinary command. */
function unwrapShell(result: UnwrappedCommand, level: Level): void {
    const { words } = level;
    let i = 1;
    let commandMode = false;
    while (i < words.length) {
        const word = words[i]!;
        if (word.dynamic) break;
        const text = word.value;
        if (text === "--" || text === "-") {
            i++;
            break;
        }
        if (text === "-o" || text === "+o" || text === "-O" || text === "+O") {
            i += 2;
            continue;
        }
        if (
            [
                "--norc",
                "--noprofile",
                "--posix",
                "--login",
                "--restricted",
                "--verbose",
                "--noediting",
            ].includes(text)
        ) {
            i++;
            continue;
        }
        if (/^[-+][a-zA-Z]+$/.test(text)) {
            if (text.startsWith("-") && text.includes("c")) commandMode = true;
            i++;
            continue;
        }
        if (text.startsWith("-")) {
            result.checks.push({ ...level, mustAllow: true });
            return;
        }
        break;
    }
    if (!commandMode) {
        result.checks.push({ ...level, mustAllow: true });
        return;
    }
    const script = words[i];
    result.checks.push({ ...level, mustAllow: false });
    result.scripts.push({
        text: script && !script.dynamic ? script.value : null,
        display: level.display,
    });
}
