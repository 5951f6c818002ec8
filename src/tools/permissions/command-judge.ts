/**
 * Judges a shell command against Bash rules: deny if any command it runs (or
 * file it writes) is denied, else ask if an ask rule matches, else allow only
 * if every command it runs is allowed. Anything not understood is asked about.
 */
import { homedir } from "node:os";
import { resolve } from "node:path";
import {
    type CommandAnalysis,
    type CommandCheck,
    type WriteTarget,
    analyzeCommand,
} from "./command-analysis";
import {
    type CommandPattern,
    allowMatches,
    parseCommandPattern,
    possiblyMatches,
} from "./command-patterns";
import { isProjectScript, launchesProgram, prefixPolicy } from "./code-runners";
import { type Word, findHiddenCharacter } from "./command-words";
import {
    type PathRuleGlob,
    listedFilesDenied,
    programPatternDenied,
    unresolvedWriteDenied,
    writeBelowDenied,
    writeDeniedByPattern,
} from "./pattern-reach";
import type { CommandRules, CommandVerdict, WriteTargetJudge } from "./types";

export { validateCommandPattern } from "./command-patterns";

/** The valid patterns, each with its entry of the rule list (a verdict names the entry). */
function compileEntries(patterns: readonly string[]): { pattern: CommandPattern; entry: string }[] {
    return patterns.flatMap((entry) => {
        const pattern = parseCommandPattern(entry);
        return typeof pattern === "string" ? [] : [{ pattern, entry }];
    });
}

function compile(patterns: readonly string[]): CommandPattern[] {
    return compileEntries(patterns).map(({ pattern }) => pattern);
}

function ask(reason: string, uncovered: string[], forced = false): CommandVerdict {
    return { decision: "ask", reason, uncovered, forced };
}

export interface JudgeOptions {
    /** The directory the command starts in (relative write targets are judged from it); defaults to process.cwd(). */
    cwd?: string;
    /** What `~` names; defaults to the home folder. */
    home?: string;
    /**
     * The Edit deny rules as globs: a write target that expansion changes
     * (`> .[e]nv`) is refused when it could match one.
     */
    editDenyGlobs?: readonly PathRuleGlob[];
    /** The environment the shell starts with; defaults to process.env. */
    shellEnv?: Readonly<Record<string, string | undefined>>;
}

/** Parses `command` (lazily loading the parser on first use) and judges it. Never throws: a parser failure is an "ask". */
export async function judgeCommand(
    command: string,
    rules: CommandRules,
    judgeWrite: WriteTargetJudge,
    options: JudgeOptions = {}
): Promise<CommandVerdict> {
    const text = command.trim();
    if (text === "") return ask("the command is empty", []);
    const hidden = findHiddenCharacter(command);
    if (hidden) {
        const code = hidden.codePointAt(0)!.toString(16).padStart(4, "0");
        return ask(`the command contains a hidden control character (U+${code.toUpperCase()})`, [
            text,
        ]);
    }
    let analysis: CommandAnalysis;
    try {
        analysis = await analyzeCommand(command, options.cwd ?? process.cwd(), {
            home: options.home ?? homedir(),
            ...(options.shellEnv ? { shellEnv: options.shellEnv } : {}),
        });
    } catch (error) {
        return ask(
            `the command could not be parsed: ${error instanceof Error ? error.message : String(error)}`,
            [text]
        );
    }
    const deny = compileEntries(rules.deny);
    const askRules = compile(rules.ask);
    const allow = compile(rules.allow);

    if (
        analysis.checks.length === 0 &&
        analysis.writes.length === 0 &&
        analysis.problems.length === 0
    ) {
        return ask("the command runs nothing", [text]);
    }
    // A judge that throws on a strange path means "ask", never a crash of the run.
    const judgeWriteSafely: WriteTargetJudge = (path, cwd, through) => {
        try {
            return judgeWrite(path, cwd, through);
        } catch {
            return "ask";
        }
    };
    const denied = findDenied(analysis, deny, judgeWriteSafely, {
        home: options.home ?? homedir(),
        editDenyGlobs: options.editDenyGlobs ?? [],
    });
    if (denied) return denied;
    for (const check of analysis.checks) {
        const rule = askRules.find((pattern) => couldMatch(pattern, check.words));
        if (rule)
            return ask(
                `\`${check.display}\` matches the ask rule Bash(${rule.source})`,
                [check.display],
                true
            );
    }
    // Text bash evaluates may run a denied command: reviewed even under auto-approval.
    if (deny.length > 0 && analysis.evaluated.length > 0)
        return ask(`${analysis.evaluated[0]!}, and a deny rule is in force`, [text], true);
    if (analysis.problems.length > 0) return ask(analysis.problems[0]!, [text]);
    const writeAsk = findWriteToAsk(analysis.writes, judgeWriteSafely);
    if (writeAsk) return writeAsk;

    const uncovered = analysis.checks.filter(
        (check) =>
            check.unallowable ||
            (check.mustAllow && !allow.some((pattern) => allowMatches(pattern, check.words)))
    );
    const legacyWhole = allow.some((pattern) => pattern.wholeCommand === text);
    if (uncovered.length === 0 || legacyWhole) {
        return {
            decision: "allow",
            commands: analysis.checks
                .filter((check) => check.mustAllow)
                .map((check) => check.display),
        };
    }
    const displays = [...new Set(uncovered.map((check) => check.display))];
    const first = uncovered[0]!;
    const reason = first.unallowable
        ? `\`${first.display}\` needs a review: ${first.unallowable}`
        : `no allow rule covers \`${first.display}\``;
    return ask(reason, displays);
}

