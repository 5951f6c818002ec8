/**
 * The real language servers on tiny projects: each starts on the first file
 * of its language, reports the error of `broken.*` and nothing for a clean
 * file. gopls 0.5 and clangd 14 (Debian) send no document versions and go
 * through the settle window. CI installs them all (.ci/run, devDependencies)
 * and never skips; elsewhere a missing gopls or clangd skips, saying so.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { findBinary } from "../../../src/tools/lsp/server-definitions";
import { createLanguageService } from "../../../src/tools/lsp/manager";
import type { LanguageService } from "../../../src/tools/lsp/types";
import { type FixtureKind, writeFixtureProject } from "./fixture-projects";

const REPO = fileURLToPath(new URL("../../..", import.meta.url));
/** North's devDependencies' servers (typescript-language-server, pyright, bash-language-server) on PATH. */
const PATH = [join(REPO, "node_modules", ".bin"), process.env.PATH ?? ""].join(delimiter);
const BUDGET_MS = 60_000;
const TEST_TIMEOUT_MS = 120_000;

function present(command: string, debianPackage: string): boolean {
    const found = findBinary(command, REPO, PATH) !== null;
    if (!found && process.env.CI)
        throw new Error(`${command} (Debian package ${debianPackage}) is required in CI`);
    if (!found)
        console.warn(
            `real-servers: ${command} not on PATH (apt-get install ${debianPackage}); skipping its tests`
        );
    return found;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
});

function serviceOn(kind: FixtureKind): {
    service: LanguageService;
    root: string;
    warnings: string[];
} {
    const root = writeFixtureProject(kind);
    const warnings: string[] = [];
    const service = createLanguageService({
        repoRoot: root,
        trusted: true,
        env: { ...process.env, PATH },
        warn: (message) => warnings.push(message),
        clientVersion: "test",
    });
    cleanups.push(async () => {
        await service.dispose();
        rmSync(root, { recursive: true, force: true });
    });
    return { service, root, warnings };
}

async function diagnosticsOf(service: LanguageService, path: string) {
    const view = await service.diagnostics([path], {
        signal: new AbortController().signal,
        budgetMs: BUDGET_MS,
    });
    if (!view) throw new Error(`no server handles ${path}`);
    return { view, diagnostics: view.byPath.get(path) ?? [] };
}

const SERVERS: Array<{
    kind: FixtureKind;
    server: string;
    clean: string;
    broken: string;
    /** The error the broken file must report (part of the message). */
    error: RegExp;
    available: () => boolean;
    /** A change to `file` that breaks `caller` (a new parameter), when the server reports dependents. */
    signatureChange?: { file: string; text: string; caller: string };
}> = [
    {
        kind: "ts",
        server: "typescript",
        clean: "main.ts",
        broken: "broken.ts",
        error: /not assignable to type 'number'/,
        available: () => true,
        signatureChange: {
            file: "greet.ts",
            text: "export function greet(name: string, times: number): string {\n    return name.repeat(times);\n}\n",
            caller: "main.ts",
        },
    },
    {
        kind: "python",
        server: "pyright",
        clean: "main.py",
        broken: "broken.py",
        error: /"int"/,
        available: () => true,
        signatureChange: {
            file: "greet.py",
            text: "def greet(name: str, times: int) -> str:\n    return name * times\n",
            caller: "main.py",
        },
    },
    {
        kind: "go",
        server: "gopls",
        clean: "main.go",
        broken: "broken/broken.go",
        error: /cannot use "three"/,
        available: () => present("gopls", "gopls"),
        signatureChange: {
            file: "greet.go",
            text: "package fixture\n\n// Greet says hello.\nfunc Greet(name string, times int) string {\n\treturn name\n}\n",
            caller: "main.go",
        },
    },
    {
        kind: "c",
        server: "clangd",
        clean: "greet.c",
        broken: "broken.c",
        error: /too many arguments/i,
        available: () => present("clangd", "clangd"),
    },
];

describe.each(SERVERS)(
    "$server on a tiny project",
    ({ kind, server, clean, broken, error, available, signatureChange }) => {
        it.skipIf(!available())(
            "reports the error of a broken file and nothing for a clean one",
            async () => {
                const { service, root, warnings } = serviceOn(kind);
                expect(service.hasServers()).toBe(true);
                expect(service.handles(join(root, broken))).toBe(true);
                expect(service.status().find((s) => s.name === server)?.state).toBe("available");

                const bad = await diagnosticsOf(service, join(root, broken));
                expect(bad.view.complete).toBe(true);
                const errors = bad.diagnostics.filter((d) => d.severity === "error");
                expect(errors.map((d) => d.message).join("\n")).toMatch(error);
                expect(errors[0]).toMatchObject({
                    path: join(root, broken),
                    line: expect.any(Number),
                    server,
                });

                const good = await diagnosticsOf(service, join(root, clean));
                expect(good.view.complete).toBe(true);
                expect(good.diagnostics.filter((d) => d.severity === "error")).toEqual([]);

                const status = service.status().find((s) => s.name === server);
                expect(status).toMatchObject({ state: "running", restarts: 0, root });
                expect(status?.pid).toEqual(expect.any(Number));
                expect(warnings).toEqual([]);
            },
            TEST_TIMEOUT_MS
        );

        if (signatureChange) {
            it.skipIf(!available())(
                "reports an open caller that a changed signature breaks",
                async () => {
                    const change = signatureChange;
                    const { service, root } = serviceOn(kind);
                    const file = join(root, change.file);
                    const caller = join(root, change.caller);
                    const before = await service.diagnostics([file, caller], {
                        signal: new AbortController().signal,
                        budgetMs: BUDGET_MS,
                    });
                    expect(
                        before?.byPath.get(caller)?.filter((d) => d.severity === "error")
                    ).toEqual([]);

                    writeFileSync(file, change.text);
                    const after = await diagnosticsOf(service, file);
                    expect(after.view.complete).toBe(true);
                    const callerErrors = (after.view.byPath.get(caller) ?? []).filter(
                        (d) => d.severity === "error"
                    );
                    expect(callerErrors).toHaveLength(1);
                    expect(after.view.text.get(caller)).toBe(readFileSync(caller, "utf8"));
                },
                TEST_TIMEOUT_MS
            );
        }
    }
);

describe("bash-language-server on a tiny project", () => {
    it(
        "answers about a shell script; edits wait for its diagnostics only when shellcheck is there",
        async () => {
            const { service, root } = serviceOn("shell");
            const script = join(root, "ok.sh");
            expect(service.handles(script)).toBe(true);
            const server = await service.serverFor(script, new AbortController().signal);
            if (!server)
                throw new Error(
                    `bash-language-server did not start: ${JSON.stringify(service.status())}`
                );
            await server.sync(script);
            const symbols = await server.request<unknown[]>(
                "textDocument/documentSymbol",
                { textDocument: { uri: pathToFileURL(script).href } },
                new AbortController().signal
            );
            expect(Array.isArray(symbols)).toBe(true);
            expect(service.running().map((handle) => handle.name)).toEqual(["bash"]);

            const shellcheck = findBinary("shellcheck", root, PATH) !== null;
            const view = await service.diagnostics([script], {
                signal: new AbortController().signal,
                budgetMs: BUDGET_MS,
            });
            expect(view === null).toBe(!shellcheck);
        },
        TEST_TIMEOUT_MS
    );
});
