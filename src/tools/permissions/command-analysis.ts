/**
 * Turns a shell command into every simple command it would run and every file
 * it would write through a redirection, from the bash syntax tree: lists,
 * pipelines, subshells, groups, substitutions (also inside strings and
 * here-docs), process substitution, control flow, and function bodies and
 * aliases as if they ran.
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { basename, isAbsolute, relative, resolve } from "node:path";
import type { Parser } from "web-tree-sitter";
import { type SyntaxNode, getBashParser, withParsedTree } from "./bash-parser";
import {
    continuationInsideWord,
    describeError,
    snippet,
    substitutionOutsideTree,
} from "./command-source-checks";
import { type Word, evaluateWord, literalWord } from "./command-words";
import {
    builtinEvaluationProblem,
    declarationProblem,
    evaluationProblem,
} from "./command-evaluation";
import { settingProblem } from "./command-wrapper-options";
import { isGitInternal, protectedConfigOf } from "../protected-paths";
import { argumentMatchesOnDisk, argumentPatternReach } from "./pattern-reach";
import { type CommandCheck, unwrapCommand } from "./command-wrappers";
import {
    type CopiedTree,
    MAX_JUDGED_ENTRIES,
    MAX_LISTED_ENTRIES,
    argumentWrites,
    filesBelow,
    mayPlaceSymlink,
} from "./argument-writes";
import { escapeGlob } from "./shell-glob-text";
import { sedEffects } from "./sed-scripts";

export type { CommandCheck };

export interface WriteTarget {
    path: Word;
    /** Written through a command's argument (`tee f`), not a redirection. */
    byArgument?: boolean;
    /** Written only where a source pattern matches (`cp src/*.ts dest/`): judged by deny rules only. */
    denyOnly?: boolean;
    /**
     * Files below the path are written too (a folder copied or removed whole),
     * judged by deny rules only: the ones listed (paths relative to it), or
     * any when they are only known when it runs.
     */
    below?: boolean;
    filesBelow?: string[];
    /** Directories a relative path may be relative to; null when a `cd` made it unknowable. */
    cwds: string[] | null;
    display: string;
}

export interface CommandAnalysis {
    checks: CommandCheck[];
    writes: WriteTarget[];
    /** Things the parser could not read or this module does not model; any one means "ask". */
    problems: string[];
    /**
     * The problems that hide what runs (a part the parser could not read, a
     * script only known when it runs): a deny rule cannot be ruled out.
     */
    unresolved: string[];
    /** The problems where bash evaluates text (arithmetic, subscripts) that can hide a command. */
    evaluated: string[];
    /**
     * The shell's glob options may differ from bash's defaults (the command or
     * the environment may turn on dotglob or nocaseglob): a pattern may then
     * match hidden names (`.git`) and any letter case.
     */
    dotglob: boolean;
}

export interface AnalyzeOptions {
    /** What `~` names; defaults to the home folder. */
    home?: string;
    /** The environment the shell starts with (its BASHOPTS, BASH_ENV); defaults to process.env. */
    shellEnv?: Readonly<Record<string, string | undefined>>;
}

/** Redirection targets that are not files. */
const NOT_FILES = new Set([
    "/dev/null",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/tty",
    "/dev/fd/1",
    "/dev/fd/2",
]);
const WRITE_OPERATORS = new Set([">", ">>", ">|", "&>", "&>>", "<>"]);
const OTHER_OPERATORS = new Set(["<", "<&", ">&", "<&-", ">&-"]);
const MAX_NESTING = 8;

/** An argument that expansion changes, judged once the whole command is known. */
interface PatternArgument {
    glob: string;
    display: string;
    cwds: string[] | null;
}

interface Walk {
    parser: Parser;
    analysis: CommandAnalysis;
    cwds: string[] | null;
    depth: number;
    patternArguments: PatternArgument[];
    /** Folders copied, moved or removed as a whole, listed once the whole command is known. */
    trees: { tree: CopiedTree; display: string; cwds: string[] | null }[];
    /** The first command seen that makes a symlink (`ln -s .git g`), whose link later parts may follow. */
    linkMadeBy: string | null;
}

