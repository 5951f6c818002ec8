/**
 * Files well-known commands write through their arguments (`tee F`, `cp a F`,
 * `sed -i … F`, `dd of=F`), so the Edit rules judge them as they judge `> F`.
 *
 * "Written" means the file's content can change or the file can disappear:
 * writing, creating (`touch`), truncating, removing (`rm`, `mv`'s sources)
 * and replacing (`ln -f`). Metadata alone (`chmod`, `chown`) and new
 * folders (`mkdir`) are not edits; `touch` is, as it creates files. When the
 * options cannot be read (an unknown option, a word only known when it runs)
 * every operand counts as written: more to judge, never less.
 */
import { type Dirent, readdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import type { Word } from "./command-words";
import { escapeGlob } from "./shell-glob-text";
import { WRITING_COMMANDS, type WritingCommand } from "./writing-commands";

/** Files a command writes through its arguments: judged like `> FILE`. */
export interface ArgumentWrites {
    /** Each written path, as a word (a source's name joined to a destination folder too). */
    targets: Word[];
    /**
     * Paths that are written only if a pattern matches (`cp src/*.ts dest/`
     * writes `dest/*.ts`): judged for deny rules, not asked about.
     */
    patternTargets: Word[];
    /** Folders whose files are written too, each file landing below every folder of `into`. */
    trees?: CopiedTree[];
}

/** `cp -r SRC DEST` writes DEST/NAME/… (or DEST/… when DEST is new): SRC's files decide what. */
export interface CopiedTree {
    root: Word;
    into: Word[];
    /** Its files disappear (`rm -r`, `mv`'s sources): only deny rules matter, not where links lead. */
    removed?: boolean;
}

/** The files `words` (a simple command, its name first) writes through its arguments. */
export function argumentWrites(words: readonly Word[]): ArgumentWrites {
    const none: ArgumentWrites = { targets: [], patternTargets: [] };
    const name = words[0];
    if (!name || name.dynamic) return none;
    const program = basename(name.value);
    if (program === "dd") return { targets: ddOutputs(words), patternTargets: [] };
    if (program === "perl") return { targets: perlInPlace(words), patternTargets: [] };
    const spec = WRITING_COMMANDS[program];
    if (!spec) return none;
    const parsed = parseArguments(words, spec);
    return writtenBy(spec, parsed);
}

interface ParsedArguments {
    operands: Word[];
    /** Values of the `target` options. */
    targets: Word[];
    /** Options seen, by their canonical spelling (`-i`, `--in-place`). */
    options: Set<string>;
    /** Options or word boundaries could not be read: every operand may be written. */
    uncertain: boolean;
}

/**
 * GNU-style options: anywhere before `--`, short ones combined (`-fv`) or
 * glued to their value (`-tDIR`, `-Sbak`), long ones abbreviated, `=value`.
 */
function parseArguments(words: readonly Word[], spec: WritingCommand): ParsedArguments {
    const result: ParsedArguments = {
        operands: [],
        targets: [],
        options: new Set(),
        uncertain: false,
    };
    const takeValue = (option: string, value: Word | undefined): void => {
        if (value === undefined) return;
        if (spec.target?.includes(option)) result.targets.push(value);
    };
    let endOfOptions = false;
    for (let i = 1; i < words.length; i++) {
        const word = words[i]!;
        const text = word.value;
        if (word.dynamic && word.glob === undefined) {
            // May be an option, several words, or none: positions are lost.
            if (!endOfOptions) result.uncertain = true;
            result.operands.push(word);
            continue;
        }
        if (endOfOptions || !text.startsWith("-") || text === "-") {
            result.operands.push(word);
            continue;
        }
        if (text === "--") {
            endOfOptions = true;
            continue;
        }
        if (text.startsWith("--")) {
            const eq = text.indexOf("=");
            const given = text.slice(2, eq < 0 ? undefined : eq);
            const long = longOption(given, spec);
            if (long === null) {
                if (!spec.lenient) result.uncertain = true;
                continue;
            }
            result.options.add(`--${long.name}`);
            if (!long.withValue) continue;
            const value =
                eq < 0 ? words[++i] : { value: text.slice(eq + 1), dynamic: word.dynamic };
            takeValue(`--${long.name}`, value);
            continue;
        }
        for (let k = 1; k < text.length; k++) {
            const letter = text[k]!;
            if (spec.withValue.includes(letter)) {
                result.options.add(`-${letter}`);
                const rest = text.slice(k + 1);
                const value = rest !== "" ? { value: rest, dynamic: word.dynamic } : words[++i];
                takeValue(`-${letter}`, value);
                break;
            }
            // `sed -i[SUFFIX]`: the rest of the word is the suffix.
            if (spec.written === "in place" && letter === "i") {
                result.options.add("-i");
                break;
            }
            if (spec.flags.includes(letter)) result.options.add(`-${letter}`);
            else if (!spec.lenient) result.uncertain = true;
        }
    }
    return result;
}

/** A long option by its name or a unique abbreviation; null when unknown or ambiguous. */
function longOption(
    given: string,
    spec: WritingCommand
): { name: string; withValue: boolean } | null {
    const all = [
        ...spec.longFlags.map((name) => ({ name, withValue: false })),
        ...spec.longWithValue.map((name) => ({ name, withValue: true })),
    ];
    const exact = all.find((option) => option.name === given);
    if (exact) return exact;
    const prefixed = all.filter((option) => option.name.startsWith(given));
    return given !== "" && prefixed.length === 1 ? prefixed[0]! : null;
}

function writtenBy(spec: WritingCommand, parsed: ParsedArguments): ArgumentWrites {
    const { operands, targets, options } = parsed;
    const recursive =
        spec.recursive === "always" || (spec.recursive ?? []).some((o) => options.has(o));
    const all = (): ArgumentWrites => ({
        targets: [...targets, ...operands],
        patternTargets: [],
        ...(recursive
            ? { trees: operands.map((root) => ({ root, into: [root], removed: true })) }
            : {}),
    });
    if (parsed.uncertain || spec.allOperands?.some((option) => options.has(option))) return all();
    switch (spec.written) {
        case "all":
            return all();
        case "patched":
            return {
                targets: [
                    ...targets,
                    operands[0] ?? { value: "(the files the patch names)", dynamic: true },
                ],
                patternTargets: [],
            };
        case "second":
            return { targets: operands.slice(1, 2), patternTargets: [] };
        case "in place": {
            if (!options.has("-i") && !options.has("--in-place"))
                return { targets, patternTargets: [] };
            // Without -e or -f the first operand is the script.
            const scripted = ["-e", "-f", "--expression", "--file"].some((o) => options.has(o));
            return {
                targets: [...targets, ...operands.slice(scripted ? 0 : 1)],
                patternTargets: [],
            };
        }
        default:
            return intoDestination(spec, parsed);
    }
}

/**
 * `cp SRC… DEST` / `cp -t DEST SRC…`: DEST, and DEST/NAME for each source
 * (DEST may be a folder, or become one earlier in the command); `-T` writes
 * DEST only. `ln -s TARGET` alone makes ./NAME. `mv` also writes its sources.
 */
function intoDestination(spec: WritingCommand, parsed: ParsedArguments): ArgumentWrites {
    const { operands, targets: folders, options } = parsed;
    let sources = folders.length > 0 ? operands : operands.slice(0, -1);
    let destinations = folders.length > 0 ? folders : operands.slice(-1);
    if (spec === WRITING_COMMANDS.ln && folders.length === 0 && operands.length === 1) {
        sources = operands;
        destinations = [{ value: ".", dynamic: false }];
    }
    const out: ArgumentWrites = { targets: [...destinations], patternTargets: [] };
    if (spec.written === "destination and sources") out.targets.push(...sources);
    const recursive =
        spec.recursive === "always" || (spec.recursive ?? []).some((o) => options.has(o));
    const intoItself = options.has("-T") || options.has("--no-target-directory");
    if (recursive) out.trees = [];
    for (const source of sources) {
        const into: Word[] = [...destinations];
        for (const destination of intoItself ? [] : destinations) {
            const joined = options.has("--parents")
                ? joinPath(destination, source)
                : joinName(destination, source);
            if (joined === null) continue;
            (joined.glob === undefined ? out.targets : out.patternTargets).push(joined);
            into.push(joined);
        }
        out.trees?.push({ root: source, into });
        if (spec.written === "destination and sources")
            out.trees?.push({ root: source, into: [source], removed: true });
    }
    return out;
}

/** DEST/NAME of a source; null when the name is `.`, `..` or only known when it runs. */
function joinName(destination: Word, source: Word): Word | null {
    if (source.dynamic && source.glob === undefined) return null;
    const sourceText = source.glob ?? escapeGlob(source.value);
    const name = sourceText.replace(/\/+$/, "").split("/").pop() ?? "";
    if (name === "" || name === "." || name === ".." || name.startsWith("~")) return null;
    const base = destination.value.replace(/\/+$/, "");
    if (destination.dynamic && destination.glob === undefined)
        return { value: `${base}/${name}`, dynamic: true };
    const baseGlob = (destination.glob ?? escapeGlob(destination.value)).replace(/\/+$/, "");
    if (source.glob === undefined && destination.glob === undefined)
        return {
            value: `${base}/${source.value.replace(/\/+$/, "").split("/").pop()}`,
            dynamic: false,
        };
    return { value: `${base}/${name}`, dynamic: true, glob: `${baseGlob}/${name}` };
}

/** `cp --parents a/b/f DEST` writes DEST/a/b/f; a path through `..` lands anywhere below DEST. */
function joinPath(destination: Word, source: Word): Word {
    const base = destination.value.replace(/\/+$/, "");
    const rel = source.value
        .replace(/^\/+/, "")
        .replace(/^(\.\/)+/, "")
        .replace(/\/+$/, "");
    if (source.dynamic || destination.dynamic || rel.split("/").includes(".."))
        // Read as a write only known when it runs: any name below DEST.
        return { value: `${base}/$…`, dynamic: true };
    return { value: `${base}/${rel}`, dynamic: false };
}

/** `dd of=FILE`. */
function ddOutputs(words: readonly Word[]): Word[] {
    return words
        .slice(1)
        .filter((word) => word.value.startsWith("of="))
        .map((word) => ({
            ...word,
            value: word.value.slice(3),
            ...(word.glob ? { glob: word.glob.slice(3) } : {}),
        }));
}

/**
 * `perl -i[ext] [-e CODE]… FILE…` (`-pi`, `-i.bak`, `-0777 -pi -e`): the files
 * after the code are edited in place. Without `-e`/`-E` the first operand is
 * the script.
 */
function perlInPlace(words: readonly Word[]): Word[] {
    let inPlace = false;
    let scripted = false;
    let uncertain = false;
    const operands: Word[] = [];
    let i = 1;
    for (; i < words.length; i++) {
        const word = words[i]!;
        const text = word.value;
        if (word.dynamic && word.glob === undefined) {
            uncertain = true;
            operands.push(word);
            continue;
        }
        if (text === "--") {
            i++;
            break;
        }
        if (!text.startsWith("-") || text === "-") break;
        for (let k = 1; k < text.length; k++) {
            const letter = text[k]!;
            if (letter === "e" || letter === "E") {
                scripted = true;
                if (k === text.length - 1) i++;
                break;
            }
            if (letter === "i") {
                inPlace = true;
                break;
            }
            // These take the rest of the word (`-Mstrict`, `-I lib` also the next word).
            // `-l[octal]` and `-0[digits]` may be followed by more switches (`-lpi`, `-0777pi`).
            if (letter === "l" || letter === "0") {
                while (k + 1 < text.length && /[0-9a-fA-Fx]/.test(text[k + 1]!)) k++;
                continue;
            }
            if ("FCdDmMxV".includes(letter)) break;
            if (letter === "I") {
                if (k === text.length - 1) i++;
                break;
            }
        }
    }
    operands.push(...words.slice(i));
    if (uncertain) return operands;
    if (!inPlace) return [];
    return operands.slice(scripted ? 0 : 1);
}

/**
 * Commands that may put a symlink in place (`ln -s .git g`, or one copied,
 * moved or unpacked: `mv`, `cp -R`/`-a`/`-d`, `tar -x`, `rsync -a`/`-l`,
 * `unzip`, `cpio -i`), which a later part of the same command may follow.
 */
export function mayPlaceSymlink(words: readonly Word[]): boolean {
    const name = words[0];
    if (!name || name.dynamic) return false;
    const program = basename(name.value);
    const args = words.slice(1);
    const shortHas = (letters: RegExp): boolean =>
        args.some(
            (word) =>
                word.dynamic || (/^-[^-]/.test(word.value) && letters.test(word.value.slice(1)))
        );
    const longHas = (names: RegExp): boolean => args.some((word) => names.test(word.value));
    switch (program) {
        case "ln":
        case "link":
        case "mv":
        case "unzip":
            return true;
        case "cp":
            return (
                shortHas(/[sRraPd]/) ||
                longHas(/^--(symbolic-link|recursive|archive|no-dereference)/)
            );
        case "rsync":
            return shortHas(/[alr]/) || longHas(/^--(archive|links|recursive)/);
        case "tar":
        case "bsdtar": {
            // `tar xzf a.tgz`: the first word is a bundle of letters without `-`.
            const first = args[0];
            if (first && !first.value.startsWith("-") && /x/.test(first.value)) return true;
            return shortHas(/x/) || longHas(/^--(extract|get)/);
        }
        case "cpio":
            return shortHas(/i/) || longHas(/^--extract/);
        default:
            return false;
    }
}

/** Entries read below one folder a command copies, moves or removes whole. */
export const MAX_LISTED_ENTRIES = 50_000;
/** Copied files judged one by one like targets (where their links lead too); more are matched by path. */
export const MAX_JUDGED_ENTRIES = 5000;

/**
 * The paths below `dir` (relative); [] when it is not a folder; null when it
 * is missing, unreadable or too large to list.
 */
export function filesBelow(dir: string, limit: number): string[] | null {
    try {
        // The folder itself through a link (`link/`, `link/.`, `cp -H`); links below it are not followed.
        if (!statSync(dir).isDirectory()) return [];
    } catch {
        return null;
    }
    const out: string[] = [];
    const pending = [""];
    while (pending.length > 0) {
        const rel = pending.pop()!;
        let entries: Dirent[];
        try {
            entries = readdirSync(join(dir, rel), { withFileTypes: true });
        } catch {
            return null;
        }
        for (const entry of entries) {
            const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
            out.push(path);
            if (out.length > limit) return null;
            if (entry.isDirectory()) pending.push(path);
        }
    }
    return out;
}
