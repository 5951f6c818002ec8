/**
 * The diagnostics one server reported, per file, and waits for the ones that
 * answer a given version of a file: a publish carrying that version, or,
 * from servers that send no versions (Debian's gopls 0.5 and clangd 14), a
 * publish after the change followed by a quiet window. Bounded: a server
 * reporting on thousands of files or thousands of problems in one keeps
 * only the newest files and the first problems of each.
 */
import { fileURLToPath } from "node:url";
import type { Diagnostic, PublishDiagnosticsParams } from "vscode-languageserver-protocol";
import type { LspDiagnostic, LspSeverity } from "./types";

/** Problems kept per file; a file with more is a file with many, whichever they are. */
export const MAX_DIAGNOSTICS_PER_FILE = 500;
/** Files whose diagnostics are kept (the oldest report is forgotten first). */
export const MAX_FILES_WITH_DIAGNOSTICS = 2000;
/** Without versions: no new publish for this long after one means the server is done. */
export const SETTLE_QUIET_MS = 400;

const SEVERITIES: Record<number, LspSeverity> = {
    1: "error",
    2: "warning",
    3: "information",
    4: "hint",
};

/** A server's diagnostic in North's shape (1-based lines and columns). */
export function toLspDiagnostic(
    path: string,
    server: string,
    diagnostic: Diagnostic
): LspDiagnostic {
    const { start, end } = diagnostic.range;
    return {
        path,
        line: start.line + 1,
        column: start.character + 1,
        endLine: end.line + 1,
        endColumn: end.character + 1,
        severity: SEVERITIES[diagnostic.severity ?? 1] ?? "error",
        message:
            typeof diagnostic.message === "string" ? diagnostic.message : diagnostic.message.value,
        ...(diagnostic.source ? { source: diagnostic.source } : {}),
        ...(diagnostic.code !== undefined ? { code: String(diagnostic.code) } : {}),
        server,
    };
}

/** The path of a `file:` URI, or null for other schemes. */
export function pathOfUri(uri: string): string | null {
    if (!uri.startsWith("file:")) return null;
    try {
        return fileURLToPath(uri);
    } catch {
        return null;
    }
}

interface FileReport {
    diagnostics: LspDiagnostic[];
    /** The document version the server said it describes, if it said. */
    version?: number;
    /** Count of publishes for this file so far. */
    publishes: number;
    /** The document version a finished wait was answered for: waiting again at it is done at once. */
    answered?: number;
}

interface Waiter {
    path: string;
    version: number;
    publishesBefore: number;
    quietTimer?: NodeJS.Timeout;
    /** Ends the wait: true when the server answered. */
    finish(answered: boolean): void;
}

export class DiagnosticsStore {
    private readonly reports = new Map<string, FileReport>();
    private readonly waiters = new Set<Waiter>();
    /** Called on every publish (a wait for all reports to go quiet). */
    private readonly onPublish = new Set<() => void>();
    /** The server published without a version: its reports are known done only by quiet. */
    unversioned = false;

    constructor(private readonly server: string) {}

    /** A `textDocument/publishDiagnostics` notification. */
    published(params: PublishDiagnosticsParams): void {
        const path = pathOfUri(params.uri);
        if (path === null) return;
        this.store(
            path,
            params.diagnostics.map((d) => toLspDiagnostic(path, this.server, d)),
            params.version ?? undefined
        );
        if (params.version === undefined || params.version === null) this.unversioned = true;
        for (const listener of [...this.onPublish]) listener();
        for (const waiter of [...this.waiters]) {
            if (waiter.path !== path) continue;
            if (params.version === waiter.version) this.release(waiter);
            else if (params.version === undefined || params.version === null) this.quietFor(waiter);
        }
    }

    /** Diagnostics answered by a pull request (`textDocument/diagnostic`). */
    pulled(path: string, diagnostics: readonly Diagnostic[], version: number): void {
        this.store(
            path,
            diagnostics.map((d) => toLspDiagnostic(path, this.server, d)),
            version
        );
        for (const listener of [...this.onPublish]) listener();
    }