/** Analyses a command; loads the parser on first use. Throws only when the parser cannot load. */
export async function analyzeCommand(
    command: string,
    cwd: string,
    options: AnalyzeOptions = {}
): Promise<CommandAnalysis> {
    const parser = await getBashParser();
    const walk: Walk = {
        parser,
        analysis: {
            checks: [],
            writes: [],
            problems: [],
            unresolved: [],
            evaluated: [],
            dotglob: false,
        },
        cwds: [cwd],
        depth: 0,
        patternArguments: [],
        trees: [],
        linkMadeBy: null,
    };
    analyzeScript(walk, command);
    if (continuationInsideWord(command)) {
        unresolved(walk, "a line continuation joins two words, which cannot be judged");
    }
    walk.analysis.dotglob = mayEnableDotglob(
        command,
        walk.analysis.checks,
        options.shellEnv ?? process.env
    );
    judgePatternArguments(walk, options.home ?? homedir());
    // A folder that does not exist yet may be made by an earlier part of the command.
    const alone = walk.analysis.checks.filter((check) => check.mustAllow).length <= 1;
    for (const { tree, display, cwds } of walk.trees) recordTree(walk, tree, display, cwds, alone);
    return walk.analysis;
}

function unresolved(walk: Walk, problem: string): void {
    walk.analysis.problems.push(problem);
    walk.analysis.unresolved.push(problem);
}

function evaluated(walk: Walk, problem: string): void {
    walk.analysis.problems.push(problem);
    walk.analysis.evaluated.push(problem);
}

/**
 * Whether a pattern may match names starting with `.` or in another case:
 * the shell's inherited BASHOPTS or BASH_ENV, or the command may set them
 * (`shopt`, GLOBIGNORE, a command only known when it runs).
 */
function mayEnableDotglob(
    command: string,
    checks: readonly CommandCheck[],
    env: Readonly<Record<string, string | undefined>>
): boolean {
    if (/dotglob|nocaseglob/.test(env.BASHOPTS ?? "")) return true;
    // A non-interactive bash runs the file BASH_ENV names first.
    if (env.BASH_ENV) return true;
    if (/dotglob|nocaseglob|GLOBIGNORE|BASHOPTS|BASH_ENV/.test(command)) return true;
    return checks.some((check) =>
        check.words.some(
            (word, i) =>
                (i === 0 && (word.dynamic || basename(word.value) === "shopt")) ||
                /dotglob|GLOBIGNORE|BASHOPTS/.test(word.value)
        )
    );
}

/**
 * An argument pattern that could name git's internals or protected
 * configuration is reviewed like the literal path. When only two patterns
 * may meet (`ls *` and `*.code-workspace`), the disk decides, and only for a
 * command that is one simple command: an earlier part could create a match.
 */
function judgePatternArguments(walk: Walk, home: string): void {
    const { analysis } = walk;
    for (const { glob, display, cwds } of walk.patternArguments) {
        const reach = argumentPatternReach(glob, home, analysis.dotglob);
        if (!reach) continue;
        if (!reach.sure && analysis.checks.length === 1 && cwds?.length === 1) {
            const matches = argumentMatchesOnDisk(glob, cwds[0]!, home, analysis.dotglob);
            const special = (match: string): boolean => {
                const rel = relative(cwds[0]!, match);
                return isGitInternal(match) || protectedConfigOf(rel) !== null;
            };
            if (matches !== null && !matches.some(special)) continue;
        }
        analysis.problems.push(
            `\`${snippet(display)}\` has ${glob}, a pattern that could name ${reach.what}, which is always reviewed`
        );
    }
}

function analyzeScript(walk: Walk, script: string): void {
    if (walk.depth > MAX_NESTING) {
        unresolved(walk, "commands are nested too deeply to judge");
        return;
    }
    withParsedTree(walk.parser, script, (root) => {
        visit(walk, root);
        const missed = substitutionOutsideTree(root, script);
        if (missed !== null) {
            unresolved(walk, `\`${snippet(script.slice(missed, missed + 40))}\` is not understood`);
        }
        // Missing tokens (an unclosed `$(`) are anonymous nodes the walk above does not visit.
        if (root.hasError) unresolved(walk, describeError(root));
    });
}

