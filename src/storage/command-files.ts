/**
 * Which files a configured command line runs. A word counts when bash would
 * run it as code: the program written as a path, a file given to an
 * interpreter, package runner or wrapper (its arguments, `-r`/`--import`
 * preloads), a file fed to an interpreter's standard input (`bash < x`,
 * `cat x | sh`, `sh -c "$(cat x)"`, `bash <(cat x)`), a file named by a
 * variable the program reads as code (`NODE_OPTIONS`, `BASH_ENV`, `ENV`,
 * `PYTHONSTARTUP`, `GIT_SSH_COMMAND`…), the command in a `git -c` program
 * value, and what a followed shell script runs or sources. The project's
 * root (`$(git rev-parse --show-toplevel)`, `$CLAUDE_PROJECT_DIR`), `$PWD`,
 * `$(pwd)`, a script's own folder (`$(dirname "$0")`, `${BASH_SOURCE%/*}`)
 * and variables a line sets to one of these are resolved; any other
 * expansion leaves its word unresolved, so it counts for nothing.
 */
import { posix, resolve } from "node:path";
import { type SimpleCommand, shellCommands, substitutionBodies } from "./shell-line";

/** A word that may name a file a command runs, resolved as far as it can be. */
export interface CommandFile {
    /** The word with the expansions North could resolve; unresolved words are not candidates. */
    word: string;
    /** Named after `-m`: a Python module. */
    module: boolean;
    /** Where the command runs, after any `cd` before it. */
    cwd: string;
    /** The folder of the script whose line named it: a sourced path may be written from there. */
    scriptDir?: string;
    /** Named where bash runs it as a shell script (`sh x`, `source x`, `bash < x`): read its lines too. */
    shell: boolean;
    /** Named by `source`/`.`: it runs in the naming script's shell, so `$0` stays that script's. */
    sourced: boolean;
    /** `$0` of the line that named it. */
    program?: string;
}

/** Where a line is read: the project, the folder it runs in, the script that holds it. */
export interface LineScope {
    root: string;
    cwd: string;
    /** The script whose lines these are (`$BASH_SOURCE`), and the one bash runs (`$0`). */
    script?: string;
    program?: string;
    /** Variables set earlier to a value North could resolve. */
    vars: Map<string, string>;
}

/** Nested command lines (`bash -c '…'`, `$(…)`, `git -c` values) are read this deep. */
const MAX_NESTING = 4;
/**
 * Characters one collector reads in all (nested lines counted again) and
 * words it keeps: a bound on the work at each start, whatever the files hold.
 */
const MAX_CHARACTERS_READ = 4 * 1024 * 1024;
const MAX_WORDS_KEPT = 20_000;

/**
 * Programs that run a file named among their arguments: interpreters, package
 * runners (`npx tsx x.ts`, `uv run x.py`) and wrappers (`env`, `timeout`).
 */
const RUNNER =
    /^(?:sh|bash|zsh|dash|ksh|mksh|fish|node|nodejs|deno|bun|tsx|ts-node|python[0-9.]*|pypy[0-9.]*|ruby|perl|php|lua|Rscript|awk|gawk|osascript|pwsh|npx|pnpx|bunx|uv|uvx|poetry|pipenv|pdm|hatch|env|exec|nohup|timeout|nice|time|command|sudo|stdbuf|xargs|source|\.|eval)$/;
/** Interpreters that read their program from standard input when given no script. */
const INTERPRETER =
    /^(?:sh|bash|zsh|dash|ksh|mksh|fish|node|nodejs|deno|bun|python[0-9.]*|pypy[0-9.]*|ruby|perl|php|lua|pwsh)$/;
const SHELL = /^(?:sh|bash|zsh|dash|ksh|mksh|source|\.)$/;
/** Options whose value is the program: no script is read from standard input. */
const INLINE_PROGRAM = /^(?:-[a-zA-Z]*c|-e|-E|--eval|-p|--print|-m|--command)$/;
/** Interpreter options that take the next word as their value. */
const OPTION_WITH_VALUE =
    /^(?:-r|--require|--import|--loader|--experimental-loader|-o|-O|\+o|\+O|-X|-W|-I|--env-file)$/;
/** Variables whose value is a program, a command line or a file the program runs first. */
const PROGRAM_VARIABLE =
    /^(?:NODE_OPTIONS|BASH_ENV|ENV|PYTHONSTARTUP|PERL5OPT|RUBYOPT|LD_PRELOAD|GIT_SSH|GIT_SSH_COMMAND|GIT_PAGER|GIT_EDITOR|GIT_SEQUENCE_EDITOR|GIT_EXTERNAL_DIFF|GIT_ASKPASS|SSH_ASKPASS|PAGER|EDITOR|VISUAL|SHELL|PROMPT_COMMAND)$/;
