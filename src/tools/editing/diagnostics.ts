/**
 * Messages for edits that cannot be placed: text or anchor not found (with
 * whitespace findings and Levenshtein near misses), ambiguous matches with
 * their candidates, and out-of-range occurrences. The model reads these and
 * should be able to fix its next call from them alone.
 */
import type { MatchLevel, TextMatch, Tolerance } from "./match";
import { MAX_PLACES, foldUnicode } from "./match";
import { detectEol, lineText, preview } from "./text-doc";

export const EDIT_HINT =
    "Hint: Use read_around to see exact content, or use anchor-based editing (edit_by_anchor).";

/** What the search is called in messages. */
export type SearchKind = "Text" | "Anchor" | "End anchor";

const MAX_NEAR = 3;
const MAX_LINE_FOR_DISTANCE = 400;

function showChar(ch: string | undefined): string {
    if (ch === undefined) return "end of line";
    if (ch === "\t") return "'\\t'";
    if (ch === "'") return "'\\''";
    return `'${ch}'`;
}

/**
 * "differs at position 12: 'a' vs 'e'": the first difference between the file
 * line (from `offset`, where the search aligns) and the search line; the
 * position counts from 0 in the file line, the file's character comes first.
 */
export function firstDifference(fileLine: string, searchLine: string, offset = 0): string {
    const rest = fileLine.slice(offset);
    let i = 0;
    while (i < rest.length && i < searchLine.length && rest[i] === searchLine[i]) i++;
    return `differs at position ${offset + i}: ${showChar(fileLine[offset + i])} vs ${showChar(searchLine[i])}`;
}

interface FileLines {
    raw: string[];
    trimmed: string[];
}

function fileLines(text: string, starts: readonly number[]): FileLines {
    const raw: string[] = [];
    const trimmed: string[] = [];
    for (let i = 0; i < starts.length; i++) {
        const line = lineText(text, starts, i);
        raw.push(line);
        trimmed.push(line.trim());
    }
    return { raw, trimmed };
}

function indentStyle(lines: string[]): { tabs: number; spaces: number } {
    let tabs = 0;
    let spaces = 0;
    for (const line of lines) {
        if (line.startsWith("\t")) tabs++;
        else if (line.startsWith(" ") && line.trim() !== "") spaces++;
    }
    return { tabs, spaces };
}

function whitespaceIssues(
    text: string,
    search: string,
    searchLines: string[],
    file: FileLines
): string[] {
    const issues: string[] = [];
    const mine = indentStyle(searchLines);
    const theirs = indentStyle(file.raw);
    if (mine.tabs > 0 && mine.spaces === 0 && theirs.spaces > theirs.tabs) {
        issues.push("Your search uses tabs but file uses spaces for indentation");
    } else if (mine.spaces > 0 && mine.tabs === 0 && theirs.tabs > theirs.spaces) {
        issues.push("Your search uses spaces but file uses tabs for indentation");
    }
    const fileEol = detectEol(text);
    if (search.includes("\n")) {
        const searchCrlf = search.includes("\r\n");
        if (fileEol === "\r\n" && !searchCrlf) {
            issues.push("Your search uses LF line endings but file uses CRLF");
        } else if (fileEol === "\n" && searchCrlf && text.includes("\n")) {
            issues.push("Your search uses CRLF line endings but file uses LF");
        }
    }
    const trailing = searchLines.findIndex((line) => /[ \t]$/.test(line));
    if (trailing !== -1) {
        issues.push(`Your search has trailing whitespace (line ${trailing + 1} of your search)`);
    }
    return issues;
}

interface NearMiss {
    line: number;
    distance: number;
    /** Where in the trimmed file line the probe's best alignment starts. */
    start: number;
}

/**
 * Edit distance from `probe` to its best-matching stretch of `line` (a probe
 * may be a fragment), with that stretch's end; null once it must exceed `limit`.
 */
function fragmentDistance(
    line: string,
    probe: string,
    limit: number
): { distance: number; end: number } | null {
    let previous = new Array<number>(line.length + 1).fill(0);
    let current = new Array<number>(line.length + 1).fill(0);
    for (let i = 1; i <= probe.length; i++) {
        current[0] = i;
        let rowMin = i;
        const cp = probe.charCodeAt(i - 1);
        for (let j = 1; j <= line.length; j++) {
            const cost = cp === line.charCodeAt(j - 1) ? 0 : 1;
            const value = Math.min(
                (previous[j] ?? 0) + 1,
                (current[j - 1] ?? 0) + 1,
                (previous[j - 1] ?? 0) + cost
            );
            current[j] = value;
            if (value < rowMin) rowMin = value;
        }
        if (rowMin > limit) return null;
        [previous, current] = [current, previous];
    }
    let best = { distance: limit + 1, end: 0 };
    previous.forEach((value, j) => {
        if (value < best.distance) best = { distance: value, end: j };
    });
    return best.distance <= limit ? best : null;
}

