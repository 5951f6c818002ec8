/**
 * The symbol corpus (real files with declarations from the languages' own
 * parsers, see fixtures/symbol-corpus/README.md) and how North is scored
 * against it. Shared by symbol-corpus.test.ts and bench/symbols.ts.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { BlockLocator } from "../../src/tools/find-code-block";
import { createGetFileSymbolsTool } from "../../src/tools/get-file-symbols";
import { type ParserId, languageOf } from "../../src/tools/structure/language";
import { type SymbolInfo, extractSymbols } from "../../src/tools/structure/symbols";
import { makeRepo, ok, run } from "./nav-fixtures";

const CORPUS = fileURLToPath(new URL("./fixtures/symbol-corpus/", import.meta.url));

export interface TruthSymbol {
    name: string;
    kind: string;
    line: number;
    endLine: number;
    container?: string;
    /** Inside a function body: not listed by get_file_symbols, but find_code_block's answer. */
    nested?: boolean;
}

export interface CorpusFile {
    /** Path inside the corpus folder. */
    fixture: string;
    language: "typescript" | "python" | "go" | "rust";
    /** Path in its repository; its extension decides the parser. */
    path: string;
    parser: ParserId;
    lines: string[];
    truth: TruthSymbol[];
}

interface TruthFile {
    files: Record<
        string,
        { language: CorpusFile["language"]; path: string; symbols: TruthSymbol[] }
    >;
}

/** The committed corpus, or another folder laid out the same way (a held-out check). */
export function loadCorpus(dir = CORPUS): CorpusFile[] {
    const truth = JSON.parse(readFileSync(path.join(dir, "truth.json"), "utf8")) as TruthFile;
    return Object.entries(truth.files).map(([fixture, entry]) => {
        const text = readFileSync(path.join(dir, fixture), "utf8");
        return {
            fixture,
            language: entry.language,
            path: entry.path,
            parser: languageOf(entry.path)?.parser ?? "none",
            lines: text.replace(/\r?\n$/, "").split(/\r?\n/),
            truth: entry.symbols,
        };
    });
}

const collapse = (name: string) => name.replace(/\s+/g, " ").trim();

export interface SymbolScore {
    expected: number;
    found: number;
    matched: number;
    /** Ground-truth declarations North missed (or got wrong), "kind name line-end". */
    missed: string[];
    /** What North listed that the parser does not have. */
    extra: string[];
}

const describe = (s: { kind: string; name: string; line: number; endLine: number }) =>
    `${s.kind} ${s.name} ${s.line}-${s.endLine}`;

/** Name and kind equal, start line ±1, end line exact; each symbol matched at most once. */
export function scoreSymbols(file: CorpusFile, symbols?: SymbolInfo[]): SymbolScore {
    const found = symbols ?? extractSymbols(file.lines, file.parser);
    const expected = file.truth.filter((s) => !s.nested);
    const pool = new Map<string, SymbolInfo[]>();
    for (const s of found) {
        const key = `${s.kind}\0${collapse(s.name)}\0${s.endLine}`;
        const list = pool.get(key);
        if (list) list.push(s);
        else pool.set(key, [s]);
    }
    const used = new Set<SymbolInfo>();
    const missed: string[] = [];
    for (const t of expected) {
        const list = pool.get(`${t.kind}\0${collapse(t.name)}\0${t.endLine}`) ?? [];
        const hit = list.find((s) => !used.has(s) && Math.abs(s.line - t.line) <= 1);
        if (hit) used.add(hit);
        else missed.push(describe(t));
    }
    const extra = found.filter((s) => !used.has(s)).map(describe);
    return { expected: expected.length, found: found.length, matched: used.size, missed, extra };
}

export interface InnermostScore {
    probes: number;
    correct: number;
    /** "line L: expected …, got …". */
    wrong: string[];
}

function contains(outer: TruthSymbol, inner: TruthSymbol): boolean {
    return (
        inner !== outer &&
        outer.line <= inner.line &&
        inner.endLine <= outer.endLine &&
        !(outer.line === inner.line && outer.endLine === inner.endLine)
    );
}

/**
 * One probe line per declaration of 3+ lines: a line inside it that no smaller
 * declaration holds. find_code_block must answer with that declaration.
 */
export function probeLines(file: CorpusFile): { line: number; expected: TruthSymbol }[] {
    const probes: { line: number; expected: TruthSymbol }[] = [];
    const sorted = [...file.truth].sort((a, b) => a.line - b.line || b.endLine - a.endLine);
    for (const decl of sorted) {
        if (decl.endLine - decl.line < 2) continue;
        const children = sorted.filter((s) => contains(decl, s));
        const eligible: number[] = [];
        for (let l = decl.line + 1; l < decl.endLine; l++) {
            if (children.some((c) => c.line <= l && l <= c.endLine)) continue;
            if (file.lines[l - 1]!.replace(/\s/g, "").length < 3) continue;
            eligible.push(l);
        }
        const line = eligible[Math.floor(eligible.length / 2)];
        if (line !== undefined) probes.push({ line, expected: decl });
    }
    return probes;
}

export function scoreInnermost(file: CorpusFile): InnermostScore {
    const locator = new BlockLocator(file.lines, file.parser, "any");
    const score: InnermostScore = { probes: 0, correct: 0, wrong: [] };
    for (const { line, expected } of probeLines(file)) {
        score.probes++;
        const hit = locator.at(line);
        if (
            hit &&
            Math.abs(hit.startLine - expected.line) <= 1 &&
            hit.endLine === expected.endLine
        ) {
            score.correct++;
        } else {
            const got = hit ? `${hit.kind} ${hit.name} ${hit.startLine}-${hit.endLine}` : "nothing";
            score.wrong.push(`line ${line}: expected ${describe(expected)}, got ${got}`);
        }
    }
    return score;
}

export interface Reachability {
    total: number;
    reached: number;
    calls: number;
}

/** Pages through get_file_symbols the way a model would (startLine = nextLine). */
export async function reachability(file: CorpusFile): Promise<Reachability> {
    const repo = makeRepo("north-symbols-");
    try {
        const rel = path.basename(file.path);
        repo.write(rel, file.lines.join("\n") + "\n");
        const tool = createGetFileSymbolsTool();
        const all = extractSymbols(file.lines, file.parser);
        const seen = new Set<string>();
        let startLine: number | undefined;
        let calls = 0;
        for (;;) {
            calls++;
            const args = startLine === undefined ? { path: rel } : { path: rel, startLine };
            const data = ok(await run(tool, args, repo.ctx));
            for (const s of data.symbols) seen.add(`${s.kind} ${s.name} ${s.line}`);
            if (data.nextLine === undefined || calls > 100) break;
            startLine = data.nextLine;
        }
        const reached = all.filter((s) => seen.has(`${s.kind} ${s.name} ${s.line}`)).length;
        return { total: all.length, reached, calls };
    } finally {
        repo.dispose();
    }
}