const RESERVED = new Set(["if", "then", "else", "elif", "do", "while", "until", "!", "{"]);
const DECLARE = new Set(["export", "declare", "typeset", "local", "readonly"]);

const baseName = (word: string): string => word.slice(word.lastIndexOf("/") + 1);

/**
 * `${…}` parameter forms North resolves: a name, `[0]`, `%/*` (the folder),
 * and `:-default` of a variable it knows (the default never applies then).
 */
function parameter(body: string, scope: LineScope): string | undefined {
    const m = /^([A-Za-z_][A-Za-z0-9_]*|0)(?:\[0\])?(%\/\*|:?-.*)?$/s.exec(body);
    if (!m) return undefined;
    const value = variable(m[1]!, scope);
    if (value === undefined) return undefined;
    return m[2] === "%/*" ? posix.dirname(value) : value;
}

function variable(name: string, scope: LineScope): string | undefined {
    if (name === "PWD") return scope.cwd;
    if (name === "CLAUDE_PROJECT_DIR" || name === "NORTH_PROJECT_DIR") return scope.root;
    if (name === "BASH_SOURCE") return scope.script;
    if (name === "0") return scope.program;
    return scope.vars.get(name);
}

/** The output of a command substitution North can tell without running anything. */
function substitutionValue(body: string, scope: LineScope, depth: number): string | undefined {
    if (depth >= MAX_NESTING) return undefined;
    let cwd = scope.cwd;
    let out: string | undefined;
    for (const command of shellCommands(body)) {
        const words = command.words.map((w) => expandWord(w, { ...scope, cwd }, depth + 1));
        if (words.some((w) => w === undefined)) return undefined;
        const [program, ...args] = words as string[];
        const operands = args.filter((a) => !a.startsWith("-"));
        if (program === "pwd") out = cwd;
        else if (program === "git" && args.join(" ") === "rev-parse --show-toplevel") {
            out = scope.root;
        } else if (program === "cd" && operands.length === 1) cwd = resolve(cwd, operands[0]!);
        else if (program === "dirname" && operands.length === 1) out = posix.dirname(operands[0]!);
        else if ((program === "realpath" || program === "readlink") && operands.length === 1) {
            out = resolve(cwd, operands[0]!);
        } else return undefined;
    }
    return out;
}

/**
 * A word with the expansions North can resolve replaced by their values, or
 * undefined when any other expansion remains (its value is unknown).
 */
export function expandWord(word: string, scope: LineScope, depth = 0): string | undefined {
    let out = "";
    for (let i = 0; i < word.length; i++) {
        const c = word[i]!;
        if (c === "$" && word.startsWith("((", i + 1)) return undefined; // arithmetic
        if (c === "`" || (c === "$" && word[i + 1] === "(")) {
            const [body] = substitutionBodies(word.slice(i));
            if (body === undefined) return undefined;
            const value = substitutionValue(body, scope, depth);
            if (value === undefined) return undefined;
            out += value;
            i += c === "`" ? body.length + 1 : body.length + 2;
            // Skip to the closing mark the body was cut at.
            while (i < word.length && word[i] !== (c === "`" ? "`" : ")")) i++;
        } else if (c === "$" && word[i + 1] === "{") {
            const end = word.indexOf("}", i);
            if (end < 0) return undefined;
            const value = parameter(word.slice(i + 2, end), scope);
            if (value === undefined) return undefined;
            out += value;
            i = end;
        } else if (c === "$") {
            const name = /^(?:[A-Za-z_][A-Za-z0-9_]*|0)/.exec(word.slice(i + 1))?.[0];
            const value = name === undefined ? undefined : variable(name, scope);
            if (name === undefined || value === undefined) return undefined;
            out += value;
            i += name.length;
        } else if (c === "<" || c === ">") {
            if (word[i + 1] === "(") return undefined; // a process substitution names a pipe
            out += c;
        } else out += c;
    }
    return out;
}

/** Wrappers that run the command after their options (`env X=1 sh`, `timeout 5 sh`). */
const WRAPPER = /^(?:env|exec|nohup|timeout|nice|time|command|sudo|stdbuf)$/;

/** The index of the program a command runs, past assignments, keywords and wrappers. */
function programIndex(words: readonly string[]): number {
    let at = 0;
    while (at < words.length && RESERVED.has(words[at]!)) at++;
    while (at < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[at]!)) at++;
    while (at < words.length && WRAPPER.test(baseName(words[at]!))) {
        at++;
        // Their options, assignments and durations (`-n 5`, `X=1`, `5s`).
        while (at < words.length && /^(?:-|[A-Za-z_][A-Za-z0-9_]*=|\d)/.test(words[at]!)) at++;
    }
    return at;
}

