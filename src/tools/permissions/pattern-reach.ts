/**
 * What a word that expansion changes (`.[g]it/config`, `/bin/r[m]`,
 * `{a,b}`, `~user/x`) could reach: a denied program, a path an Edit rule
 * denies, git's internals or protected configuration. The word is matched as
 * a pattern against those; the disk only adds matches to refuse.
 */
import picomatch from "picomatch";
import { PROTECTED_CONFIG } from "../protected-paths";
import { type CommandPattern, possiblyMatches, programsOf } from "./command-patterns";
import { type Word, literalWord } from "./command-words";
import { escapeGlob } from "./shell-glob-text";
import {
    type Component,
    type RulePath,
    Overlap,
    lastComponents,
    literalComponents,
    matchesOnDisk,
    pathOverlap,
    pathPatterns,
    ruleComponentsOf,
} from "./shell-globs";
import type { WriteTargetJudge } from "./types";

/** An Edit deny rule as a glob over absolute paths (picomatch syntax), with its text. */
export interface PathRuleGlob {
    /** As written: `Edit(./.env)`. */
    rule: string;
    /** `/work/project/.env`, `/**` + `/.env` for a rule matching at any depth. */
    glob: string;
}

/**
 * Whether a program-name pattern could be the program of a deny pattern,
 * with the rest of the command matching it. A deny pattern whose program is
 * itself a pattern (`*rm*`) is taken to match.
 */
export function programPatternDenied(
    name: Word,
    rest: readonly Word[],
    pattern: CommandPattern
): boolean {
    const names = name.glob === undefined ? null : lastComponents(name.glob);
    if (names === null) return true;
    return programsOf(pattern).some((program) => {
        if (program === null) return true;
        const base = program.split("/").pop() ?? program;
        if (!names.some((component) => componentMatches(component, base))) return false;
        return possiblyMatches(pattern, [literalWord(base), ...rest]);
    });
}

function componentMatches(component: Component, name: string): boolean {
    if (component.kind === "any") return true;
    if (component.kind === "literal") return component.text === name;
    return component.regex.test(name);
}

/** The paths a write target may name, from each directory it may be relative to. */
function writePatterns(
    path: Word,
    cwds: readonly string[] | null,
    home: string
): Component[][] | null {
    const glob = path.glob ?? escapeGlob(path.value);
    const bases: Component[][] = cwds === null ? [[{ kind: "any" }]] : cwds.map(literalComponents);
    const out: Component[][] = [];
    for (const base of bases) {
        const patterns = pathPatterns(glob, base, home);
        if (patterns === null) return null;
        out.push(...patterns);
    }
    return out;
}

/**
 * The Edit deny rule a write could reach through expansion (or from a
 * directory a `cd` made unknown), or null. Too many brace alternatives: the
 * first rule, as nothing can be ruled out. A match found on disk comes with
 * its path, for the caller to find the rule that denies it.
 */
export function writeDeniedByPattern(
    path: Word,
    cwds: readonly string[] | null,
    denied: readonly PathRuleGlob[],
    judgeWrite: WriteTargetJudge,
    bases: { home: string; dotglob: boolean }
): { rule: string; path?: string } | null {
    const { home, dotglob } = bases;
    const patterns = writePatterns(path, cwds, home);
    if (patterns === null) return denied[0] ? { rule: denied[0].rule } : null;
    for (const { rule, glob } of denied) {
        // With nocaseglob possibly on, `.[E]NV` may name `.env`.
        const target: RulePath = {
            components: ruleComponentsOf(glob, dotglob),
            coversBelow: true,
            caseInsensitive: dotglob,
        };
        if (patterns.some((pattern) => pathOverlap(pattern, target, dotglob) === Overlap.Yes))
            return { rule };
    }
    for (const pattern of patterns) {
        // Any name, hidden or not: more matches only mean more to refuse.
        for (const match of matchesOnDisk(pattern, true)) {
            if (judgeWrite(match, "/") === "deny") return { rule: `Edit(${match})`, path: match };
        }
    }
    return null;
}

/**
 * The Edit deny rule covering one of `files` (paths relative to the folder
 * `root`) or a folder between them and `root`, or null.
 */
export function listedFilesDenied(
    root: string,
    files: readonly string[],
    denied: readonly PathRuleGlob[]
): { rule: string; path: string } | null {
    const matchers = denied.map(({ rule, glob }) => ({
        rule,
        test: picomatch(glob, { dot: true }),
    }));
    for (const file of files) {
        const path = `${root.replace(/\/+$/, "")}/${file}`;
        for (const { rule, test } of matchers) if (test(path)) return { rule, path };
    }
    return null;
}

/**
 * The Edit deny rule that could cover a file anywhere below `folder` (the
 * files of a folder copied into it, only known when it runs), or null.
 */