function commonPrefix(a: string, b: string): number {
    let i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) i++;
    return i;
}

/** Start of the aligned stretch: the nearby offset sharing the longest prefix with the probe. */
function alignStart(line: string, probe: string, end: number, limit: number): number {
    const guess = Math.max(0, end - probe.length);
    let best = guess;
    let bestLength = -1;
    for (let s = Math.max(0, guess - limit); s <= Math.min(line.length, guess + limit); s++) {
        const length = commonPrefix(line.slice(s), probe);
        if (length > bestLength) [best, bestLength] = [s, length];
    }
    return best;
}

function probeTokens(probe: string): string[] {
    return [...new Set(probe.match(/[A-Za-z0-9_]{3,}/g) ?? [])];
}

function nearMisses(probe: string, file: FileLines): NearMiss[] {
    const limit = Math.max(2, Math.floor(probe.length * 0.3));
    // On big files, only lines sharing at least half the probe's words are measured.
    const tokens = file.trimmed.length > 5000 ? probeTokens(probe) : [];
    const needed = Math.ceil(tokens.length / 2);
    const found: NearMiss[] = [];
    for (let i = 0; i < file.trimmed.length; i++) {
        const line = file.trimmed[i] ?? "";
        if (line === "" || line.length > MAX_LINE_FOR_DISTANCE) continue;
        if (line.length + limit < probe.length) continue;
        if (tokens.length > 0 && tokens.filter((t) => line.includes(t)).length < needed) continue;
        const hit = fragmentDistance(line, probe, limit);
        if (hit)
            found.push({
                line: i,
                distance: hit.distance,
                start: alignStart(line, probe, hit.end, limit),
            });
    }
    found.sort((a, b) => a.distance - b.distance || a.line - b.line);
    return found.slice(0, MAX_NEAR);
}

function lineExists(probe: string, file: FileLines): number {
    return file.trimmed.findIndex((line) => line.includes(probe));
}

/**
 * The full "not found" report: whitespace findings, near-miss lines with the
 * first differing position, and the hint.
 */
export function notFoundMessage(
    kind: SearchKind,
    text: string,
    starts: readonly number[],
    search: string,
    where = "in file"
): string {
    const searchLines = search.split("\n").map((line) => line.replace(/\r$/, ""));
    const file = fileLines(text, starts);
    const parts: string[] = [`${kind} not found ${where}.`];

    const issues = whitespaceIssues(text, search, searchLines, file);
    if (issues.length > 0) {
        parts.push(["Possible whitespace issues:", ...issues.map((i) => `  - ${i}`)].join("\n"));
    }
    const other: string[] = [];
    if (foldUnicode(search) !== search && foldUnicode(text) === text) {
        other.push(
            "Your search contains typographic quotes, dashes or spaces that the file does not use"
        );
    }

    const probes = searchLines
        .map((line, index) => ({ line: line.trim(), index }))
        .filter((p) => p.line !== "");
    const missing = probes.find((p) => lineExists(p.line, file) === -1);
    if (!missing && probes.length > 1) {
        other.push(
            "Every line of your search exists in the file, but not consecutively in this order; lines between them differ or are missing"
        );
    }
    if (other.length > 0)
        parts.push(["Other differences:", ...other.map((o) => `  - ${o}`)].join("\n"));

    const near: string[] = [];
    if (missing) {
        const misses = nearMisses(missing.line, file);
        if (misses.length > 0 && probes.length > 1) {
            near.push(
                `  (closest lines to line ${missing.index + 1} of your search: "${preview(missing.line)}")`
            );
        }
        for (const miss of misses) {
            const fileLine = file.trimmed[miss.line] ?? "";
            near.push(`  - Line ${miss.line + 1}: "${preview(fileLine)}"`);
            near.push(`    (${firstDifference(fileLine, missing.line, miss.start)})`);
        }
    } else if (probes[0]) {
        const first = probes[0].line;
        const hits: number[] = [];
        file.trimmed.forEach((line, i) => {
            if (hits.length < MAX_NEAR && line.includes(first)) hits.push(i);
        });
        for (const hit of hits)
            near.push(`  - Line ${hit + 1}: "${preview(file.trimmed[hit] ?? "")}"`);
    }
    if (near.length > 0) parts.push(["Near matches found:", ...near].join("\n"));
    parts.push(EDIT_HINT);
    return parts.join("\n\n");
}

const LEVEL_WORDS: Record<Tolerance, string> = {
    line_endings: "ignoring line endings",
    trailing_whitespace: "ignoring trailing whitespace",
    indentation: "ignoring indentation",
    unicode: "ignoring whitespace and typographic quotes/dashes",
};

