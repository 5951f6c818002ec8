/**
 * A LanguageService in memory for edit-diagnostics tests: it "handles" files
 * with the given extension and, like a server, reads them from disk when
 * asked; every line holding `BAD` is an error there. A test can hold a call
 * (to play a slow server) or make it fail.
 */
import { promises as fs } from "node:fs";
import type {
    DiagnosticsView,
    DiagnosticsWait,
    LanguageService,
    LspDiagnostic,
} from "../../src/tools/lsp/types";

export const BAD_MESSAGE = "BAD is not allowed here.";

export interface FakeCall {
    paths: string[];
    /** The files' text when the call was made. */
    texts: Map<string, string>;
    budgetMs: number;
}

export class FakeLanguageService implements LanguageService {
    readonly calls: FakeCall[] = [];
    /** Other files the "server" reports on in every view (a caller of an edited file). */
    readonly alsoReported: string[] = [];
    /** Set to make the next calls fail. */
    failWith: Error | null = null;
    /** False: views say not every server answered. */
    complete = true;
    /** Set to hold the next call until `release()` (or its abort). */
    hold = false;
    private held: Array<() => void> = [];
    private startedWaiters: Array<() => void> = [];

    constructor(private readonly extension = ".ts") {}

    status() {
        return [];
    }
    hasServers() {
        return true;
    }
    handles(path: string): boolean {
        return path.endsWith(this.extension);
    }
    async serverFor() {
        return null;
    }
    running() {
        return [];
    }
    async dispose() {}

    /** Resolves once `count` calls have been made. */
    callsMade(count: number): Promise<void> {
        if (this.calls.length >= count) return Promise.resolve();
        return new Promise((resolve) => {
            const check = (): void => {
                if (this.calls.length >= count) resolve();
                else this.startedWaiters.push(check);
            };
            this.startedWaiters.push(check);
        });
    }

    /** Lets the held calls answer. */
    release(): void {
        this.hold = false;
        for (const go of this.held.splice(0)) go();
    }

    async diagnostics(
        paths: readonly string[],
        wait: DiagnosticsWait
    ): Promise<DiagnosticsView | null> {
        if (this.failWith) throw this.failWith;
        const all = [...paths, ...this.alsoReported];
        const texts = new Map<string, string>();
        for (const path of all) texts.set(path, await fs.readFile(path, "utf8").catch(() => ""));
        this.calls.push({ paths: [...paths], texts, budgetMs: wait.budgetMs });
        for (const notify of this.startedWaiters.splice(0)) notify();
        if (this.hold) {
            await new Promise<void>((resolve, reject) => {
                this.held.push(resolve);
                wait.signal.addEventListener("abort", () => reject(new Error("aborted")), {
                    once: true,
                });
            });
        }
        const byPath = new Map<string, LspDiagnostic[]>();
        for (const [path, text] of texts) byPath.set(path, badLines(path, text));
        return { byPath, text: texts, complete: this.complete };
    }
}

function badLines(path: string, text: string): LspDiagnostic[] {
    return text.split("\n").flatMap((line, i) => {
        const column = line.indexOf("BAD");
        if (column === -1) return [];
        return [
            {
                path,
                line: i + 1,
                column: column + 1,
                endLine: i + 1,
                endColumn: column + 4,
                severity: "error" as const,
                message: BAD_MESSAGE,
                source: "fake",
                code: "E1",
                server: "fake-server",
            },
        ];
    });
}