function visitChildren(walk: Walk, node: SyntaxNode): void {
    for (const child of node.namedChildren) if (child) visit(walk, child);
}

function visit(walk: Walk, node: SyntaxNode): void {
    if (node.type === "ERROR" || node.isError) {
        unresolved(walk, `the shell parser could not read \`${snippet(node.text)}\``);
    } else if (node.isMissing) {
        unresolved(walk, `the command is incomplete (a \`${node.type}\` is missing)`);
    }
    const evaluation = evaluationProblem(node);
    if (evaluation) evaluated(walk, evaluation);
    switch (node.type) {
        case "command":
            return visitCommand(walk, node, []);
        case "redirected_statement":
            return visitRedirected(walk, node);
        case "file_redirect": {
            const extra = visitRedirect(walk, node);
            if (extra.length > 0)
                walk.analysis.problems.push(
                    `words after a redirection in \`${snippet(node.text)}\``
                );
            return;
        }
        case "variable_assignment":
            recordAssignment(walk, node, node.text);
            return visitChildren(walk, node);
        case "declaration_command":
        case "unset_command":
            return visitDeclaration(walk, node);
        case "command_substitution":
            visitChildren(walk, node);
            return visitBacktickEscapes(walk, node);
        case "heredoc_redirect":
            return visitHeredoc(walk, node);
        case "expansion":
            visitChildren(walk, node);
            return judgeBackticks(walk, node.text, `\`${snippet(node.text)}\``);
        case "for_statement": {
            const variable = node.childForFieldName("variable");
            // The loop's values are words the analysis does not track: a safe name is not exempt.
            if (variable)
                recordVariable(
                    walk,
                    settingProblem(variable.text, { value: "", dynamic: true }),
                    `for ${variable.text}`
                );
            return visitChildren(walk, node);
        }
        default:
            return visitChildren(walk, node);
    }
}

/**
 * An argument naming a file inside `.git` (`tee .git/config`, `cp x
 * .git/hooks/pre-commit`) or protected configuration (`.north/settings.json`)
 * is reviewed whatever the rules allow, as the edit tools review (or refuse)
 * those files: a command's write cannot be told from its read by its words.
 * Naming `.git` itself (`--exclude-dir=.git`, `-path ./.git`) is not.
 */
function specialPathArgumentProblem(
    walk: Walk,
    words: readonly Word[],
    display: string
): string | null {
    for (const word of words.slice(1)) {
        if (word.glob !== undefined)
            walk.patternArguments.push({ glob: word.glob, display, cwds: walk.cwds });
        if (word.dynamic) continue;
        // `--opt=PATH` names PATH; an option without `=` names nothing.
        const value = word.value.startsWith("-") ? /=(.*)$/s.exec(word.value)?.[1] : word.value;
        if (!value) continue;
        const parts = value.split("/").filter((part) => part !== "" && part !== ".");
        const git = parts.indexOf(".git");
        const insideGit = git >= 0 && parts.slice(git + 1).some((part) => !/^[*?]+$/.test(part));
        const protectedConfig = !isAbsolute(value) && protectedConfigOf(parts.join("/")) !== null;
        if (insideGit || protectedConfig) {
            return `\`${snippet(display)}\` names ${value}, ${insideGit ? "inside git's internals (hooks and config there run on the next git command)" : "protected configuration"}, which is always reviewed`;
        }
    }
    return null;
}

/** A variable that changes what later commands run (PATH, LD_PRELOAD, GIT_*) is never allowed unasked. */
function recordVariable(walk: Walk, problem: string | undefined, display: string): void {
    if (!problem) return;
    walk.analysis.checks.push({
        words: [literalWord(display)],
        display,
        mustAllow: true,
        unallowable: problem,
    });
}

function assignmentProblem(node: SyntaxNode): string | undefined {
    const name = node.childForFieldName("name");
    const value = node.childForFieldName("value");
    return settingProblem(
        name?.type === "variable_name" ? name.text : (name?.text ?? node.text),
        value ? evaluateWord(value) : null
    );
}

function recordAssignment(walk: Walk, node: SyntaxNode, display: string): void {
    recordVariable(walk, assignmentProblem(node), display);
}