function plural(count: number, one: string, many: string): string {
    return `${count} ${count === 1 ? one : many}`;
}

/** "3 places", or "more than 5000 places" when the search stopped counting. */
function placesCount(matches: readonly TextMatch[]): string {
    return matches.length > MAX_PLACES
        ? `more than ${MAX_PLACES} places`
        : plural(matches.length, "place", "places");
}

/** Candidates shown with a preview; the rest are listed by line number. */
const MAX_PREVIEWED = 20;
/** Line numbers listed after the previews before the rest is only counted. */
const MAX_LISTED_LINES = 200;

/** Matches numbered from 1, those starting on one line (overlapping runs) kept together. */
function groupByLine(matches: TextMatch[]): Array<{ first: number; last: number; line: number }> {
    const groups: Array<{ first: number; last: number; line: number }> = [];
    matches.forEach((m, i) => {
        const open = groups[groups.length - 1];
        if (open && open.line === m.startLine) open.last = i + 1;
        else groups.push({ first: i + 1, last: i + 1, line: m.startLine });
    });
    return groups;
}

function candidateLines(text: string, starts: readonly number[], found: TextMatch[]): string[] {
    const matches = found.slice(0, MAX_PLACES);
    const groups = groupByLine(matches);
    const lines = groups.slice(0, MAX_PREVIEWED).map((g) => {
        const number = g.first === g.last ? `${g.first}` : `${g.first}-${g.last}`;
        const where = g.first === g.last ? "" : ` (${g.last - g.first + 1} places on this line)`;
        return `  ${number}. Line ${g.line}${where}: "${preview(lineText(text, starts, g.line - 1).trim())}"`;
    });
    const rest = groups.slice(MAX_PREVIEWED);
    const firstRest = rest[0];
    if (firstRest) {
        const listed = rest.slice(0, MAX_LISTED_LINES).map((g) => g.line);
        const unlisted = rest.length - listed.length;
        lines.push(
            `  ${firstRest.first}-${matches.length}. Lines ${listed.join(", ")}` +
                (unlisted > 0 ? ` and ${unlisted} more` : "")
        );
    }
    return lines;
}

/** Several places match and the call did not say which one. */
export function ambiguousMessage(
    kind: SearchKind,
    relPath: string,
    level: MatchLevel,
    text: string,
    starts: readonly number[],
    matches: TextMatch[]
): string {
    const how = level === "exact" ? "" : ` (not exactly; ${LEVEL_WORDS[level]})`;
    const head =
        `${kind} matches ${placesCount(matches)} in ${relPath}${how}. ` +
        `Pass occurrence (1-${Math.min(matches.length, MAX_PLACES)}) to choose one, or include more surrounding text to make it unique:`;
    return [head, ...candidateLines(text, starts, matches)].join("\n");
}

/** A search of under three visible characters (or only whitespace) that repeats. */
export function shortSearchMessage(
    kind: SearchKind,
    relPath: string,
    level: MatchLevel,
    text: string,
    starts: readonly number[],
    matches: TextMatch[]
): string {
    const how = level === "exact" ? "" : ` (${LEVEL_WORDS[level]})`;
    const what = kind === "Text" ? "old_text" : "anchor";
    const head =
        `${kind} is too short to name one place: it has fewer than 3 non-whitespace characters ` +
        `and matches ${placesCount(matches)} in ${relPath}${how}. ` +
        `Give a longer ${what} with surrounding lines so it occurs once:`;
    return [head, ...candidateLines(text, starts, matches)].join("\n");
}

/** `occurrence` is larger than the number of matches. */
export function occurrenceMessage(
    kind: SearchKind,
    relPath: string,
    occurrence: number,
    level: MatchLevel,
    count: number
): string {
    const how = level === "exact" ? "" : ` (${LEVEL_WORDS[level]})`;
    return (
        `occurrence ${occurrence} is out of range: the ${kind.toLowerCase()} occurs ` +
        `${plural(count, "time", "times")} in ${relPath}${how}; occurrence counts from 1.`
    );
}

/** One sentence for the model about the tolerance a match needed. */
export function toleranceNote(level: Tolerance): string {
    switch (level) {
        case "line_endings":
            return "matched after normalising line endings; the file's line endings were kept";
        case "trailing_whitespace":
            return "matched ignoring trailing whitespace; unchanged lines kept their bytes";
        case "indentation":
            return "matched ignoring indentation; new lines were re-indented to fit the file";
        case "unicode":
            return "matched after folding typographic quotes, dashes and spaces to ASCII (and ignoring whitespace); unchanged lines kept their bytes";
    }
}
