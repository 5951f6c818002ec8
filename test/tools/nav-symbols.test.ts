import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGetFileSymbolsTool } from "../../src/tools/get-file-symbols";
import {
    CSHARP_SOURCE,
    CSS_SOURCE,
    GO_SOURCE,
    HTML_SOURCE,
    JAVA_SOURCE,
    PHP_SOURCE,
    PY_SOURCE,
    RUST_SOURCE,
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
});
afterEach(() => repo.dispose());

const tool = createGetFileSymbolsTool();

async function symbols(rel: string, content: string) {
    repo.write(rel, content);
    return ok(await run(tool, { path: rel }, repo.ctx));
}

function brief(list: { name: string; kind: string; line: number; endLine: number }[]): string[] {
    return list.map((s) => `${s.kind} ${s.name} ${s.line}-${s.endLine}`);
}

describe("get_file_symbols", () => {
    it("is a read-only tool without approval", () => {
        expect(tool.name).toBe("get_file_symbols");
        expect(tool.readOnly).toBe(true);
        expect(tool.approvalPolicy).toBe("none");
        expect(tool.description).toContain("find_blocks");
    });

    it("lists TypeScript declarations, class members and ranges, ignoring braces in strings and regexes", async () => {
        const data = await symbols("src/server.ts", TS_SOURCE);
        expect(data.language).toBe("TypeScript");
        expect(data.supported).toBe(true);
        expect(brief(data.symbols)).toEqual([
            "interface ServerOptions 9-12",
            "type Handler 14-14",
            "enum State 16-19",
            "const BANNER 21-21",
            "const ROUTE 22-22",
            "class HttpServer 24-46",
            "method constructor 27-29",
            "method start 31-36",
            "method route 38-40",
            "method handle 42-45",
            "function createServer 48-57",
            "function isRoute 59-59",
        ]);
        const create = data.symbols.find((s) => s.name === "createServer")!;
        expect(create.signature).toBe(
            "export function createServer(options: ServerOptions, logger?: Logger): HttpServer"
        );
        expect(data.symbols.find((s) => s.name === "start")!.container).toBe("HttpServer");
        expect(data.truncated).toBe(false);
    });

    it("lists Python classes, methods (indentation, multi-line signatures, dedented docstrings) and functions", async () => {
        const data = await symbols("app/repo.py", PY_SOURCE);
        expect(brief(data.symbols)).toEqual([
            "const MAX_RETRIES 8-8",
            "class Repository 11-30",
            "method __init__ 17-18",
            "method size 21-22",
            "method fetch 24-30",
            "function main 33-37",
        ]);
        expect(data.symbols.find((s) => s.name === "fetch")!.signature).toBe(
            "async def fetch(self, key: str) -> Optional[Any]"
        );
    });

    it("lists Go, Rust and Java symbols", async () => {
        expect(brief((await symbols("server.go", GO_SOURCE)).symbols)).toEqual([
            "const DefaultPort 8-8",
            "struct Server 10-12",
            "interface Handler 14-16",
            "function NewServer 18-20",
            "method Start 22-26",
        ]);
        const rust = await symbols("src/lib.rs", RUST_SOURCE);
        expect(brief(rust.symbols)).toEqual([
            "const MAX 4-4",
            "struct Point 7-10",
            "enum Shape 12-15",
            "trait Area 17-19",
            "method area 18-18",
            "impl fmt::Display for Point<T> 21-26",
            "method fmt 22-25",
            "function count_words 28-34",
        ]);
        expect(brief((await symbols("Cart.java", JAVA_SOURCE)).symbols)).toEqual([
            "package com.example.shop 1-1",
            "class Cart 6-28",
            "method Cart 9-10",
            "method toString 13-15",
            "method add 17-21",
            "method copy 23-25",
            "enum Status 27-27",
        ]);
    });

    it("lists C# and PHP symbols (Allman braces, verbatim strings, hash comments)", async () => {
        expect(brief((await symbols("Orders.cs", CSHARP_SOURCE)).symbols)).toEqual([
            "namespace Shop.Orders 4-34",
            "interface IOrderService 6-9",
            "method Find 8-8",
            "class OrderService 11-31",
            "property Count 15-15",
            "method OrderService 17-19",
            "method Find 21-24",
            "method SaveAsync 26-30",
            "record Order 33-33",
        ]);
        expect(brief((await symbols("UserController.php", PHP_SOURCE)).symbols)).toEqual([
            "namespace App\\Http 3-3",
            "interface Renderable 7-10",
            "method render 9-9",
            "class UserController 12-26",
            "method __construct 16-19",
            "method render 21-25",
            "function helper 28-31",
        ]);
    });

    it("names anonymous default exports and assigned functions in older JavaScript", async () => {
        const js = [
            "export default function () {",
            "    return 1;",
            "}",
            "Widget.prototype.render = function (el) {",
            "    el.textContent = '}';",
            "};",
            "exports.load = async (path) => read(path);",
        ].join("\n");
        expect(brief((await symbols("legacy.js", js)).symbols)).toEqual([
            "function default 1-3",
            "function Widget.prototype.render 4-6",
            "function exports.load 7-7",
        ]);
    });

    it("redirects HTML and CSS to find_blocks", async () => {
        for (const [rel, content] of [
            ["index.html", HTML_SOURCE],
            ["site.css", CSS_SOURCE],
        ] as const) {
            const data = await symbols(rel, content);
            expect(data.supported).toBe(false);
            expect(data.symbols).toEqual([]);
            expect(data.hint).toContain("find_blocks");
        }
    });

    it("says plainly when the language is not supported and points to get_file_outline", async () => {
        const ruby = await symbols("lib/app.rb", "class App\n  def run\n  end\nend\n");
        expect(ruby).toMatchObject({ language: "Ruby", supported: false, symbols: [] });
        expect(ruby.hint).toMatch(/does not support Ruby.*get_file_outline/);
        const unknown = await symbols("data.xyz", "some text\n");
        expect(unknown).toMatchObject({ language: "unknown", supported: false });
        expect(unknown.hint).toContain("get_file_outline");
    });

    it("fails clearly on missing files, directories, paths outside the repo and binaries", async () => {
        expect(err(await run(tool, { path: "nope.ts" }, repo.ctx)).code).toBe("not_found");
        repo.write("dir/a.ts", "export const a = 1;\n");
        expect(err(await run(tool, { path: "dir" }, repo.ctx)).code).toBe("not_a_file");
        expect(err(await run(tool, { path: "../etc/passwd" }, repo.ctx)).code).toBe(
            "path_outside_repo"
        );
        repo.write("img.ts", Buffer.from([0x47, 0x00, 0x01, 0x02]));
        expect(err(await run(tool, { path: "img.ts" }, repo.ctx)).code).toBe("binary_file");
    });
});
