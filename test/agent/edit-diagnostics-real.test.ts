/**
 * Edit diagnostics with real language servers: typescript-language-server
 * and pyright (North's devDependencies, never skipped), gopls and clangd
 * (Debian; required in CI). An edit that breaks a type reports that error
 * and nothing else, an edit that breaks nothing reports nothing, and a
 * changed signature reports its caller.
 */
import { readFileSync, rmSync } from "node:fs";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createNoStandingApprovals } from "../../src/agent/approvals";
import { type DiagnosticsNote, EditDiagnostics } from "../../src/agent/edit-diagnostics";
import type { EngineEvent } from "../../src/agent/events";
import { executeToolCall } from "../../src/agent/tool-executor";
import type { ToolCallBlock } from "../../src/providers/types";
import { silentLogger } from "../../src/storage/logger";
import { createEditTools, createToolRegistry } from "../../src/tools/index";
import { createLanguageService } from "../../src/tools/lsp/manager";
import { findBinary } from "../../src/tools/lsp/server-definitions";
import type { LanguageService } from "../../src/tools/lsp/types";
import { type FixtureKind, writeFixtureProject } from "../tools/lsp/fixture-projects";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const PATH = [join(REPO, "node_modules", ".bin"), process.env.PATH ?? ""].join(delimiter);
/** Generous: the machine is shared; a pending answer would fail the test, not hang it. */
const BUDGET_MS = 60_000;
const TEST_TIMEOUT_MS = 180_000;

/** gopls and clangd come from Debian: required in CI, skipped elsewhere with the package named. */
function present(command: string, debianPackage: string): boolean {
    const found = findBinary(command, REPO, PATH) !== null;
    if (!found && process.env.CI) {
        throw new Error(`${command} (Debian package ${debianPackage}) is required in CI`);
    }
    if (!found) console.warn(`${command} not found (apt-get install ${debianPackage}); skipping`);
    return found;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
});

interface Project {
    root: string;
    edit(name: string, input: Record<string, unknown>): Promise<DiagnosticsNote | undefined>;
    events: EngineEvent[];
}

function project(kind: FixtureKind): Project {
    const root = writeFixtureProject(kind);
    const languages: LanguageService = createLanguageService({
        repoRoot: root,
        trusted: true,
        env: { ...process.env, PATH },
        warn: () => undefined,
        clientVersion: "test",
    });
    cleanups.push(async () => {
        await languages.dispose();
        rmSync(root, { recursive: true, force: true });
    });
    const diagnostics = new EditDiagnostics(languages, root, BUDGET_MS);
    const tools = createToolRegistry(createEditTools());
    const events: EngineEvent[] = [];
    let id = 0;
    return {
        root,
        events,
        async edit(name, input) {
            const block: ToolCallBlock = {
                type: "tool_call",
                id: `c${++id}`,
                name,
                input,
                rawInput: JSON.stringify(input),
            };
            const result = await executeToolCall(
                block,
                new Set(tools.list().map((t) => t.name)),
                new AbortController().signal,
                {
                    tools,
                    approver: async () => ({ outcome: "deny", reason: "auto-accepted" }),
                    settings: { ...createNoStandingApprovals(), isEditsAutoAccepted: () => true },
                    repoRoot: root,
                    logger: silentLogger,
                    emit: (event) => events.push(event),
                    editDiagnostics: diagnostics,
                }
            );
            if (!result.ok) throw new Error(result.error.message);
            return (result.data as { diagnostics?: DiagnosticsNote }).diagnostics;
        },
    };
}

describe("edit diagnostics with typescript-language-server", () => {
    it(
        "reports the type error an edit introduced, nothing for a harmless one, and a broken caller",
        async () => {
            const ts = project("ts");
            const harmless = await ts.edit("edit_replace_exact", {
                path: "main.ts",
                old_text: "export const message",
                new_text: "// The greeting North shows.\nexport const message",
            });
            expect(harmless).toEqual({ summary: "no new errors or warnings" });

            const broken = await ts.edit("edit_replace_exact", {
                path: "main.ts",
                old_text: 'greet("North");',
                new_text: 'greet("North");\nexport const width: number = message;',
            });
            expect(broken?.summary).toBe("1 error introduced by this edit");
            expect(broken?.introduced).toEqual([
                expect.stringMatching(
                    /^main\.ts:5:14 error Type 'string' is not assignable to type 'number'\. \(typescript 2322\)$/
                ),
            ]);

            // The caller (main.ts, open since its edits) breaks when greet's parameter changes.
            const signature = await ts.edit("edit_replace_exact", {
                path: "greet.ts",
                old_text: "greet(name: string)",
                new_text: "greet(name: number)",
            });
            expect(signature?.introduced).toEqual([
                "main.ts:4:38 error Argument of type 'string' is not assignable to parameter of type 'number'. (typescript 2345)",
            ]);
            expect(readFileSync(join(ts.root, "greet.ts"), "utf8")).toContain("name: number");
        },
        TEST_TIMEOUT_MS
    );
});

describe("edit diagnostics with pyright", () => {
    it(
        "reports the type error an edit introduced and what a later edit fixed",
        async () => {
            const py = project("python");
            const broken = await py.edit("edit_replace_exact", {
                path: "main.py",
                old_text: 'message: str = greet("North")',
                new_text: 'message: str = greet("North")\ncount: int = message',
            });
            expect(broken?.summary).toBe("1 error introduced by this edit");
            expect(broken?.introduced?.[0]).toMatch(/^main\.py:4:14 error .*"str".*"int"/);

            const fixed = await py.edit("edit_replace_exact", {
                path: "main.py",
                old_text: "count: int = message",
                new_text: "count: int = len(message)",
            });
            expect(fixed).toEqual({ summary: "no new errors or warnings; 1 fixed" });
        },
        TEST_TIMEOUT_MS
    );
});

/** Servers without document versions (Debian's gopls 0.5, clangd 14): the settle-window path. */
describe.each([
    {
        server: "gopls",
        kind: "go" as const,
        available: () => present("gopls", "gopls"),
        harmless: {
            path: "main.go",
            old_text: "var Message",
            new_text: "// Message, once more.\nvar Message",
        },
        broken: {
            path: "main.go",
            old_text: 'Greet("North")',
            new_text: 'Greet("North")\n\n// Count is wrong.\nvar Count int = Message',
        },
        error: /^main\.go:8:\d+ error .*Message.*int/,
    },
    {
        server: "clangd",
        kind: "c" as const,
        available: () => present("clangd", "clangd"),
        harmless: {
            path: "greet.c",
            old_text: "int add(",
            new_text: "/* Adds. */\nint add(",
        },
        broken: {
            path: "greet.c",
            old_text: "return a + b; }",
            new_text: "return a + b; }\n\nint one(void) { return add(1); }",
        },
        error: /^greet\.c:6:\d+ error Too few arguments/i,
    },
])("edit diagnostics with $server", ({ kind, available, harmless, broken, error }) => {
    it.skipIf(!available())(
        "reports nothing for a harmless edit and the error of a breaking one",
        async () => {
            const fixture = project(kind);
            expect(await fixture.edit("edit_replace_exact", harmless)).toEqual({
                summary: "no new errors or warnings",
            });
            const note = await fixture.edit("edit_replace_exact", broken);
            expect(note?.summary).toBe("1 error introduced by this edit");
            expect(note?.introduced?.[0]).toMatch(error);
        },
        TEST_TIMEOUT_MS
    );
});