function visitDeclaration(walk: Walk, node: SyntaxNode): void {
    const words: Word[] = [];
    let unallowable: string | undefined;
    const declaration = declarationProblem(node);
    if (declaration) evaluated(walk, declaration);
    for (const child of node.children) {
        if (!child) continue;
        if (child.type === "variable_assignment") {
            unallowable ??= assignmentProblem(child);
            words.push(literalWord(child.text));
            visitChildren(walk, child);
        } else if (!child.isNamed) {
            words.push(literalWord(child.type));
        } else {
            words.push(evaluateWord(child));
            visit(walk, child);
        }
    }
    walk.analysis.checks.push({
        words,
        display: node.text,
        mustAllow: true,
        ...(unallowable ? { unallowable } : {}),
    });
}

function visitRedirected(walk: Walk, node: SyntaxNode): void {
    const body = node.childForFieldName("body");
    // The grammar hangs `a && cd x && b > f` on the whole list: walk the list first, so
    // the write is judged from every directory a `cd` in it may have reached.
    if (body && body.type !== "command") visit(walk, body);
    const extra: Word[] = [];
    for (const redirect of node.childrenForFieldName("redirect")) {
        if (!redirect) continue;
        if (redirect.type === "file_redirect") extra.push(...visitRedirect(walk, redirect));
        else visit(walk, redirect);
    }
    for (const child of node.namedChildren) {
        if (child && child.type === "herestring_redirect") visit(walk, child);
    }
    if (body?.type === "command") return visitCommand(walk, body, extra);
    if (extra.length > 0) {
        walk.analysis.problems.push(`words after a redirection in \`${snippet(node.text)}\``);
    }
}

/** Records a write redirection; returns words the grammar put after the target (arguments of the command). */
function visitRedirect(walk: Walk, node: SyntaxNode): Word[] {
    const operator = node.children
        .filter((child) => child && !child.isNamed)
        .map((child) => child!.type)
        .join("");
    const destinations = node
        .childrenForFieldName("destination")
        .filter((child): child is SyntaxNode => child !== null);
    for (const destination of destinations) visit(walk, destination);
    const [target, ...rest] = destinations;
    if (!target) return [];
    const targetWord = evaluateWord(target);
    // bash opens a socket for these paths, in either direction.
    if (!targetWord.dynamic && /^\/dev\/(tcp|udp)\//.test(targetWord.value)) {
        walk.analysis.problems.push(`\`${snippet(node.text)}\` opens a network connection`);
    }
    const duplicatesDescriptor = target.type === "number" || target.text === "-";
    if (WRITE_OPERATORS.has(operator) || (operator === ">&" && !duplicatesDescriptor)) {
        recordWrite(walk, targetWord, node.text);
    } else if (!OTHER_OPERATORS.has(operator)) {
        walk.analysis.problems.push(`the redirection \`${snippet(node.text)}\` is not understood`);
    }
    return rest.map((word) => evaluateWord(word));
}

function recordWrite(
    walk: Walk,
    path: Word,
    display: string,
    how: Pick<WriteTarget, "byArgument" | "denyOnly" | "below" | "filesBelow"> = {},
    cwds: string[] | null = walk.cwds
): void {
    if (!path.dynamic && NOT_FILES.has(path.value)) return;
    const anchored = !path.dynamic && (isAbsolute(path.value) || path.value.startsWith("~"));
    walk.analysis.writes.push({ path, cwds: anchored ? ["/"] : cwds, display, ...how });
}