/** Deny and ask patterns: a program name that is a pattern is matched as one (`/bin/r[m]`). */
function couldMatch(pattern: CommandPattern, words: readonly Word[]): boolean {
    const name = words[0];
    if (name?.dynamic && name.glob !== undefined)
        return programPatternDenied(name, words.slice(1), pattern);
    return possiblyMatches(pattern, words);
}

function commandDenial(
    reason: string,
    { pattern, entry }: { pattern: CommandPattern; entry: string }
): CommandVerdict {
    return {
        decision: "deny",
        reason,
        rule: `Bash(${pattern.source})`,
        deniedBy: { type: "command", pattern: entry },
    };
}

function findDenied(
    analysis: CommandAnalysis,
    deny: readonly { pattern: CommandPattern; entry: string }[],
    judgeWrite: WriteTargetJudge,
    bases: { home: string; editDenyGlobs: readonly PathRuleGlob[] }
): CommandVerdict | null {
    // What runs is not known: any deny rule may be what it runs.
    if (deny[0] && analysis.unresolved.length > 0) {
        return commandDenial(
            `the command cannot be fully judged (${analysis.unresolved[0]!}), so a deny rule may forbid what it runs`,
            deny[0]
        );
    }
    for (const check of analysis.checks) {
        const matched = deny.find(({ pattern }) => couldMatch(pattern, check.words));
        if (!matched) continue;
        const name = check.words[0]!;
        // A name only known at run time could be any denied program; a pattern, the ones it matches.
        const why = !name.dynamic
            ? "matches a deny rule"
            : name.glob === undefined
              ? "runs a command only known when it runs, which a deny rule may forbid"
              : `runs a program whose name ${name.value} expands to, which a deny rule may forbid`;
        return commandDenial(`\`${check.display}\` ${why}`, matched);
    }
    for (const write of analysis.writes) {
        if (write.below) {
            const denial = belowDenied(write, bases.editDenyGlobs, {
                home: bases.home,
                dotglob: analysis.dotglob,
            });
            if (denial !== null)
                return {
                    decision: "deny",
                    reason: `\`${write.display}\` writes or removes ${denial.path ?? `files below ${write.path.value}`}, which ${denial.rule} ${denial.path ? "denies" : "may deny"}`,
                    rule: denial.rule,
                    deniedBy: {
                        type: "write",
                        path: denial.path ?? write.path.value,
                        cwd: denial.path ? "/" : (write.cwds?.[0] ?? "/"),
                    },
                };
            continue;
        }
        if (write.path.dynamic || write.cwds === null) {
            // A pattern, or a path from a directory a `cd` made unknown: refused when it could
            // name a denied path; other dynamic targets are asked about below.
            if (write.path.dynamic && write.path.glob === undefined) {
                const rule = unresolvedWriteDenied(write.path, bases.editDenyGlobs, bases.home);
                if (rule !== null)
                    return {
                        decision: "deny",
                        reason: `\`${write.display}\` writes to a path only known when it runs, which ${rule} may deny`,
                        rule,
                        deniedBy: {
                            type: "write",
                            path: write.path.value,
                            cwd: write.cwds?.[0] ?? "/",
                        },
                    };
            } else {
                const denial = writeDeniedByPattern(
                    write.path,
                    write.cwds,
                    bases.editDenyGlobs,
                    judgeWrite,
                    { home: bases.home, dotglob: analysis.dotglob }
                );
                if (denial !== null)
                    return {
                        decision: "deny",
                        reason: `\`${write.display}\` writes ${write.path.value}, which could name ${denial.path ?? "a path"} an Edit rule denies`,
                        rule: denial.rule,
                        deniedBy: {
                            type: "write",
                            path: denial.path ?? write.path.value,
                            cwd: denial.path ? "/" : (write.cwds?.[0] ?? "/"),
                        },
                    };
            }
            continue;
        }
        for (const cwd of write.cwds) {
            if (judgeWrite(write.path.value, cwd, throughOf(write)) === "deny") {
                const path = write.path.value.startsWith("~")
                    ? write.path.value
                    : resolve(cwd, write.path.value);
                return {
                    decision: "deny",
                    reason: `\`${write.display}\` writes ${path}, which an Edit rule denies`,
                    rule: `Edit(${write.path.value})`,
                    deniedBy: { type: "write", path: write.path.value, cwd },
                };
            }
        }
    }
    return null;
}

