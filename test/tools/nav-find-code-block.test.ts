import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFindCodeBlockTool } from "../../src/tools/find-code-block";
import {
    CSS_SOURCE,
    GO_SOURCE,
    HTML_SOURCE,
    PY_SOURCE,
    TS_SOURCE,
    type TempRepo,
    err,
    makeRepo,
    ok,
    run,
} from "./nav-fixtures";

let repo: TempRepo;
beforeEach(() => {
    repo = makeRepo();
    repo.write("src/server.ts", TS_SOURCE);
    repo.write("app/repo.py", PY_SOURCE);
    repo.write("index.html", HTML_SOURCE);
    repo.write("site.css", CSS_SOURCE);
    repo.write("server.go", GO_SOURCE);
});
afterEach(() => repo.dispose());

const tool = createFindCodeBlockTool();

async function find(path: string, query: string, kind?: string) {
    return ok(await run(tool, kind ? { path, query, kind } : { path, query }, repo.ctx));
}

describe("find_code_block", () => {
    it("returns the innermost TypeScript method holding the text, with a 5-line snippet", async () => {
        const data = await find("src/server.ts", "bad port");
        expect(data.occurrences).toBe(1);
        expect(data.matches).toEqual([
            {
                startLine: 31,
                endLine: 36,
                kind: "method",
                name: "start",
                container: "HttpServer",
                snippet: [
                    "    async start(): Promise<void> {",
                    "        if (this.options.port < 0) {",
                    '            throw new Error("bad port: }");',
                    "        }",
                    '        this.emit("started", BANNER);',
                ].join("\n"),
                matchLines: [33],
            },
        ]);
    });

    it("honours kind: class, function (nested), block", async () => {
        const cls = await find("src/server.ts", "bad port", "class");
        expect(cls.matches.map((m) => [m.kind, m.name, m.startLine, m.endLine])).toEqual([
            ["class", "HttpServer", 24, 46],
        ]);
        const fn = await find("src/server.ts", "logger?.info", "function");
        expect(fn.matches.map((m) => [m.name, m.startLine, m.endLine])).toEqual([["log", 52, 54]]);
        const block = await find("src/server.ts", "bad port", "block");
        expect(block.matches.map((m) => [m.kind, m.name, m.startLine, m.endLine])).toEqual([
            ["block", "if (this.options.port < 0)", 32, 34],
        ]);
    });

    it("groups several occurrences in one block and lists distinct blocks", async () => {
        const data = await find("src/server.ts", "handler");
        expect(data.matches.map((m) => [m.name, m.matchLines])).toEqual([
            ["HttpServer", [25]],
            ["route", [38, 39]],
            ["handle", [43, 44]],
        ]);
    });

    it("finds Python blocks by indentation and Go blocks by braces", async () => {
        const py = await find("app/repo.py", "return key");
        expect(py.matches.map((m) => [m.kind, m.name, m.startLine, m.endLine])).toEqual([
            ["function", "inner", 28, 29],
        ]);
        const method = await find("app/repo.py", "return key", "method");
        expect(method.matches.map((m) => [m.name, m.container])).toEqual([["fetch", "Repository"]]);
        const pyBlock = await find("app/repo.py", "large repository", "block");
        expect(pyBlock.matches.map((m) => [m.name, m.startLine, m.endLine])).toEqual([
            ["if repo.size > MAX_RETRIES:", 35, 36],
        ]);
        const go = await find("server.go", "listening on");
        expect(go.matches.map((m) => [m.kind, m.name, m.container])).toEqual([
            ["method", "Start", "Server"],
        ]);
    });

    it("reports the innermost HTML block once for nested sections, and embedded CSS/JS blocks", async () => {
        const nested = await find("index.html", "Loading products");
        expect(nested.matches.map((m) => [m.kind, m.name, m.startLine, m.endLine])).toEqual([
            ["section", "product-list", 27, 29],
        ]);
        const css = await find("index.html", "padding: 0");
        expect(css.matches.map((m) => [m.kind, m.name])).toEqual([["rule", ".card"]]);
        const js = await find("index.html", "Ready");
        expect(js.matches.map((m) => [m.kind, m.name])).toEqual([["function", "initApp"]]);
    });

    it("hints at find_blocks when the text is in an HTML/CSS file but in no block", async () => {
        const html = await find("index.html", "<!DOCTYPE html>");
        expect(html.matches).toEqual([]);
        expect(html.hint).toContain("find_blocks");
        const css = await find("site.css", "Site styles");
        expect(css.matches).toEqual([]);
        expect(css.hint).toMatch(/line 1 outside any rule; find_blocks/);
    });

    it("says where top-level text is when no block holds it", async () => {
        const data = await find("src/server.ts", "node:events");
        expect(data.matches).toEqual([]);
        expect(data.hint).toContain("line 1 outside any block; read_around");
    });

    it("falls back to a case-insensitive match and says so", async () => {
        const data = await find("src/server.ts", "BAD PORT");
        expect(data.caseInsensitive).toBe(true);
        expect(data.matches[0]!.name).toBe("start");
    });

    it("fails with a search_text suggestion when the text is absent", async () => {
        const e = err(await run(tool, { path: "src/server.ts", query: "no such text" }, repo.ctx));
        expect(e.code).toBe("no_match");
        expect(e.message).toContain("search_text");
    });

    it("uses brace blocks for languages without a parser", async () => {
        repo.write("main.c", 'int main(void) {\n    if (x) {\n        puts("hi");\n    }\n}\n');
        const data = await find("main.c", "puts");
        expect(data.matches.map((m) => [m.kind, m.name, m.startLine, m.endLine])).toEqual([
            ["block", "if (x)", 2, 4],
        ]);
    });
});