function visitCommand(walk: Walk, node: SyntaxNode, extra: Word[]): void {
    // Paths are judged where they lead before the command runs; a link made first changes that.
    if (walk.linkMadeBy) {
        walk.analysis.problems.push(
            `\`${snippet(walk.linkMadeBy)}\` may make a symlink that \`${snippet(node.text)}\` then follows, so where it reads or writes is only known when it runs`
        );
        // Reported once: later commands follow the same link.
        walk.linkMadeBy = "";
    }
    const words: Word[] = [];
    let unallowable: string | undefined;
    node.children.forEach((child, index) => {
        if (!child || !child.isNamed) return;
        const field = node.fieldNameForChild(index);
        if (field === "redirect") {
            if (child.type === "file_redirect") words.push(...visitRedirect(walk, child));
            else visit(walk, child);
            return;
        }
        if (child.type === "variable_assignment") {
            unallowable ??= assignmentProblem(child);
            visitChildren(walk, child);
            return;
        }
        if (field === "name") {
            const parts = child.namedChildren;
            // One child is the rule; anything else is a shape this does not model.
            words.push(
                parts.length === 1 && parts[0]
                    ? evaluateWord(parts[0])
                    : { value: child.text, dynamic: true }
            );
        } else if (field === "argument") {
            words.push(evaluateWord(child));
        } else if (child.type !== "comment") {
            walk.analysis.problems.push(
                `\`${snippet(child.text)}\` in a command is not understood`
            );
        }
        visit(walk, child);
    });
    words.push(...extra);
    if (words.length === 0) {
        // Only assignments: `X=1` changes what later commands see.
        if (unallowable) {
            walk.analysis.checks.push({
                words: [literalWord(node.text)],
                display: node.text,
                mustAllow: true,
                unallowable,
            });
        }
        return;
    }
    const unwrapped = unwrapCommand(words, node.text, unallowable);
    walk.analysis.checks.push(...unwrapped.checks);
    if (walk.linkMadeBy === null && unwrapped.checks.some((check) => mayPlaceSymlink(check.words)))
        walk.linkMadeBy = node.text;
    for (const check of unwrapped.checks) {
        const written = argumentWrites(check.words);
        for (const target of written.targets)
            recordWrite(walk, target, check.display, { byArgument: true });
        for (const target of written.patternTargets)
            recordWrite(walk, target, check.display, { byArgument: true, denyOnly: true });
        if (!check.words[0]?.dynamic && basename(check.words[0]?.value ?? "") === "sed")
            judgeSedScript(walk, check);
        for (const tree of written.trees ?? [])
            walk.trees.push({ tree, display: check.display, cwds: walk.cwds });
        const evaluation = builtinEvaluationProblem(check.words, check.display);
        if (evaluation) evaluated(walk, evaluation);
        const problem = specialPathArgumentProblem(walk, check.words, check.display);
        if (problem) walk.analysis.problems.push(problem);
    }
    // `--output FILE`, `sort -o FILE`: the command writes it, like the files of its arguments.
    for (const write of unwrapped.writes) recordWrite(walk, write, node.text, { byArgument: true });
    for (const script of unwrapped.scripts) {
        if (script.text === null) {
            unresolved(
                walk,
                `\`${snippet(script.display)}\` runs a script that is only known when it runs`
            );
            continue;
        }
        walk.depth++;
        analyzeScript(walk, script.text);
        walk.depth--;
    }
    trackDirectoryChange(walk, unwrapped.checks);
}

/** GNU sed's `e` runs shell commands and `w` writes files: judged like any command and write. */
function judgeSedScript(walk: Walk, check: CommandCheck): void {
    const effects = sedEffects(check.words);
    for (const file of effects.writes)
        recordWrite(walk, literalWord(file), check.display, { byArgument: true });
    for (const command of effects.runs) {
        if (command === null) {
            unresolved(walk, `\`${snippet(check.display)}\` runs text it edits as a shell command`);
            continue;
        }
        walk.depth++;
        analyzeScript(walk, command);
        walk.depth--;
    }
    if (effects.unreadable)
        evaluated(
            walk,
            `\`${snippet(check.display)}\` has a sed script North cannot read, which may run commands or write files`
        );
}

/**
 * A folder copied, moved or removed as a whole writes every file below it,
 * under each folder it lands in: listed from the disk, each judged like a
 * target. Contents only known when it runs (a pattern, a folder that does not
 * exist yet or is too large to list) are asked about, and refused when a path
 * an Edit rule denies could be among them.
 */
