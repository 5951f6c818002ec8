/**
 * A scripted LanguageService for the lsp tools' tests: one server whose
 * answers are functions of (method, params), recording every sync and request.
 * A request the script leaves unanswered hangs until its signal aborts.
 */
import { extname } from "node:path";
import type { ServerCapabilities } from "vscode-languageserver-protocol";
import type { LanguageService, LspServerHandle, LspServerStatus } from "../../src/tools/lsp/types";

export type Answer = (params: Record<string, unknown>) => unknown;

export interface FakeServerOptions {
    name?: string;
    root: string;
    extensions?: readonly string[];
    capabilities?: ServerCapabilities;
    /** method → answer; a throwing answer is an error reply; a missing one never answers. */
    answers?: Record<string, Answer>;
    /** The server never finishes starting: serverFor answers null once its signal aborts. */
    startHangs?: boolean;
    /** serverFor answers null (missing or disabled); status() says so. */
    unavailable?: Pick<LspServerStatus, "state"> &
        Partial<Pick<LspServerStatus, "lastError" | "command">>;
}

export interface FakeLanguageService extends LanguageService {
    handle: LspServerHandle;
    synced: string[];
    requests: Array<{ method: string; params: Record<string, unknown> }>;
    /** Resolves once `method` was requested (the call now waits on the server). */
    requested(method: string): Promise<void>;
    started: boolean;
}

export function fakeLanguageService(options: FakeServerOptions): FakeLanguageService {
    const extensions = options.extensions ?? [".ts"];
    const name = options.name ?? "typescript-language-server";
    const waiting = new Map<string, Array<() => void>>();
    const service: FakeLanguageService = {
        synced: [],
        requests: [],
        started: false,
        requested(method) {
            if (service.requests.some((r) => r.method === method)) return Promise.resolve();
            return new Promise((resolve) => {
                waiting.set(method, [...(waiting.get(method) ?? []), resolve]);
            });
        },
        handle: {
            name,
            root: options.root,
            capabilities: options.capabilities ?? {
                definitionProvider: true,
                referencesProvider: true,
                hoverProvider: true,
                renameProvider: { prepareProvider: true },
            },
            sync(path) {
                service.synced.push(path);
                return Promise.resolve();
            },
            request<R>(method: string, params: unknown, signal: AbortSignal): Promise<R> {
                const record = params as Record<string, unknown>;
                service.requests.push({ method, params: record });
                for (const resolve of waiting.get(method) ?? []) resolve();
                waiting.delete(method);
                const answer = options.answers?.[method];
                if (!answer) {
                    return new Promise((_, reject) => {
                        if (signal.aborted) reject(new Error("aborted"));
                        signal.addEventListener("abort", () => reject(new Error("aborted")), {
                            once: true,
                        });
                    });
                }
                try {
                    return Promise.resolve(answer(record) as R);
                } catch (error) {
                    return Promise.reject(error as Error);
                }
            },
        },
        status: () => [
            {
                name,
                command: options.unavailable?.command ?? `${name} --stdio`,
                extensions,
                state: options.unavailable?.state ?? (service.started ? "running" : "available"),
                restarts: 0,
                origin: "built-in",
                ...(options.unavailable?.lastError
                    ? { lastError: options.unavailable.lastError }
                    : {}),
            },
        ],
        hasServers: () => true,
        handles: (path) => !options.unavailable && extensions.includes(extname(path)),
        serverFor(path, signal) {
            if (options.startHangs) {
                return new Promise((resolve) => {
                    if (signal.aborted) resolve(null);
                    signal.addEventListener("abort", () => resolve(null), { once: true });
                });
            }
            if (options.unavailable || !extensions.includes(extname(path))) {
                return Promise.resolve(null);
            }
            service.started = true;
            return Promise.resolve(service.handle);
        },
        running: () => (service.started ? [service.handle] : []),
        diagnostics: () => Promise.resolve(null),
        dispose: () => Promise.resolve(),
    };
    return service;
}