/** Does this command's interpreter read its program from standard input? */
function readsProgramFromStdin(words: readonly string[]): boolean {
    const at = programIndex(words);
    if (at >= words.length || !INTERPRETER.test(baseName(words[at]!))) return false;
    for (let i = at + 1; i < words.length; i++) {
        const word = words[i]!;
        if (word === "-s" || word === "-") return true;
        if (INLINE_PROGRAM.test(word)) return false;
        if (word === "--") return i + 1 >= words.length;
        if (OPTION_WITH_VALUE.test(word)) i++;
        else if (!word.startsWith("-") && !word.startsWith("+")) return false;
    }
    return true;
}

/** Collects the files lines run; one collector's bounds hold across all the lines it reads. */
export class CommandFileCollector {
    private found: CommandFile[] = [];
    private budget = MAX_CHARACTERS_READ;
    private kept = 0;

    /** The words found since the last call. */
    take(): CommandFile[] {
        const found = this.found;
        this.found = [];
        return found;
    }

    /** Reads a command line (a hook, a script's lines) in `scope`. */
    line(line: string, scope: LineScope, depth = 0): void {
        if (depth > MAX_NESTING || !this.spend(line)) return;
        this.commands(shellCommands(line), scope, depth);
    }

    /** False once the work bound is reached: the rest of what a line runs is not looked at. */
    private spend(line: string): boolean {
        this.budget -= line.length;
        return this.budget >= 0;
    }

    /** An MCP server's program and arguments, with no shell in between. */
    argv(words: readonly string[], scope: LineScope): void {
        this.commands(
            [{ words: [...words], stdinFiles: [], hereStrings: [], piped: false }],
            scope,
            0
        );
    }

    private add(word: string, scope: LineScope, extra: Partial<CommandFile> = {}): void {
        if (this.kept >= MAX_WORDS_KEPT) return;
        const expanded = expandWord(word, scope);
        if (expanded === undefined || expanded === "") return;
        this.kept++;
        this.found.push({
            word: expanded,
            module: false,
            cwd: scope.cwd,
            scriptDir: scope.script === undefined ? undefined : posix.dirname(scope.script),
            program: scope.program,
            shell: false,
            sourced: false,
            ...extra,
        });
    }

    /** A word and the value of its `--opt=value` or `NAME=value` form. */
    private addWithValue(word: string, scope: LineScope, extra: Partial<CommandFile> = {}): void {
        this.add(word, scope, extra);
        const assigned = /^(?:[A-Za-z_][A-Za-z0-9_]*|--?[A-Za-z0-9][\w-]*)=(.+)$/s.exec(word);
        if (assigned) this.add(assigned[1]!, scope, extra);
    }

    /** A command whose output is run as code: every file it names or reads counts. */
    private producer(command: SimpleCommand, scope: LineScope, depth: number): void {
        for (const word of command.words.slice(1)) this.addWithValue(word, scope, { shell: true });
        for (const file of command.stdinFiles) this.add(file, scope, { shell: true });
        for (const body of command.words.flatMap(substitutionBodies)) {
            this.codeLine(body, scope, depth + 1);
        }
    }

    /** A command line whose output is code (`$(cat x)` given to `sh -c`, `eval`, `<(…)`). */
    private codeLine(line: string, scope: LineScope, depth: number): void {
        if (depth > MAX_NESTING || !this.spend(line)) return;
        const commands = shellCommands(line);
        this.commands(commands, scope, depth);
        // The last pipeline's commands produce the output.
        let start = commands.length - 1;
        while (start > 0 && commands[start]!.piped) start--;
        for (const command of commands.slice(Math.max(start, 0))) {
            this.producer(command, scope, depth);
        }
    }

    private commands(commands: readonly SimpleCommand[], scope: LineScope, depth: number): void {
        // A nested line's assignments and `cd` do not reach the line around it.
        let here = { ...scope, vars: new Map(scope.vars) };
        commands.forEach((command, index) => {
            here = this.command(command, here, depth);
            if (command.piped && readsProgramFromStdin(command.words)) {
                // `cat x | sh`: what the commands before it in the pipe print is the program.
                for (let i = index - 1; i >= 0; i--) {
                    this.producer(commands[i]!, here, depth);
                    if (!commands[i]!.piped) break;
                }
            }
        });
    }