function recordTree(
    walk: Walk,
    tree: CopiedTree,
    display: string,
    cwds: string[] | null,
    alone: boolean
): void {
    const { root } = tree;
    let files: Set<string> | null = new Set();
    if (root.dynamic || cwds === null || root.value.startsWith("~")) files = null;
    for (const cwd of cwds ?? []) {
        const path = resolve(cwd, root.value);
        const below = files === null ? null : filesBelow(path, MAX_LISTED_ENTRIES);
        if (below === null && !(alone && !existsSync(path))) files = null;
        else for (const file of below ?? []) files?.add(file);
    }
    const how = { byArgument: true };
    if (tree.removed) {
        // Removing a file plants nothing: deny rules decide, matched on the paths alone.
        const listed = files === null ? {} : { filesBelow: [...files] };
        recordWrite(walk, root, display, { ...how, denyOnly: true, below: true, ...listed }, cwds);
        return;
    }
    if (files === null || files.size > MAX_JUDGED_ENTRIES) {
        const listed = files === null ? {} : { filesBelow: [...files] };
        for (const into of tree.into) {
            if (into.dynamic && into.glob === undefined) continue;
            const below = { ...how, denyOnly: true, below: true, ...listed };
            recordWrite(walk, into, display, below, cwds);
        }
        walk.analysis.problems.push(
            files === null
                ? `\`${snippet(display)}\` writes the files of ${root.value}, which are only known when it runs`
                : `\`${snippet(display)}\` writes ${files.size} files of ${root.value}, too many to judge one by one`
        );
        return;
    }
    for (const into of tree.into) {
        for (const file of files) {
            const base = into.value.replace(/\/+$/, "");
            const path: Word =
                into.glob !== undefined
                    ? {
                          value: `${base}/${file}`,
                          dynamic: true,
                          glob: `${into.glob.replace(/\/+$/, "")}/${escapeGlob(file)}`,
                      }
                    : { value: `${base}/${file}`, dynamic: into.dynamic };
            recordWrite(walk, path, display, how, cwds);
        }
    }
}

/** After `cd DIR`, relative write targets are judged against every directory the shell may be in. */
function trackDirectoryChange(walk: Walk, checks: readonly CommandCheck[]): void {
    for (const check of checks) {
        const name = check.words[0];
        if (!name || name.dynamic || !["cd", "pushd", "popd"].includes(name.value)) continue;
        const target = check.words.find(
            (word, i) =>
                i > 0 && !(!word.dynamic && word.value.startsWith("-") && word.value.length > 1)
        );
        if (
            name.value === "popd" ||
            !target ||
            target.dynamic ||
            target.value === "-" ||
            target.value.startsWith("~") ||
            walk.cwds === null
        ) {
            walk.cwds = null;
            continue;
        }
        const next = walk.cwds.map((dir) => resolve(dir, target.value));
        walk.cwds = [...new Set([...walk.cwds, ...next])];
    }
}

/**
 * The grammar finds `$(...)` in an unquoted here-doc and in `${x:-...}` but not
 * backticks: those are cut out here and judged as scripts.
 */
function visitHeredoc(walk: Walk, node: SyntaxNode): void {
    visitChildren(walk, node);
    const start = node.namedChildren.find((child) => child?.type === "heredoc_start");
    const body = node.namedChildren.find((child) => child?.type === "heredoc_body");
    if (!start || !body || /['"\\]/.test(start.text)) return;
    judgeBackticks(walk, body.text, "a here-doc");
}

function judgeBackticks(walk: Walk, text: string, where: string): void {
    let open = -1;
    for (let i = 0; i < text.length; i++) {
        if (text[i] === "\\") {
            i++;
        } else if (text[i] === "`") {
            if (open < 0) {
                open = i;
                continue;
            }
            walk.depth++;
            analyzeScript(walk, text.slice(open + 1, i));
            walk.depth--;
            open = -1;
        }
    }
    if (open >= 0) walk.analysis.problems.push(`${where} has an unclosed backtick`);
}

/**
 * Inside backticks a backslash before a backtick, `$` or backslash is removed and
 * the text parsed again, so a nested escaped backtick runs: judge that reading too.
 */
function visitBacktickEscapes(walk: Walk, node: SyntaxNode): void {
    const text = node.text;
    if (!text.startsWith("`") || !/\\[`$\\]/.test(text)) return;
    walk.depth++;
    analyzeScript(walk, text.slice(1, -1).replace(/\\([`$\\])/g, "$1"));
    walk.depth--;
}
