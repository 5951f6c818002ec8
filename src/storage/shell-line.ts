/**
 * A small reader of shell command lines for the trust fingerprint: splits a
 * line into simple commands of words as bash quotes them, keeps what feeds
 * each command's standard input (a `< file`, a here-string, the previous
 * command of a pipe), and keeps expansions (`$(…)`, backquotes, `${…}`,
 * `<(…)`) as written inside their words, for the caller to resolve or leave.
 */

/** One simple command of a line. */
export interface SimpleCommand {
    words: string[];
    /** Files redirected to its standard input (`< file`). */
    stdinFiles: string[];
    /** Here-strings given to its standard input (`<<< text`). */
    hereStrings: string[];
    /** Its standard input is the previous command's output (`a | b`). */
    piped: boolean;
}

/** Expansions nested deeper than this are read as running to the end of the line. */
const MAX_EXPANSION_NESTING = 32;

/** The index of the `close` that ends an expansion opened just before `from`, quotes and nesting minded. */
export function matchingClose(
    line: string,
    from: number,
    open: string,
    close: string,
    nesting = 0
): number {
    if (nesting > MAX_EXPANSION_NESTING) return line.length;
    let level = 1;
    for (let i = from; i < line.length; i++) {
        const c = line[i]!;
        if (c === "\\") i++;
        else if (c === "'" && open === "(") {
            const end = line.indexOf("'", i + 1);
            i = end < 0 ? line.length : end;
        } else if (c === '"') {
            for (i++; i < line.length && line[i] !== '"'; i++) {
                if (line[i] === "\\") i++;
                else if (line[i] === "$" && line[i + 1] === "(") {
                    i = matchingClose(line, i + 2, "(", ")", nesting + 1);
                }
            }
        } else if (c === "`") {
            const end = backquoteEnd(line, i + 1);
            i = end;
        } else if (c === open) level++;
        else if (c === close && --level === 0) return i;
    }
    return line.length;
}

function backquoteEnd(line: string, from: number): number {
    for (let i = from; i < line.length; i++) {
        if (line[i] === "\\") i++;
        else if (line[i] === "`") return i;
    }
    return line.length;
}

/** At `i`, an expansion kept whole in its word: its raw text's end (exclusive), or -1. */
function expansionEnd(line: string, i: number): number {
    const c = line[i];
    const next = line[i + 1];
    if (c === "$" && next === "(") return matchingClose(line, i + 2, "(", ")") + 1;
    if (c === "$" && next === "{") return matchingClose(line, i + 2, "{", "}") + 1;
    if (c === "`") return backquoteEnd(line, i + 1) + 1;
    return -1;
}

/**
 * Splits a shell command line into simple commands. `; & | ( )` and newlines
 * end a command; an output redirection's target (`> out.log`, `2>err`) and a
 * here-document's delimiter are dropped (its body is read as lines). `#` at a
 * word's start comments out the rest of the line.
 */
export function shellCommands(line: string): SimpleCommand[] {
    const commands: SimpleCommand[] = [];
    const fresh = (piped: boolean): SimpleCommand => ({
        words: [],
        stdinFiles: [],
        hereStrings: [],
        piped,
    });
    let current = fresh(false);
    let word = "";
    let inWord = false;
    let redirect: "stdin" | "here-string" | "dropped" | null = null;
    const endWord = (): void => {
        if (inWord) {
            if (redirect === "stdin") current.stdinFiles.push(word);
            else if (redirect === "here-string") current.hereStrings.push(word);
            else if (redirect === null) current.words.push(word);
            redirect = null;
        }
        word = "";
        inWord = false;
    };
    const endCommand = (pipedNext: boolean): void => {
        endWord();
        redirect = null;
        if (current.words.length + current.stdinFiles.length + current.hereStrings.length > 0) {
            commands.push(current);
        }
        current = fresh(pipedNext);
    };
    for (let i = 0; i < line.length; i++) {
        const c = line[i]!;
        const kept = expansionEnd(line, i);
        if (kept >= 0) {
            word += line.slice(i, kept);
            inWord = true;
            i = kept - 1;
        } else if (c === "'" || (c === "$" && line[i + 1] === "'")) {
            const ansi = c === "$";
            let j = i + (ansi ? 2 : 1);
            for (; j < line.length && line[j] !== "'"; j++) {
                if (ansi && line[j] === "\\" && j + 1 < line.length) j++;
                word += line[j];
            }
            i = j;
            inWord = true;
        } else if (c === '"') {
            let j = i + 1;
            while (j < line.length && line[j] !== '"') {
                const inner = line[j] === "$" || line[j] === "`" ? expansionEnd(line, j) : -1;
                if (inner >= 0) {
                    word += line.slice(j, inner);
                    j = inner;
                    continue;
                }
                if (line[j] === "\\" && '"\\$`'.includes(line[j + 1] ?? "")) j++;
                word += line[j];
                j++;
            }
            i = j;
            inWord = true;
        } else if (c === "\\") {
            if (line[i + 1] !== "\n" && i + 1 < line.length) {
                word += line[i + 1];
                inWord = true;
            }
            i++;
        } else if (c === "#" && !inWord) {
            const eol = line.indexOf("\n", i);
            i = eol < 0 ? line.length - 1 : eol - 1;
        } else if ((c === "<" || c === ">") && line[i + 1] === "(") {
            // `<(cmd)`: a word naming a file that holds the command's output.
            endWord();
            const end = matchingClose(line, i + 2, "(", ")") + 1;
            word = line.slice(i, end);
            inWord = true;
            i = end - 1;
        } else if (c === "<" || c === ">") {
            // `2>`: the digits name a descriptor, not a word.
            if (inWord && /^\d+$/.test(word)) {
                word = "";
                inWord = false;
            }
            endWord();
            let op = c;
            while ("<>&".includes(line[i + 1] ?? "") && line[i + 1] !== undefined) op += line[++i];
            if (op === "<") redirect = "stdin";
            else if (op === "<<<") redirect = "here-string";
            else redirect = "dropped";
            if (op.endsWith("&")) {
                // `>&2`, `<&0`: a descriptor, read as a dropped word.
                redirect = "dropped";
            }
        } else if (c === " " || c === "\t") {
            endWord();
        } else if (c === "|" && line[i + 1] !== "|") {
            if (line[i + 1] === "&") i++;
            endCommand(true);
        } else if (";&|()\n".includes(c)) {
            if (c === "|" || (c === "&" && line[i + 1] === "&")) i++;
            endCommand(false);
        } else {
            word += c;
            inWord = true;
        }
    }
    endCommand(false);
    return commands;
}

/** The command lines inside a word's `$(…)`, backquotes and `<(…)`, outermost first. */
export function substitutionBodies(word: string): string[] {
    const bodies: string[] = [];
    for (let i = 0; i < word.length; i++) {
        const c = word[i];
        if (c === "\\") i++;
        else if ((c === "$" || c === "<" || c === ">") && word[i + 1] === "(") {
            if (c === "$" && word[i + 2] === "(") {
                i = matchingClose(word, i + 3, "(", ")") + 1; // arithmetic
                continue;
            }
            const end = matchingClose(word, i + 2, "(", ")");
            bodies.push(word.slice(i + 2, end));
            i = end;
        } else if (c === "`") {
            const end = backquoteEnd(word, i + 1);
            bodies.push(word.slice(i + 1, end).replace(/\\([`\\$])/g, "$1"));
            i = end;
        } else if (c === "$" && word[i + 1] === "{") {
            i = matchingClose(word, i + 2, "{", "}");
        }
    }
    return bodies;
}
