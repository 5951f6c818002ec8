/**
 * The lsp tools against real language servers on tiny projects:
 * typescript-language-server (definition across files and into the library's
 * typings, references, hover, document and workspace symbols, a rename across
 * two files as a reviewed write), pyright and gopls (Debian's 0.5) definitions.
 * CI installs every server (.ci/run, devDependencies) and never skips;
 * elsewhere a missing gopls skips, saying so.
 */
import { readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HostParts, handleOp } from "../../src/agent/host/op-handlers";
import type { LanguageServerListing } from "../../src/agent/protocol";
import { listingText } from "../../src/commands/language-servers";
import { createLspRenameTool } from "../../src/tools/lsp-rename-tool";
import { createLspTool } from "../../src/tools/lsp-tool";
import { createLanguageService } from "../../src/tools/lsp/manager";
import { findBinary } from "../../src/tools/lsp/server-definitions";
import type { LanguageService } from "../../src/tools/lsp/types";
import { createToolRegistry } from "../../src/tools/registry";
import { type PreparedWrite, type ToolResult, isPreparedWrite } from "../../src/tools/types";
import { type FixtureKind, writeFixtureProject } from "./lsp/fixture-projects";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
/** North's devDependencies' servers (typescript-language-server, pyright) on PATH. */
const PATH = [join(REPO, "node_modules", ".bin"), process.env.PATH ?? ""].join(delimiter);
/** Generous: servers start cold on a machine shared with other work; no duration is asserted. */
const TEST_TIMEOUT_MS = 120_000;

interface Project {
    root: string;
    languages: LanguageService;
    run(name: string, input: Record<string, unknown>): Promise<ToolResult>;
    close(): Promise<void>;
}

function projectOf(kind: FixtureKind): Project {
    const root = realpathSync(writeFixtureProject(kind));
    const languages = createLanguageService({
        repoRoot: root,
        trusted: true,
        env: { ...process.env, PATH },
        warn: () => undefined,
        clientVersion: "test",
    });
    const deps = { languages };
    const registry = createToolRegistry([createLspTool(deps), createLspRenameTool(deps)]);
    return {
        root,
        languages,
        run: (name, input) =>
            registry.execute(name, input, { repoRoot: root, signal: new AbortController().signal }),
        async close() {
            await languages.dispose();
            rmSync(root, { recursive: true, force: true });
        },
    };
}

function data<T>(result: ToolResult): T {
    if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
    return result.data as T;
}

function present(command: string, debianPackage: string): boolean {
    const found = findBinary(command, REPO, PATH) !== null;
    if (!found && process.env.CI) {
        throw new Error(`${command} (Debian package ${debianPackage}) is required in CI`);
    }
    if (!found) {
        console.warn(
            `lsp-tool-real: ${command} not on PATH (apt-get install ${debianPackage}); skipping`
        );
    }
    return found;
}