export function writeBelowDenied(
    folder: Word,
    cwds: readonly string[] | null,
    denied: readonly PathRuleGlob[],
    bases: { home: string; dotglob: boolean }
): string | null {
    const patterns = writePatterns(folder, cwds, bases.home);
    if (patterns === null) return denied[0]?.rule ?? null;
    for (const { rule, glob } of denied) {
        const target: RulePath = {
            components: ruleComponentsOf(glob, bases.dotglob),
            coversBelow: true,
            caseInsensitive: bases.dotglob,
        };
        const below = patterns.map((pattern): Component[] => [...pattern, { kind: "any" }]);
        // Any name may be below it, hidden ones too: "maybe" is enough to refuse.
        if (below.some((pattern) => pathOverlap(pattern, target, true) >= Overlap.Maybe))
            return rule;
    }
    return null;
}

/**
 * The Edit deny rule a write target only known when it runs (`"$HOME/.bashrc"`,
 * `"$F"`) may name, or null. Only a literal tail after the last expansion
 * (`/.bashrc`) can rule a rule out; what comes before could be any folder.
 */
export function unresolvedWriteDenied(
    path: Word,
    denied: readonly PathRuleGlob[],
    home: string
): string | null {
    const text = path.value;
    const lastExpansion = Math.max(text.lastIndexOf("$"), text.lastIndexOf("`"));
    const slash = text.indexOf("/", lastExpansion);
    const tail = slash < 0 ? "" : text.slice(slash + 1).replace(/["']/g, "");
    const literalTail = /^[^$`\\*?[\]{}~]*$/.test(tail) ? tail : "";
    const patterns = pathPatterns(escapeGlob(literalTail), [{ kind: "any" }], home) ?? [];
    let maybe: string | null = null;
    for (const { rule, glob } of denied) {
        const target: RulePath = {
            components: ruleComponentsOf(glob, false),
            coversBelow: true,
            caseInsensitive: false,
        };
        for (const pattern of patterns) {
            const overlap = pathOverlap(pattern, target, true);
            if (overlap === Overlap.Yes) return rule;
            if (overlap === Overlap.Maybe) maybe ??= rule;
        }
    }
    return maybe;
}

/** git's internals and protected configuration, at any depth, as rule paths. */
const SPECIAL_PATHS: { what: string; path: RulePath }[] = [
    {
        what: "a path inside git's internals (hooks and config there run on the next git command)",
        path: {
            components: ruleComponentsOf("**/.git/*", true),
            coversBelow: true,
            caseInsensitive: true,
        },
    },
    ...PROTECTED_CONFIG.flatMap((config) =>
        config.patterns.map((pattern) => {
            const below = pattern.endsWith("/**");
            const glob = `**/${below ? `${pattern.slice(0, -3)}/*` : pattern}`;
            return {
                what: "protected configuration",
                path: {
                    components: ruleComponentsOf(glob, true),
                    coversBelow: below,
                    caseInsensitive: true,
                },
            };
        })
    ),
];

/** What an argument pattern could name, and whether surely (a pattern against a name) or maybe (two patterns). */
export interface ArgumentReach {
    what: string;
    sure: boolean;
}

/**
 * What an argument pattern could name among git's internals and protected
 * configuration (an absolute one: git's internals only, as for a literal
 * path), or null.
 */
export function argumentPatternReach(
    glob: string,
    home: string,
    dotglob: boolean
): ArgumentReach | null {
    // `--opt=PATH` names PATH.
    const value = /^-/.test(glob) ? /=(.*)$/s.exec(glob)?.[1] : glob;
    if (!value) return null;
    // Another user's home, or the previous directory, is taken to be no special folder itself.
    const elsewhere: Component = { kind: "literal", text: "\0elsewhere" };
    const patterns = pathPatterns(value, [], home, elsewhere);
    if (patterns === null) return { what: SPECIAL_PATHS[0]!.what, sure: true };
    const absolute = value.startsWith("/") || value.startsWith("~");
    let maybe: ArgumentReach | null = null;
    for (const { what, path } of absolute ? SPECIAL_PATHS.slice(0, 1) : SPECIAL_PATHS) {
        for (const pattern of patterns) {
            const overlap = pathOverlap(pattern, path, dotglob);
            if (overlap === Overlap.Yes) return { what, sure: true };
            if (overlap === Overlap.Maybe) maybe ??= { what, sure: false };
        }
    }
    return maybe;
}

/** The existing paths an argument pattern matches now, from directory `cwd`. */
export function argumentMatchesOnDisk(
    glob: string,
    cwd: string,
    home: string,
    dotglob: boolean
): string[] | null {
    const value = /^-/.test(glob) ? /=(.*)$/s.exec(glob)?.[1] : glob;
    if (!value) return [];
    const patterns = pathPatterns(value, literalComponents(cwd), home);
    if (patterns === null) return null;
    return patterns.flatMap((pattern) => matchesOnDisk(pattern, dotglob));
}