    /** One simple command; returns the scope after it (a `cd`, an assignment). */
    private command(command: SimpleCommand, scope: LineScope, depth: number): LineScope {
        const words = command.words;
        // Commands inside substitutions run, wherever the word is.
        for (const body of words.flatMap(substitutionBodies)) this.line(body, scope, depth + 1);
        let at = 0;
        while (at < words.length && RESERVED.has(words[at]!)) at++;
        const declares = words[at] !== undefined && DECLARE.has(words[at]!);
        if (declares) at++;
        // `NAME=value cmd`: the assignments are not the program.
        for (; at < words.length; at++) {
            const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(words[at]!);
            if (!m) {
                if (declares && words[at]!.startsWith("-")) continue;
                break;
            }
            const value = expandWord(m[2]!, scope);
            if (value !== undefined) scope.vars.set(m[1]!, value);
            else scope.vars.delete(m[1]!);
            if (PROGRAM_VARIABLE.test(m[1]!)) this.valueLine(m[2]!, scope, depth);
        }
        if (declares) return scope;
        const program = words[at];
        const stdinIsProgram = readsProgramFromStdin(words.slice(at));
        if (stdinIsProgram) {
            const shell = words.slice(at).some((w) => SHELL.test(baseName(w)));
            for (const file of command.stdinFiles) this.add(file, scope, { shell });
            for (const text of command.hereStrings) {
                if (shell) this.line(text, scope, depth + 1);
                for (const body of substitutionBodies(text)) this.codeLine(body, scope, depth + 1);
            }
        }
        if (program === undefined) return scope;
        if (program === "cd" || program === "pushd") {
            const target = words.slice(at + 1).find((w) => !w.startsWith("-"));
            const dir = target === undefined ? undefined : expandWord(target, scope);
            if (dir !== undefined && !/[*?[\]{}~]/.test(dir)) {
                return { ...scope, cwd: resolve(scope.cwd, dir) };
            }
            return scope;
        }
        this.add(program, scope, { shell: SHELL.test(baseName(program)) });
        const name = baseName(program);
        if (name === "git") {
            this.gitConfigValues(words.slice(at + 1), scope, depth);
            return scope;
        }
        // A program named by a variable (`${PYTHON:-python3}`) may be any of them.
        if (!RUNNER.test(name) && !program.includes("$")) return scope;
        const shell = SHELL.test(name) || words.slice(at).some((w) => SHELL.test(baseName(w)));
        const sourced = name === "source" || name === ".";
        for (let i = at + 1; i < words.length; i++) {
            const word = words[i]!;
            const previous = words[i - 1]!;
            this.addWithValue(word, scope, { module: previous === "-m", shell, sourced });
            const inlineBody = name === "eval" || /^-[a-zA-Z]*c$/.test(previous);
            if (inlineBody || /^[<>]\(/.test(word)) {
                // Its substitutions' output is code: `sh -c "$(cat x)"`, `bash <(cat x)`.
                for (const body of substitutionBodies(word)) this.codeLine(body, scope, depth + 1);
            }
            // `bash -c '…'`, `env sh -c "…"`: a word that is itself a command line.
            if (/[\s;&|]/.test(word)) this.line(word, scope, depth + 1);
        }
        return scope;
    }

    /**
     * A variable's value read as a command line (`GIT_SSH_COMMAND`, `BASH_ENV`)
     * or options (`NODE_OPTIONS='-r ./x.js'`): its program and its options' files.
     */
    private valueLine(value: string, scope: LineScope, depth: number): void {
        if (depth >= MAX_NESTING) return;
        for (const command of shellCommands(value)) {
            const words = command.words;
            words.forEach((word, i) => {
                if (!word.startsWith("-")) return;
                this.addWithValue(word, scope);
                if (OPTION_WITH_VALUE.test(word) && words[i + 1] !== undefined) {
                    this.add(words[i + 1]!, scope);
                }
            });
            if (words[0]?.startsWith("-")) continue;
            this.command(command, { ...scope, vars: new Map(scope.vars) }, depth + 1);
        }
    }

    /** `git -c core.pager='sh x' …`, `-c alias.x='!sh x'`: the value is a command line. */
    private gitConfigValues(args: readonly string[], scope: LineScope, depth: number): void {
        for (let i = 0; i < args.length; i++) {
            const setting = args[i] === "-c" ? args[++i] : /^--config=(.*)$/s.exec(args[i]!)?.[1];
            if (setting === undefined) continue;
            const eq = setting.indexOf("=");
            if (eq < 0) continue;
            this.valueLine(setting.slice(eq + 1).replace(/^!/, ""), scope, depth + 1);
        }
    }
}
