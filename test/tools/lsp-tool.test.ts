import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLspRenameTool } from "../../src/tools/lsp-rename-tool";
import { createLspTool } from "../../src/tools/lsp-tool";
import { createToolRegistry } from "../../src/tools/registry";
import {
    type FileChange,
    type PreparedWrite,
    type ToolContext,
    type ToolResult,
    isPreparedWrite,
} from "../../src/tools/types";
import { type FakeServerOptions, fakeLanguageService } from "../kit/scripted-language-service";

let repo: string;
beforeEach(() => {
    repo = realpathSync(mkdtempSync(join(tmpdir(), "north-lsp-tool-")));
});
afterEach(() => {
    rmSync(repo, { recursive: true, force: true });
});

function put(rel: string, text: string): string {
    const path = join(repo, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    return path;
}

const uri = (rel: string) => pathToFileURL(join(repo, rel)).href;
const range = (line: number, character: number, length = 0) => ({
    start: { line, character },
    end: { line, character: character + length },
});

const UTIL = "export function greet(name: string): string {\n    return `hi ${name}`;\n}\n";
// An emoji (two UTF-16 units, four UTF-8 bytes) before the call: columns and server characters differ.
const MAIN = 'import { greet } from "./util";\nconst s = "😀"; greet(s);\n';

function setup(options: Omit<FakeServerOptions, "root">, extra: Partial<ToolContext> = {}) {
    put("src/util.ts", UTIL);
    put("src/main.ts", MAIN);
    const languages = fakeLanguageService({ root: repo, ...options });
    const deps = { languages };
    const registry = createToolRegistry([createLspTool(deps), createLspRenameTool(deps)]);
    const controller = new AbortController();
    const ctx: ToolContext = { repoRoot: repo, signal: controller.signal, ...extra };
    const run = (name: string, input: Record<string, unknown>) =>
        registry.execute(name, input, ctx);
    return { languages, run, controller };
}

function data<T>(result: ToolResult): T {
    if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
    return result.data as T;
}

describe("lsp: navigation", () => {
    it("finds a definition across files from a symbol's text on the line, naming library paths without reading them", async () => {
        const { languages, run } = setup({
            answers: {
                "textDocument/definition": () => [
                    { uri: uri("src/util.ts"), range: range(0, 16, 5) },
                    { uri: "file:///opt/typings/lib.d.ts", range: range(4, 2, 5) },
                ],
            },
        });
        const result = await run("lsp", {
            operation: "definition",
            path: "src/main.ts",
            line: 2,
            symbol: "greet",
        });
        expect(data(result)).toEqual({
            definitions: [
                {
                    path: "src/util.ts",
                    line: 1,
                    column: 17,
                    text: "export function greet(name: string): string {",
                },
                { path: "/opt/typings/lib.d.ts", line: 5, outside: true },
            ],
        });
        // The server saw the file as on disk, and the position in UTF-16 units (the emoji is two).
        expect(languages.synced).toEqual([join(repo, "src/main.ts")]);
        expect(languages.requests[0]!.params).toEqual({
            textDocument: { uri: uri("src/main.ts") },
            position: { line: 1, character: 16 },
        });
    });

    it("counts a server's UTF-8 positions in bytes", async () => {
        const { languages, run } = setup({
            capabilities: { positionEncoding: "utf-8", hoverProvider: true },
            answers: {
                "textDocument/hover": () => ({
                    contents: {
                        kind: "markdown",
                        value: "```ts\nfunction greet(name: string): string\n```",
                    },
                }),
            },
        });
        const result = await run("lsp", {
            operation: "hover",
            path: "src/main.ts",
            line: 2,
            column: 16,
        });
        expect(data(result)).toEqual({
            text: "```ts\nfunction greet(name: string): string\n```",
        });
        expect(languages.requests[0]!.params.position).toEqual({ line: 1, character: 18 });
    });

    it("lists references project first, bounded, with the count of the rest", async () => {
        const many = Array.from({ length: 60 }, (_, i) => ({
            uri: uri("src/util.ts"),
            range: range(i % 3, 0),
        }));
        const { run } = setup({
            answers: {
                "textDocument/references": (params) => {
                    expect(params.context).toEqual({ includeDeclaration: true });
                    return [{ uri: "file:///opt/typings/lib.d.ts", range: range(0, 0) }, ...many];
                },
            },
        });
        const result = data<{ total: number; references: unknown[]; more: number }>(
            await run("lsp", {
                operation: "references",
                path: "src/util.ts",
                line: 1,
                symbol: "greet",
            })
        );
        expect(result.total).toBe(61);
        expect(result.references).toHaveLength(50);
        expect(result.more).toBe(11);
        expect(result.references[0]).toEqual({
            path: "src/util.ts",
            line: 1,
            text: "export function greet(name: string): string {",
        });
        expect(result.references.some((r) => (r as { outside?: true }).outside)).toBe(false);
    });

    it("shows no line of a file a Read rule denies, but still names it", async () => {
        const denied = join(repo, "src/util.ts");
        const { run } = setup(
            {
                answers: {
                    "textDocument/definition": () => ({
                        uri: uri("src/util.ts"),
                        range: range(0, 16),
                    }),
                },
            },
            { readDenial: (path) => (path === denied ? "Read(src/util.ts)" : undefined) }
        );
        const result = await run("lsp", {
            operation: "definition",
            path: "src/main.ts",
            line: 1,
            symbol: "greet",
        });
        expect(data(result)).toEqual({ definitions: [{ path: "src/util.ts", line: 1 }] });
    });

    it("gives a file's symbols as a tree with lines, and flat answers of older servers with their containers", async () => {
        const tree = setup({
            answers: {
                "textDocument/documentSymbol": () => [
                    {
                        name: "Greeter",
                        kind: 5,
                        range: { start: { line: 0, character: 0 }, end: { line: 9, character: 1 } },
                        selectionRange: range(0, 6, 7),
                        children: [
                            {
                                name: "greet",
                                kind: 6,
                                detail: "(name: string) => string",
                                range: {
                                    start: { line: 2, character: 4 },
                                    end: { line: 4, character: 5 },
                                },
                                selectionRange: range(2, 4, 5),
                            },
                        ],
                    },
                ],
            },
        });
        expect(
            data(await tree.run("lsp", { operation: "document_symbols", path: "src/util.ts" }))
        ).toEqual({
            path: "src/util.ts",
            symbols: [
                {
                    name: "Greeter",
                    kind: "class",
                    line: 1,
                    endLine: 10,
                    children: [
                        {
                            name: "greet",
                            kind: "method",
                            line: 3,
                            endLine: 5,
                            detail: "(name: string) => string",
                        },
                    ],
                },
            ],
        });
        const flat = setup({
            answers: {
                "textDocument/documentSymbol": () => [
                    {
                        name: "greet",
                        kind: 12,
                        containerName: "util",
                        location: { uri: uri("src/util.ts"), range: range(0, 0) },
                    },
                ],
            },
        });
        expect(
            data(await flat.run("lsp", { operation: "document_symbols", path: "src/util.ts" }))
        ).toEqual({
            path: "src/util.ts",
            symbols: [{ name: "util.greet", kind: "function", line: 1, endLine: 1 }],
        });
    });

    it("asks the running servers for workspace symbols, the project's own first", async () => {
        const { run } = setup({
            answers: {
                "workspace/symbol": (params) => [
                    {
                        name: "greet",
                        kind: 12,
                        location: { uri: "file:///opt/typings/lib.d.ts", range: range(3, 0) },
                    },
                    {
                        name: params.query as string,
                        kind: 12,
                        containerName: "util",
                        location: { uri: uri("src/util.ts"), range: range(0, 16) },
                    },
                ],
            },
        });
        const found = await run("lsp", {
            operation: "workspace_symbols",
            query: "greet",
            path: "src/main.ts",
        });
        expect(data(found)).toEqual({
            total: 2,
            symbols: [
                {
                    name: "greet",
                    kind: "function",
                    path: "src/util.ts",
                    line: 1,
                    container: "util",
                },
                {
                    name: "greet",
                    kind: "function",
                    path: "/opt/typings/lib.d.ts",
                    line: 4,
                    outside: true,
                },
            ],
        });
        // Started now: the next query needs no path.
        expect(
            data(await run("lsp", { operation: "workspace_symbols", query: "greet" }))
        ).toMatchObject({ total: 2 });
    });

    it("starts the server of the project's main language for a workspace query when none runs", async () => {
        put("scripts/a.py", "x = 1\n");
        const { run, languages } = setup({
            extensions: [".ts", ".py"],
            answers: { "workspace/symbol": () => [] },
        });
        expect(data(await run("lsp", { operation: "workspace_symbols", query: "greet" }))).toEqual({
            total: 0,
            symbols: [],
        });
        // Two .ts files against one .py file: the TypeScript server, opened on the first of them.
        expect(languages.synced).toEqual([join(repo, "src/main.ts")]);
        rmSync(join(repo, "src"), { recursive: true });
        const none = setup({ extensions: [".rs"] });
        rmSync(join(repo, "src"), { recursive: true });
        const refused = await none.run("lsp", { operation: "workspace_symbols", query: "greet" });
        expect(refused).toMatchObject({ ok: false, error: { code: "language_server_error" } });
        expect(none.languages.started).toBe(false);
    });
});

describe("lsp: positions the model names", () => {
    it("refuses a symbol that occurs twice on the line, naming the columns", async () => {
        put("src/twice.ts", "const total = add(add(1, 2), 3);\n");
        const { run } = setup({ answers: { "textDocument/hover": () => null } });
        const result = await run("lsp", {
            operation: "hover",
            path: "src/twice.ts",
            line: 1,
            symbol: "add",
        });
        expect(result).toMatchObject({ ok: false, error: { code: "ambiguous_match" } });
        expect(!result.ok && result.error.message).toContain("columns 15, 19");
    });

    it("matches whole identifiers first: `add` is not found inside `address`", async () => {
        put("src/words.ts", "const address = add(1);\n");
        const { languages, run } = setup({ answers: { "textDocument/definition": () => [] } });
        await run("lsp", { operation: "definition", path: "src/words.ts", line: 1, symbol: "add" });
        expect(languages.requests[0]!.params.position).toEqual({ line: 0, character: 16 });
    });

    it("prefers the name in code to the same name in a string: an import line names its symbol once", async () => {
        put("src/again.ts", 'import { greet } from "./greet";\nconst note = `greet ${"greet"}`;\n');
        const { languages, run } = setup({ answers: { "textDocument/definition": () => [] } });
        await run("lsp", {
            operation: "definition",
            path: "src/again.ts",
            line: 1,
            symbol: "greet",
        });
        expect(languages.requests[0]!.params.position).toEqual({ line: 0, character: 9 });
        // Only in strings: each occurrence counts.
        const twice = await run("lsp", {
            operation: "definition",
            path: "src/again.ts",
            line: 2,
            symbol: "greet",
        });
        expect(twice).toMatchObject({ ok: false, error: { code: "ambiguous_match" } });
    });

    it("points at the last name of a qualified symbol", async () => {
        put("src/call.ts", "this.store.save(item);\n");
        const { languages, run } = setup({ answers: { "textDocument/definition": () => [] } });
        await run("lsp", {
            operation: "definition",
            path: "src/call.ts",
            line: 1,
            symbol: "store.save",
        });
        expect(languages.requests[0]!.params.position).toEqual({ line: 0, character: 11 });
    });

    it("refuses a line or column past the file, a missing symbol, and a call without either", async () => {
        const { run, languages } = setup({ answers: { "textDocument/hover": () => null } });
        const base = { operation: "hover", path: "src/util.ts" };
        expect(await run("lsp", { ...base, line: 9, symbol: "x" })).toMatchObject({
            ok: false,
            error: { code: "out_of_range" },
        });
        expect(await run("lsp", { ...base, line: 1, column: 200 })).toMatchObject({
            ok: false,
            error: { code: "out_of_range" },
        });
        expect(await run("lsp", { ...base, line: 1, symbol: "nowhere" })).toMatchObject({
            ok: false,
            error: { code: "no_match" },
        });
        expect(await run("lsp", { ...base, line: 1 })).toMatchObject({
            ok: false,
            error: { code: "invalid_args" },
        });
        expect(await run("lsp", { operation: "references", path: "src/util.ts" })).toMatchObject({
            ok: false,
            error: { code: "invalid_args" },
        });
        expect(languages.requests).toEqual([]);
    });

    it("refuses a path outside the project before asking any server", async () => {
        const { run, languages } = setup({});
        const result = await run("lsp", { operation: "document_symbols", path: "../elsewhere.ts" });
        expect(result).toMatchObject({ ok: false, error: { code: "path_outside_repo" } });
        expect(languages.started).toBe(false);
    });
});

describe("lsp: servers that cannot help", () => {
    it("says a server is not installed, with the command it looked for", async () => {
        const { run } = setup({
            unavailable: { state: "missing", command: "typescript-language-server --stdio" },
        });
        const result = await run("lsp", { operation: "document_symbols", path: "src/util.ts" });
        expect(result).toMatchObject({ ok: false, error: { code: "language_server_error" } });
        expect(!result.ok && result.error.message).toContain(
            "typescript-language-server: not installed (typescript-language-server --stdio)"
        );
    });

    it("says a disabled server's last error, and that no server handles a language at all", async () => {
        put("notes.rb", "puts 1\n");
        const { run } = setup({
            unavailable: { state: "disabled", lastError: "crashed twice (exit 1)" },
        });
        const disabled = await run("lsp", { operation: "document_symbols", path: "src/util.ts" });
        expect(!disabled.ok && disabled.error.message).toContain(
            "disabled (crashed twice (exit 1))"
        );
        const ruby = await run("lsp", { operation: "document_symbols", path: "notes.rb" });
        expect(!ruby.ok && ruby.error.message).toMatch(/No language server handles \.rb files/);
    });

    it("turns an error answer into a tool error naming the server", async () => {
        const { run } = setup({
            answers: {
                "textDocument/documentSymbol": () => {
                    throw new Error("No Project.");
                },
            },
        });
        const result = await run("lsp", { operation: "document_symbols", path: "src/util.ts" });
        expect(result).toEqual({
            ok: false,
            error: {
                code: "language_server_error",
                message: "typescript-language-server: No Project.",
            },
        });
    });

    it("returns at once when the turn is cancelled while a server does not answer", async () => {
        const { run, languages, controller } = setup({});
        const pending = run("lsp", { operation: "document_symbols", path: "src/util.ts" });
        await languages.requested("textDocument/documentSymbol");
        controller.abort();
        expect(await pending).toMatchObject({ ok: false, error: { code: "cancelled" } });
    });

    it("gives up on a server that never finishes starting by the call's deadline", async () => {
        put("src/util.ts", UTIL);
        const languages = fakeLanguageService({ root: repo, startHangs: true });
        const tool = createLspTool({ languages, timeoutMs: 1 });
        const result = await tool.execute(
            { operation: "document_symbols", path: "src/util.ts" },
            { repoRoot: repo, signal: new AbortController().signal }
        );
        expect(result).toMatchObject({ ok: false, error: { code: "language_server_error" } });
        expect(!result.ok && result.error.message).toContain("did not answer");
    });

    it("gives up on a server that never answers by the call's deadline", async () => {
        put("src/util.ts", UTIL);
        const languages = fakeLanguageService({ root: repo });
        const tool = createLspTool({ languages, timeoutMs: 1 });
        const result = await tool.execute(
            { operation: "document_symbols", path: "src/util.ts" },
            { repoRoot: repo, signal: new AbortController().signal }
        );
        expect(result).toMatchObject({ ok: false, error: { code: "language_server_error" } });
        expect(!result.ok && result.error.message).toContain("did not answer");
    });
});

describe("lsp_rename", () => {
    function renameEdit(mainUri = uri("src/main.ts")) {
        return {
            documentChanges: [
                {
                    textDocument: { uri: uri("src/util.ts"), version: 1 },
                    edits: [{ range: range(0, 16, 5), newText: "welcome" }],
                },
                {
                    textDocument: { uri: mainUri, version: null },
                    edits: [
                        { range: range(1, 16, 5), newText: "welcome" },
                        { range: range(0, 9, 5), newText: "welcome" },
                    ],
                },
            ],
        };
    }

    it("prepares one reviewed write across files that, applied, renames in both and is checkpointed", async () => {
        const { run } = setup({
            answers: {
                "textDocument/prepareRename": () => ({
                    range: range(0, 16, 5),
                    placeholder: "greet",
                }),
                "textDocument/rename": (params) => {
                    expect(params.newName).toBe("welcome");
                    return renameEdit();
                },
            },
        });
        // CRLF in one file: the edits land on the same characters and the line endings stay.
        put("src/main.ts", MAIN.replace(/\n/g, "\r\n"));
        const prepared = data<PreparedWrite>(
            await run("lsp_rename", {
                path: "src/util.ts",
                line: 1,
                symbol: "greet",
                new_name: "welcome",
            })
        );
        expect(isPreparedWrite(prepared)).toBe(true);
        expect(prepared.summary).toBe("Renaming greet to welcome in 2 files");
        expect(prepared.diffs.map((d) => d.path).sort()).toEqual(["src/main.ts", "src/util.ts"]);
        // Nothing is written before the review.
        expect(readFileSync(join(repo, "src/util.ts"), "utf8")).toBe(UTIL);
        const applied = await prepared.apply();
        expect(applied.ok).toBe(true);
        expect(readFileSync(join(repo, "src/util.ts"), "utf8")).toBe(
            UTIL.replace("greet", "welcome")
        );
        expect(readFileSync(join(repo, "src/main.ts"), "utf8")).toBe(
            'import { welcome } from "./util";\r\nconst s = "😀"; welcome(s);\r\n'
        );
    });

    it("records both files' prior bytes with the checkpoint before writing", async () => {
        const records: FileChange[][] = [];
        const { run } = setup(
            {
                answers: {
                    "textDocument/prepareRename": () => range(0, 16, 5),
                    "textDocument/rename": () => renameEdit(),
                },
            },
            {
                checkpoint: {
                    record: (changes) => (
                        records.push([...changes]),
                        Promise.resolve({ ok: true })
                    ),
                },
            }
        );
        const prepared = data<PreparedWrite>(
            await run("lsp_rename", {
                path: "src/util.ts",
                line: 1,
                symbol: "greet",
                new_name: "welcome",
            })
        );
        expect(records).toEqual([]);
        expect((await prepared.apply()).ok).toBe(true);
        expect(records).toHaveLength(1);
        expect(records[0]!.map((c) => [c.relPath, c.before?.toString()]).sort()).toEqual([
            ["src/main.ts", MAIN],
            ["src/util.ts", UTIL],
        ]);
    });

    it("refuses edits outside the project and file operations, changing nothing", async () => {
        const outside = setup({
            answers: {
                "textDocument/prepareRename": () => range(0, 16, 5),
                "textDocument/rename": () => ({
                    changes: {
                        "file:///opt/typings/lib.d.ts": [
                            { range: range(0, 0, 5), newText: "welcome" },
                        ],
                    },
                }),
            },
        });
        const refused = await outside.run("lsp_rename", {
            path: "src/util.ts",
            line: 1,
            symbol: "greet",
            new_name: "welcome",
        });
        expect(refused).toMatchObject({ ok: false, error: { code: "path_outside_repo" } });
        expect(!refused.ok && refused.error.message).toContain("/opt/typings/lib.d.ts");
        const moving = setup({
            answers: {
                "textDocument/rename": () => ({
                    documentChanges: [
                        {
                            kind: "rename",
                            oldUri: uri("src/util.ts"),
                            newUri: uri("src/welcome.ts"),
                        },
                    ],
                }),
            },
            capabilities: { renameProvider: true },
        });
        const moved = await moving.run("lsp_rename", {
            path: "src/util.ts",
            line: 1,
            symbol: "greet",
            new_name: "welcome",
        });
        expect(moved).toMatchObject({ ok: false, error: { code: "invalid_args" } });
        expect(!moved.ok && moved.error.message).toContain("rename a file");
        expect(readFileSync(join(repo, "src/util.ts"), "utf8")).toBe(UTIL);
    });

    it("syncs the files from disk and asks again when the server's view was stale", async () => {
        const shifted = {
            changes: {
                [uri("src/util.ts")]: [{ range: range(0, 16, 5), newText: "welcome" }],
                [uri("src/main.ts")]: [
                    { range: range(1, 9, 5), newText: "welcome" },
                    { range: range(2, 16, 5), newText: "welcome" },
                ],
            },
        };
        let synced = false;
        const { run, languages } = setup({
            answers: {
                "textDocument/prepareRename": () => ({
                    range: range(0, 16, 5),
                    placeholder: "greet",
                }),
                // Before the sync the server still sees main.ts without its new first line.
                "textDocument/rename": () => {
                    synced = languages.synced.includes(join(repo, "src/main.ts"));
                    return synced ? shifted : renameEdit();
                },
            },
        });
        put("src/main.ts", `// a new first line\n${MAIN}`);
        const prepared = data<PreparedWrite>(
            await run("lsp_rename", {
                path: "src/util.ts",
                line: 1,
                symbol: "greet",
                new_name: "welcome",
            })
        );
        expect(synced).toBe(true);
        expect((await prepared.apply()).ok).toBe(true);
        expect(readFileSync(join(repo, "src/main.ts"), "utf8")).toBe(
            `// a new first line\n${MAIN.replace(/greet/g, "welcome")}`
        );
    });

    it("refuses, writing nothing, when the server stays stale after the sync", async () => {
        const { run } = setup({
            answers: {
                "textDocument/prepareRename": () => ({
                    range: range(0, 16, 5),
                    placeholder: "greet",
                }),
                "textDocument/rename": () => renameEdit(),
            },
        });
        put("src/main.ts", `// a new first line\n${MAIN}`);
        const stale = await run("lsp_rename", {
            path: "src/util.ts",
            line: 1,
            symbol: "greet",
            new_name: "welcome",
        });
        expect(stale).toMatchObject({ ok: false, error: { code: "file_changed" } });
        expect(readFileSync(join(repo, "src/util.ts"), "utf8")).toBe(UTIL);
    });

    it("is refused where the server cannot rename or the name does not change", async () => {
        const { run } = setup({ answers: { "textDocument/prepareRename": () => null } });
        const cannot = await run("lsp_rename", {
            path: "src/util.ts",
            line: 2,
            symbol: "return",
            new_name: "x",
        });
        expect(cannot).toMatchObject({ ok: false, error: { code: "no_match" } });
        const same = setup({
            answers: {
                "textDocument/prepareRename": () => ({
                    range: range(0, 16, 5),
                    placeholder: "greet",
                }),
            },
        });
        const unchanged = await same.run("lsp_rename", {
            path: "src/util.ts",
            line: 1,
            symbol: "greet",
            new_name: "greet",
        });
        expect(unchanged).toMatchObject({ ok: false, error: { code: "no_change" } });
        const spaced = await same.run("lsp_rename", {
            path: "src/util.ts",
            line: 1,
            symbol: "greet",
            new_name: "two words",
        });
        expect(spaced).toMatchObject({ ok: false, error: { code: "invalid_args" } });
        const plain = setup({ capabilities: { renameProvider: true } });
        const blank = await plain.run("lsp_rename", {
            path: "src/util.ts",
            line: 2,
            column: 1,
            new_name: "x",
        });
        expect(blank).toMatchObject({ ok: false, error: { code: "no_match" } });
        expect(plain.languages.requests).toEqual([]);
    });
});

describe("lsp in the transcript", () => {
    const display = createLspTool({ languages: fakeLanguageService({ root: "/repo" }) }).display!;

    it("titles a call by what it asks and lists the places found under it", () => {
        const args = { operation: "references", path: "src/util.ts", line: 1, symbol: "greet" };
        expect(display.title(args)).toBe("Finding references to greet in util.ts");
        const details = {
            total: 7,
            references: Array.from({ length: 7 }, (_, i) => ({
                path: "src/main.ts",
                line: i + 1,
                text: "greet(s);",
            })),
        };
        expect(display.resultSuffix!(details)).toBe(" - 7 references");
        expect(display.resultDetail!(details)).toEqual([
            "src/main.ts:1  greet(s);",
            "src/main.ts:2  greet(s);",
            "src/main.ts:3  greet(s);",
            "src/main.ts:4  greet(s);",
            "src/main.ts:5  greet(s);",
        ]);
        expect(display.resultDetail!(details, true)).toHaveLength(7);
    });

    it("shows a hover's text without its code fences, and workspace symbols by kind and name", () => {
        expect(
            display.resultDetail!({ text: "```ts\nfunction greet(name: string): string\n```" })
        ).toEqual(["function greet(name: string): string"]);
        expect(display.title({ operation: "workspace_symbols", query: "greet" })).toBe(
            'Searching symbols "greet"'
        );
        expect(
            display.resultDetail!({
                total: 1,
                symbols: [
                    { name: "greet", kind: "function", path: "/opt/lib.d.ts", outside: true },
                ],
            })
        ).toEqual(["/opt/lib.d.ts  function greet"]);
    });
});
