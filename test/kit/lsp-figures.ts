/**
 * The language-server figures: real servers on the fixture projects, each
 * generated edit (test/kit/lsp-edits.ts) written to the file the way an edit
 * tool writes it, its diagnostics taken like the write review takes them
 * (a view before the write, one after, then the problems the edit
 * introduced), then the file put back. Shared by `npm run bench --
 * lsp-diagnostics` and test/tools/lsp-figures.test.ts.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { introducedDiagnostics } from "../../src/tools/lsp/introduced";
import { createLanguageService } from "../../src/tools/lsp/manager";
import type { DiagnosticsView, LanguageService, LspDiagnostic } from "../../src/tools/lsp/types";
import {
    type FixtureLanguage,
    type GeneratedEdit,
    copyFixtureProject,
    generateEdits,
    projectFiles,
} from "./lsp-edits";

export interface FigureCounts {
    benign: number;
    errors: number;
    seed: number;
    /** Time allowed for each diagnostics call; generous, so the figures show real readiness. */
    budgetMs: number;
    /** Also time the bare round trip after each edit (the bench's floor; tests skip it). */
    roundTrip: boolean;
}

export interface LanguageFigures {
    language: FixtureLanguage;
    /** The server that answered (its status name). */
    server: string;
    benignEdits: number;
    /** Diagnostics reported as introduced by the benign edits (must be 0). */
    falseIntroduced: number;
    /** Benign edits after which the file's own set of errors and warnings changed at all. */
    benignSetChanged: number;
    errorEdits: number;
    /** Type-error edits whose error was reported as introduced at the inserted lines. */
    errorsFound: number;
    /** Calls that ran out of budget (the edit result would say "pending"). */
    pending: number;
    /** Per edit: write, diagnostics after, introduced (ms). */
    diagnosticsMs: number[];
    /** Per edit: the edited text synced and a documentSymbol answered (ms), the floor. */
    roundTripMs: number[];
    /** Examples of what went wrong, for the bench's notes. */
    misses: string[];
    /** Why nothing was measured: the server runs but North asks it for no diagnostics. */
    unavailable?: string;
}

/** gopls must load the module offline: no proxy, no module downloads. */
const GO_ENV = { GOFLAGS: "-mod=mod", GOPROXY: "off" };

function problems(view: DiagnosticsView | null, file: string): string[] {
    const list: readonly LspDiagnostic[] = view?.byPath.get(file) ?? [];
    return list
        .filter((d) => d.severity === "error" || d.severity === "warning")
        .map((d) => `${d.severity} ${d.message}`)
        .sort();
}

function oneLine(d: LspDiagnostic, root: string): string {
    return `${path.relative(root, d.path)}:${d.line} ${d.severity} ${d.message.split("\n")[0]}`;
}

async function roundTrip(
    service: LanguageService,
    file: string,
    text: string,
    signal: AbortSignal
): Promise<number> {
    const handle = await service.serverFor(file, signal);
    if (!handle) throw new Error(`no server for ${file}`);
    const started = performance.now();
    await handle.sync(file, text);
    await handle.request(
        "textDocument/documentSymbol",
        { textDocument: { uri: pathToFileURL(file).href } },
        signal
    );
    const ms = performance.now() - started;
    await handle.sync(file);
    return ms;
}

/** One edit through the review's path; the file is put back after. */
async function measureEdit(
    service: LanguageService,
    root: string,
    edit: GeneratedEdit,
    { budgetMs, roundTrip: measureRoundTrip }: FigureCounts,
    figures: LanguageFigures
): Promise<void> {
    const file = path.join(root, edit.file);
    const signal = new AbortController().signal;
    const wait = () => ({ signal, budgetMs });
    const before = await service.diagnostics([file], wait());
    if (!before) throw new Error(`no server handles ${edit.file}`);
    const started = performance.now();
    writeFileSync(file, edit.after);
    const after = await service.diagnostics([file], wait());
    if (!after) throw new Error(`${edit.file}: its server stopped answering`);
    const { introduced } = introducedDiagnostics(before, after, [file]);
    figures.diagnosticsMs.push(performance.now() - started);
    if (!before.complete || !after.complete) figures.pending++;
    writeFileSync(file, edit.before);
    await service.diagnostics([file], wait());
    if (measureRoundTrip) {
        // The floor, after the measured call so its stray reports settle before the next edit.
        figures.roundTripMs.push(await roundTrip(service, file, edit.after, signal));
        await service.diagnostics([file], wait());
    }

    const where = `${edit.rule} ${edit.file}:${edit.line}`;
    if (edit.kind === "benign") {
        figures.falseIntroduced += introduced.length;
        if (problems(before, file).join("\n") !== problems(after, file).join("\n")) {
            figures.benignSetChanged++;
        }
        for (const d of introduced) figures.misses.push(`${where}: ${oneLine(d, root)}`);
        return;
    }
    // The inserted declaration spans at most four lines from the edit's line.
    const found = introduced.some(
        (d) =>
            d.severity === "error" &&
            d.path === file &&
            d.line >= edit.line &&
            d.line <= edit.line + 3
    );
    if (found) figures.errorsFound++;
    else figures.misses.push(`${where}: not found (${introduced.length} introduced)`);
}

/** Runs the figures for one language on a fresh copy of its fixture project. */
export async function languageFigures(
    language: FixtureLanguage,
    counts: FigureCounts
): Promise<LanguageFigures> {
    const root = copyFixtureProject(language);
    const warnings: string[] = [];
    const service = createLanguageService({
        repoRoot: root,
        trusted: true,
        env: { ...process.env, ...(language === "go" ? GO_ENV : {}) },
        warn: (message) => warnings.push(message),
        // A loaded machine: slow is not broken here.
        startupTimeoutMs: 120_000,
        requestTimeoutMs: 60_000,
    });
    try {
        const files = projectFiles(root);
        const edits = [
            ...generateEdits(language, files, "benign", counts.benign, counts.seed),
            ...generateEdits(language, files, "error", counts.errors, counts.seed),
        ];
        const first = path.join(root, edits[0]!.file);
        const handle = await service.serverFor(first, new AbortController().signal);
        if (!handle) {
            const status = service.status().find((s) => s.state !== "missing") ?? null;
            throw new Error(
                `${language}: no server started (${status?.lastError ?? "none found"})`
            );
        }
        const figures: LanguageFigures = {
            language,
            server: handle.name,
            benignEdits: edits.filter((e) => e.kind === "benign").length,
            falseIntroduced: 0,
            benignSetChanged: 0,
            errorEdits: edits.filter((e) => e.kind === "error").length,
            errorsFound: 0,
            pending: 0,
            diagnosticsMs: [],
            roundTripMs: [],
            misses: [],
        };
        const probe = await service.diagnostics([first], {
            signal: new AbortController().signal,
            budgetMs: counts.budgetMs,
        });
        if (!probe) {
            figures.unavailable = `${handle.name} runs but North asks it for no diagnostics here`;
            return figures;
        }
        for (const edit of edits) {
            await measureEdit(service, root, edit, counts, figures);
            // Every edit starts from the fixture as it was.
            if (readFileSync(path.join(root, edit.file), "utf8") !== edit.before) {
                throw new Error(`${edit.file} was not put back`);
            }
        }
        figures.misses.push(...warnings.map((message) => `warning: ${message}`));
        return figures;
    } finally {
        await service.dispose();
        rmSync(root, { recursive: true, force: true });
    }
}
