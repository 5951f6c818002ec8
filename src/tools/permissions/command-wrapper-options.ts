/**
 * The options of commands that run other commands, so that the command they
 * run can be found after them, and the variables safe to set inline.
 */
import type { Word } from "./command-words";

/** Variables a command may set inline without changing which program runs or what it loads. */
const SAFE_VARIABLES =
    /^(NODE_ENV|CI|DEBUG|FORCE_COLOR|NO_COLOR|TZ|LANG|LANGUAGE|LC_[A-Z]+|TERM|COLUMNS|LINES|RUST_LOG|RUST_BACKTRACE|GOOS|GOARCH|CGO_ENABLED|PYTHONUNBUFFERED|PYTHONDONTWRITEBYTECODE|NODE_NO_WARNINGS|VERBOSE|TMPDIR)$/;

function isSafeVariable(name: string): boolean {
    return SAFE_VARIABLES.test(name);
}

function unsafeVariableReason(name: string): string {
    return `it sets ${name}, which can change what runs`;
}

/**
 * Why setting NAME to VALUE needs a review, or undefined. A safe name is exempt
 * only with a plain value: any other value could reach an arithmetic context
 * or a prompt expansion (`a[$(cmd)]`) and run there. A null value sets nothing.
 */
export function settingProblem(name: string, value: Word | null): string | undefined {
    if (!isSafeVariable(name)) return unsafeVariableReason(name);
    if (value === null || (!value.dynamic && /^[\w.,:/@%+=*-]*$/.test(value.value)))
        return undefined;
    return `it sets ${name} to a value that is not a plain word`;
}

/** `NAME=value` as one word (after `env` or `sudo`): the problem with that setting. */
export function settingWordProblem(word: Word): string | undefined {
    const eq = word.value.indexOf("=");
    return settingProblem(word.value.slice(0, eq), {
        value: word.value.slice(eq + 1),
        dynamic: word.dynamic,
    });
}

export interface OptionSpec {
    /** Options that take the next word as their value (`-u NAME`). */
    withValue: string[];
    /** Options that take no value. */
    flags: string[];
    /** Long options that may carry `=value`. */
    longWithValue?: string[];
}

/**
 * Skips the options of a wrapper; returns the index of its first operand, or
 * null when an option is not known (the wrapper is then not looked through).
 */
export function skipOptions(
    words: readonly Word[],
    start: number,
    spec: OptionSpec
): number | null {
    let i = start;
    while (i < words.length) {
        const word = words[i]!;
        if (word.dynamic) return word.value.startsWith("-") ? null : i;
        const text = word.value;
        if (text === "--") return i + 1;
        if (!text.startsWith("-") || text === "-") return i;
        if (spec.withValue.includes(text)) {
            i += 2;
            continue;
        }
        if (spec.flags.includes(text)) {
            i++;
            continue;
        }
        const long = text.split("=")[0]!;
        if (text.startsWith("--") && text.includes("=") && spec.longWithValue?.includes(long)) {
            i++;
            continue;
        }
        // `-uNAME`, `-n10`: a short option glued to its value.
        const short = text.slice(0, 2);
        if (!text.startsWith("--") && spec.withValue.includes(short)) {
            i++;
            continue;
        }
        return null;
    }
    return i;
}

export const WRAPPER_OPTIONS: Record<string, OptionSpec> = {
    command: { withValue: [], flags: ["-p"] },
    builtin: { withValue: [], flags: [] },
    exec: { withValue: ["-a"], flags: ["-c", "-l", "-cl", "-lc"] },
    nohup: { withValue: [], flags: [] },
    coproc: { withValue: [], flags: [] },
    busybox: { withValue: [], flags: [] },
    noglob: { withValue: [], flags: [] },
    setsid: { withValue: [], flags: ["-c", "-f", "-w", "--ctty", "--fork", "--wait"] },
    watch: {
        withValue: ["-n", "-q"],
        flags: [
            "-d",
            "-t",
            "-b",
            "-e",
            "-g",
            "-c",
            "-x",
            "-p",
            "-w",
            "-r",
            "--differences",
            "--no-title",
            "--beep",
            "--errexit",
            "--chgexit",
            "--color",
            "--exec",
            "--precise",
            "--no-wrap",
            "--no-rerun",
        ],
        longWithValue: ["--interval", "--differences", "--equexit"],
    },
    nice: { withValue: ["-n"], flags: [], longWithValue: ["--adjustment"] },
    time: {
        withValue: ["-f", "-o"],
        flags: ["-p", "-a", "-v", "--portability", "--append", "--verbose"],
        longWithValue: ["--format", "--output"],
    },
    stdbuf: {
        withValue: ["-i", "-o", "-e"],
        flags: [],
        longWithValue: ["--input", "--output", "--error"],
    },
    timeout: {
        withValue: ["-s", "-k"],
        flags: ["--foreground", "--preserve-status", "-v", "--verbose", "-f", "-p"],
        longWithValue: ["--signal", "--kill-after"],
    },
    xargs: {
        withValue: ["-I", "-L", "-n", "-P", "-s", "-d", "-E", "-a"],
        flags: [
            "-0",
            "-r",
            "-t",
            "-p",
            "-x",
            "-o",
            "--null",
            "--no-run-if-empty",
            "--verbose",
            "--interactive",
            "--exit",
            "--open-tty",
            "--show-limits",
            "-i",
            "--replace",
        ],
        longWithValue: [
            "--arg-file",
            "--delimiter",
            "--max-args",
            "--max-lines",
            "--max-procs",
            "--replace",
            "--max-chars",
            "--eof",
        ],
    },
    sudo: {
        withValue: ["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-T", "-U"],
        flags: [
            "-E",
            "-H",
            "-n",
            "-S",
            "-b",
            "-k",
            "-A",
            "-P",
            "-B",
            "-N",
            "--preserve-env",
            "--non-interactive",
            "--stdin",
            "--background",
            "--reset-timestamp",
            "--askpass",
            "--preserve-groups",
            "--set-home",
        ],
        longWithValue: [
            "--user",
            "--group",
            "--host",
            "--prompt",
            "--close-from",
            "--chdir",
            "--role",
            "--type",
            "--command-timeout",
            "--other-user",
            "--preserve-env",
        ],
    },
    doas: { withValue: ["-u", "-C"], flags: ["-n", "-s"] },
    env: {
        withValue: ["-u", "-C", "-S"],
        flags: ["-i", "-0", "-v", "--null", "--ignore-environment", "--debug"],
        longWithValue: ["--unset", "--chdir"],
    },
};
