/**
 * The real language servers on tiny projects: each starts on the first file
 * of its language, reports the error of `broken.*` and nothing for a clean
 * file. gopls 0.5 and clangd 14 (Debian) send no document versions and go
 * through the settle window. CI installs them all (.ci/run, devDependencies)
 * and never skips; elsewhere a missing gopls or clangd skips, saying so.
 */
import { rmSync } from "node:fs";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
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
}> = [
    {
        kind: "ts",
        server: "typescript",
        clean: "main.ts",
        broken: "broken.ts",
        error: /not assignable to type 'number'/,
        available: () => true,
    },
    {
        kind: "python",
        server: "pyright",
        clean: "main.py",
        broken: "broken.py",
        error: /"int"/,
        available: () => true,
    },
    {
        kind: "go",
        server: "gopls",
        clean: "main.go",
        broken: "broken/broken.go",
        error: /cannot use "three"/,
        available: () => present("gopls", "gopls"),
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
    ({ kind, server, clean, broken, error, available }) => {
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
    }
);