describe("lsp tools on typescript-language-server", () => {
    let ts: Project;
    beforeAll(() => {
        ts = projectOf("ts");
        // A call into the standard library's typings, which live outside the project.
        writeFileSync(join(ts.root, "shout.ts"), 'export const loud = "north".toUpperCase();\n');
    });
    afterAll(async () => {
        await ts.close();
    });

    it(
        "finds where an imported name is declared, from the symbol's text on the line",
        async () => {
            const result = await ts.run("lsp", {
                operation: "definition",
                path: "main.ts",
                line: 3,
                symbol: "greet",
            });
            // The loaded project's answer: the declaration, not the import line a syntax-only answer gives.
            expect(data(result)).toEqual({
                definitions: [
                    {
                        path: "greet.ts",
                        line: 1,
                        column: 17,
                        text: "export function greet(name: string): string {",
                    },
                ],
            });
        },
        TEST_TIMEOUT_MS
    );

    it(
        "counts line-1 columns after a byte-order mark, as the file's editor does",
        async () => {
            writeFileSync(
                join(ts.root, "bom.ts"),
                "\uFEFFexport const base = 1;\nexport const twice = base * 2;\n"
            );
            const result = await ts.run("lsp", {
                operation: "definition",
                path: "bom.ts",
                line: 2,
                symbol: "base",
            });
            expect(data(result)).toEqual({
                definitions: [
                    { path: "bom.ts", line: 1, column: 14, text: "export const base = 1;" },
                ],
            });
        },
        TEST_TIMEOUT_MS
    );

    it(
        "names the library typings a definition leads to, without reading them",
        async () => {
            const result = data<{ definitions: Array<Record<string, unknown>> }>(
                await ts.run("lsp", {
                    operation: "definition",
                    path: "shout.ts",
                    line: 1,
                    symbol: "toUpperCase",
                })
            );
            expect(result.definitions.length).toBeGreaterThan(0);
            for (const definition of result.definitions) {
                expect(definition.outside).toBe(true);
                expect(definition.text).toBeUndefined();
                expect(definition.path).toMatch(/^\/.*lib\..*\.d\.ts$/);
            }
        },
        TEST_TIMEOUT_MS
    );

    it(
        "lists references across files with their lines",
        async () => {
            const result = data<{ total: number; references: Array<Record<string, unknown>> }>(
                await ts.run("lsp", {
                    operation: "references",
                    path: "greet.ts",
                    line: 1,
                    symbol: "greet",
                })
            );
            expect(result.references).toEqual([
                {
                    path: "greet.ts",
                    line: 1,
                    text: "export function greet(name: string): string {",
                },
                { path: "main.ts", line: 1, text: 'import { greet } from "./greet";' },
                {
                    path: "main.ts",
                    line: 3,
                    text: 'export const message: string = greet("North");',
                },
            ]);
            expect(result.total).toBe(3);
        },
        TEST_TIMEOUT_MS
    );

    it(
        "gives the type on hover, and the file's and the workspace's symbols",
        async () => {
            const hover = data<{ text: string }>(
                await ts.run("lsp", {
                    operation: "hover",
                    path: "main.ts",
                    line: 3,
                    symbol: "message",
                })
            );
            expect(hover.text).toContain("const message: string");
            const outline = await ts.run("lsp", {
                operation: "document_symbols",
                path: "greet.ts",
            });
            expect(data(outline)).toEqual({
                path: "greet.ts",
                symbols: [{ name: "greet", kind: "function", line: 1, endLine: 3 }],
            });
            const found = data<{ symbols: Array<Record<string, unknown>> }>(
                await ts.run("lsp", { operation: "workspace_symbols", query: "greet" })
            );
            expect(found.symbols).toContainEqual(
                expect.objectContaining({
                    name: "greet",
                    kind: "function",
                    path: "greet.ts",
                    line: 1,
                })
            );
        },
        TEST_TIMEOUT_MS
    );

    it(
        "/lsp then shows the server running, with its pid and root",
        () => {
            const host = { deps: { languages: ts.languages } } as unknown as HostParts;
            const listing = handleOp({ type: "lsp_servers" }, host) as LanguageServerListing;
            const text = listingText(listing);
            expect(text).toMatch(/^typescript: running · pid \d+/m);
            expect(text).toContain(`root ${ts.root}`);
            expect(text).toMatch(/Memory of all servers: [\d.]+ MB \(1 running\)/);
        },
        TEST_TIMEOUT_MS
    );

    it(
        "renames across two files as one reviewed write that, applied, changes both",
        async () => {
            const prepared = data<PreparedWrite>(
                await ts.run("lsp_rename", {
                    path: "greet.ts",
                    line: 1,
                    symbol: "greet",
                    new_name: "welcome",
                })
            );
            expect(isPreparedWrite(prepared)).toBe(true);
            expect(prepared.diffs.map((d) => d.path).sort()).toEqual(["greet.ts", "main.ts"]);
            expect(readFileSync(join(ts.root, "main.ts"), "utf8")).toContain("greet(");
            expect((await prepared.apply()).ok).toBe(true);
            expect(readFileSync(join(ts.root, "greet.ts"), "utf8")).toBe(
                "export function welcome(name: string): string {\n    return `Hello, ${name}`;\n}\n"
            );
            expect(readFileSync(join(ts.root, "main.ts"), "utf8")).toBe(
                'import { welcome } from "./greet";\n\nexport const message: string = welcome("North");\n'
            );
        },
        TEST_TIMEOUT_MS
    );
});

describe("lsp definition on pyright and gopls", () => {
    it(
        "pyright: from a call to the function in another module",
        async () => {
            const py = projectOf("python");
            try {
                const result = await py.run("lsp", {
                    operation: "definition",
                    path: "main.py",
                    line: 3,
                    symbol: "greet",
                });
                expect(data(result)).toEqual({
                    definitions: [
                        {
                            path: "greet.py",
                            line: 1,
                            column: 5,
                            text: "def greet(name: str) -> str:",
                        },
                    ],
                });
            } finally {
                await py.close();
            }
        },
        TEST_TIMEOUT_MS
    );

    it.runIf(present("gopls", "gopls"))(
        "gopls (an older version without pull diagnostics): from a call to the function in another file",
        async () => {
            const go = projectOf("go");
            try {
                const result = await go.run("lsp", {
                    operation: "definition",
                    path: "main.go",
                    line: 4,
                    symbol: "Greet",
                });
                expect(data(result)).toEqual({
                    definitions: [
                        {
                            path: "greet.go",
                            line: 4,
                            column: 6,
                            text: "func Greet(name string) string {",
                        },
                    ],
                });
            } finally {
                await go.close();
            }
        },
        TEST_TIMEOUT_MS
    );
});