    get(path: string): LspDiagnostic[] | undefined {
        return this.reports.get(path)?.diagnostics;
    }

    /** Every file with a report, newest last. */
    all(): ReadonlyMap<string, readonly LspDiagnostic[]> {
        return new Map([...this.reports].map(([path, report]) => [path, report.diagnostics]));
    }

    /** The count of publishes for `path` so far: a wait starts after them. */
    mark(path: string): number {
        return this.reports.get(path)?.publishes ?? 0;
    }

    /**
     * Resolves once the server published for `path` at `version` (true), or
     * without a version and then kept quiet, or answered `barrier` and then
     * kept quiet; false when `signal` ends it first.
     */
    waitFor(
        path: string,
        version: number,
        publishesBefore: number,
        signal: AbortSignal,
        barrier?: Promise<unknown>
    ): Promise<boolean> {
        const report = this.reports.get(path);
        if (report?.version === version || report?.answered === version)
            return Promise.resolve(true);
        if (signal.aborted) return Promise.resolve(false);
        return new Promise((resolve) => {
            const onAbort = (): void => {
                this.drop(waiter);
                resolve(false);
            };
            const waiter: Waiter = {
                path,
                version,
                publishesBefore,
                finish: (answered) => {
                    signal.removeEventListener("abort", onAbort);
                    resolve(answered);
                },
            };
            signal.addEventListener("abort", onAbort, { once: true });
            this.waiters.add(waiter);
            // The server said it checked the file: no publish then means nothing changed.
            void barrier?.then(
                () => {
                    if (this.waiters.has(waiter)) this.quietFor(waiter);
                },
                () => undefined
            );
            // An unversioned publish may already have come after the change.
            if (report && report.publishes > publishesBefore && report.version === undefined) {
                this.quietFor(waiter);
            }
        });
    }

    /** Resolves once no file was published for `ms` (or `signal` ended). */
    quietAll(ms: number, signal: AbortSignal): Promise<void> {
        if (signal.aborted) return Promise.resolve();
        return new Promise((resolve) => {
            let timer = setTimeout(done, ms);
            const restart = (): void => {
                clearTimeout(timer);
                timer = setTimeout(done, ms);
            };
            function done(): void {
                clearTimeout(timer);
                signal.removeEventListener("abort", done);
                listeners.delete(restart);
                resolve();
            }
            const listeners = this.onPublish;
            listeners.add(restart);
            signal.addEventListener("abort", done, { once: true });
        });
    }

    /** Drops what is known of `path` (North closed it: a later report starts afresh). */
    forget(path: string): void {
        this.reports.delete(path);
    }

    /** Ends every wait unanswered (the server stopped). */
    clearWaits(): void {
        for (const waiter of [...this.waiters]) {
            this.drop(waiter);
            waiter.finish(false);
        }
    }

    private store(path: string, diagnostics: LspDiagnostic[], version: number | undefined): void {
        const publishes = (this.reports.get(path)?.publishes ?? 0) + 1;
        this.reports.delete(path);
        this.reports.set(path, {
            diagnostics: diagnostics.slice(0, MAX_DIAGNOSTICS_PER_FILE),
            version,
            publishes,
        });
        if (this.reports.size > MAX_FILES_WITH_DIAGNOSTICS) {
            const oldest = this.reports.keys().next().value;
            if (oldest !== undefined) this.reports.delete(oldest);
        }
    }

    private quietFor(waiter: Waiter): void {
        clearTimeout(waiter.quietTimer);
        waiter.quietTimer = setTimeout(() => this.release(waiter), SETTLE_QUIET_MS);
    }

    private release(waiter: Waiter): void {
        this.drop(waiter);
        const report = this.reports.get(waiter.path);
        if (report) report.answered = waiter.version;
        waiter.finish(true);
    }

    private drop(waiter: Waiter): void {
        clearTimeout(waiter.quietTimer);
        this.waiters.delete(waiter);
    }
}