/** The deny rule over the files below a folder a command copies or removes whole. */
function belowDenied(
    write: WriteTarget,
    denied: readonly PathRuleGlob[],
    bases: { home: string; dotglob: boolean }
): { rule: string; path?: string } | null {
    if (write.filesBelow === undefined || write.cwds === null || write.path.dynamic) {
        const rule = writeBelowDenied(write.path, write.cwds, denied, bases);
        return rule === null ? null : { rule };
    }
    for (const cwd of write.cwds) {
        const text = write.path.value;
        const root = text.startsWith("~")
            ? resolve(bases.home, `.${text.slice(1)}`)
            : resolve(cwd, text);
        const found = listedFilesDenied(root, write.filesBelow, denied);
        if (found) return found;
    }
    return null;
}

function throughOf(write: WriteTarget): "redirection" | "argument" {
    return write.byArgument ? "argument" : "redirection";
}

function findWriteToAsk(
    writes: readonly WriteTarget[],
    judgeWrite: WriteTargetJudge
): CommandVerdict | null {
    // An Edit ask rule over any write forces the review (auto-approval does not count), so it comes first.
    for (const write of writes) {
        if (write.denyOnly || write.path.dynamic || write.cwds === null) continue;
        for (const cwd of write.cwds) {
            const verdict = judgeWrite(write.path.value, cwd, throughOf(write));
            if (typeof verdict === "object") return ask(verdict.askRule, [write.display], true);
        }
    }
    for (const write of writes) {
        if (write.denyOnly) continue;
        if (write.path.dynamic)
            return ask(`\`${write.display}\` writes to a path only known when it runs`, [
                write.display,
            ]);
        if (write.cwds === null)
            return ask(
                `\`${write.display}\` writes a relative path after a \`cd\` that cannot be followed`,
                [write.display]
            );
        if (
            write.cwds.some(
                (cwd) => judgeWrite(write.path.value, cwd, throughOf(write)) !== "allow"
            )
        ) {
            return ask(`\`${write.display}\` writes ${write.path.value}`, [write.display]);
        }
    }
    return null;
}

/** Tools whose second word is a subcommand (`git diff`, `npm test`); `run`/`exec` take a third. */
const SUBCOMMAND_TOOLS = new Set([
    "git",
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "cargo",
    "go",
    "docker",
    "kubectl",
    "gh",
    "uv",
    "poetry",
    "pip",
    "pip3",
    "dotnet",
    "mvn",
    "gradle",
    "rustup",
    "brew",
    "composer",
    "mix",
    "swift",
]);
const SCRIPT_RUNNERS = new Set(["run", "exec", "run-script"]);

/**
 * The prefix rule the shell review offers for "always": "npm test:*" for
 * "npm test -- --watch", "python3 tools/gen.py:*" for an interpreter given a
 * project script; null when the command is compound, dynamic, not understood,
 * or when any prefix of it would let any code run (code-runners.ts).
 */
export async function suggestPrefixRule(command: string): Promise<string | null> {
    if (command.trim() === "" || findHiddenCharacter(command) !== null) return null;
    let analysis: CommandAnalysis;
    try {
        analysis = await analyzeCommand(command, process.cwd());
    } catch {
        return null;
    }
    const redirects = analysis.writes.some((write) => !write.byArgument);
    if (analysis.problems.length > 0 || redirects || analysis.checks.length !== 1) return null;
    const check: CommandCheck = analysis.checks[0]!;
    // Only a plain command: not a function body, a wrapped command or one with redirections.
    if (check.display !== command.trim() || !check.mustAllow || check.unallowable) return null;
    if (check.words.some((word) => word.dynamic)) return null;
    const [name, second, third] = check.words.map((word) => word.value);
    const isSubcommand = (word: string | undefined): word is string =>
        word !== undefined && /^[a-z][\w:.-]*$/i.test(word);
    const policy = prefixPolicy(name!);
    if (policy === "never") return null;
    const prefix = [name!];
    if (policy === "interpreter") {
        // `python3:*` would run any program text; the script it runs may be kept.
        if (second === undefined || !isProjectScript(second)) return null;
        prefix.push(second);
    } else if (SUBCOMMAND_TOOLS.has(name!)) {
        // A bare `git:*` would grant `git -c core.pager=… log` too.
        if (!isSubcommand(second) || launchesProgram(name!, second)) return null;
        prefix.push(second);
        if (SCRIPT_RUNNERS.has(second)) {
            if (!isSubcommand(third)) return null;
            prefix.push(third);
        }
    }
    if (prefix.some((word) => !/^[\w@%+=:,./-]+$/.test(word))) return null;
    const rule = `${prefix.join(" ")}:*`;
    const parsed = parseCommandPattern(rule);
    return typeof parsed !== "string" && allowMatches(parsed, check.words) ? rule : null;
}
