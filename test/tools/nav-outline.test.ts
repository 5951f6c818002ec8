import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGetFileOutlineTool } from "../../src/tools/get-file-outline";
import {
    CSS_SOURCE,
    HTML_SOURCE,
    PY_SOURCE,
    TS_SOURCE,
    type TempRepo,
    UNCLOSED_HTML,
    makeRepo,
    ok,
    run,
} from "./nav-fixtures";

let repo: TempRepo;
beforeEach(() => {
    repo = makeRepo();
});
afterEach(() => repo.dispose());

const tool = createGetFileOutlineTool();

async function outline(rel: string, content: string, extra: Record<string, unknown> = {}) {
    repo.write(rel, content);
    return ok(await run(tool, { path: rel, ...extra }, repo.ctx));
}

describe("get_file_outline", () => {
    it("outlines TypeScript: imports collapsed, symbols with methods, exports", async () => {
        const data = await outline("src/server.ts", TS_SOURCE);
        expect(data.mode).toBe("symbols");
        expect(data.totalLines).toBe(62);
        expect(data.outline.split("\n")).toEqual([
            "1-6 imports (3)",
            "9-12 export interface ServerOptions",
            "14-14 export type Handler",
            "16-19 export enum State",
            "21-21 const BANNER",
            "22-22 const ROUTE",
            "24-46 export class HttpServer",
            "  └─ 27-29 method constructor",
            "  └─ 31-36 method start",
            "  └─ 38-40 method route",
            "  └─ 42-45 method handle",
            "48-57 export function createServer",
            "59-59 export function isRoute",
            "61-61 export default HttpServer;",
            "62-62 export { parseConfig };",
        ]);
        const cls = data.items.find((item) => item.label === "export class HttpServer")!;
        expect(cls.children?.map((c) => c.label)).toEqual([
            "method constructor",
            "method start",
            "method route",
            "method handle",
        ]);
        expect(data.truncated).toBe(false);
    });

    it("outlines Python: imports, classes with methods, functions, main guard", async () => {
        const data = await outline("app/repo.py", PY_SOURCE);
        expect(data.outline.split("\n")).toEqual([
            "1-6 imports (3)",
            "8-8 const MAX_RETRIES",
            "11-30 class Repository",
            "  └─ 17-18 method __init__",
            "  └─ 21-22 method size",
            "  └─ 24-30 method fetch",
            "33-37 function main",
            '40-41 if __name__ == "__main__"',
        ]);
    });

    it("outlines HTML sections with embedded <style> rules and <script> symbols nested", async () => {
        const data = await outline("index.html", HTML_SOURCE);
        expect(data.mode).toBe("html");
        expect(data.outline).toContain("  └─ 13-24 <style>\n    └─ 14-16 .site-footer");
        expect(data.outline).toContain("      └─ 18-18 .card");
        expect(data.outline).toContain("    └─ 20-23 @keyframes fadeIn");
        expect(data.outline).toContain("  └─ 36-47 <script>\n    └─ 37-40 function initApp");
        expect(data.outline).toContain("    └─ 41-45 class Cart\n      └─ 42-44 method add");
        expect(data.outline).toContain('    └─ 26-30 <section id="products">');
        expect(data.outline.split("\n")[0]).toBe("3-6 <head>");
    });

    it("outlines HTML with unclosed tags with sane ranges", async () => {
        const data = await outline("broken.html", UNCLOSED_HTML);
        expect(data.outline.split("\n")).toEqual([
            "2-15 <body>",
            "  └─ 3-13 <main>",
            '    └─ 4-8 <section id="intro">',
            '    └─ 9-12 <section id="second">',
            "      └─ 10-12 <article>",
            "  └─ 14-15 <footer>",
        ]);
    });

    it("outlines CSS selectors, @media with nested rules and @keyframes", async () => {
        const data = await outline("site.css", CSS_SOURCE);
        expect(data.mode).toBe("css");
        expect(data.outline.split("\n")).toEqual([
            "2-4 :root",
            "6-10 .card, .card--wide",
            "12-19 @media (max-width: 600px)",
            "  └─ 13-15 .card",
            "  └─ 16-18 .nav a:hover",
            "21-24 @keyframes fadeIn",
            "26-28 .site-footer",
        ]);
    });

    it("falls back to 50-line chunks for a language without a parser", async () => {
        const lines = Array.from({ length: 120 }, (_, i) => `line_${i + 1} = ${i}`);
        const data = await outline("config.rb", `${lines.join("\n")}\n`);
        expect(data.mode).toBe("chunks");
        expect(data.language).toBe("Ruby");
        expect(data.items.map((i) => [i.startLine, i.endLine, i.label])).toEqual([
            [1, 50, "line_1 = 0"],
            [51, 100, "line_51 = 50"],
            [101, 120, "line_101 = 100"],
        ]);
        expect(data.note).toContain("No structure parser for Ruby");
    });

    it("caps a large outline, folds members first, and continues from startLine", async () => {
        const parts: string[] = [];
        for (let i = 0; i < 400; i++)
            parts.push(`export function f${i}(): number {\n    return ${i};\n}\n`);
        const data = await outline("big.ts", parts.join(""));
        expect(data.truncated).toBe(true);
        expect(data.items).toHaveLength(250);
        expect(data.totalItems).toBe(400);
        expect(data.nextLine).toBe(250 * 3 + 1);
        expect(data.note).toContain("startLine 751");
        const next = ok(await run(tool, { path: "big.ts", startLine: data.nextLine }, repo.ctx));
        expect(next.items[0]!.label).toBe("export function f250");
        expect(next.truncated).toBe(false);

        const cls = ["export class Big {"];
        for (let i = 0; i < 300; i++) cls.push(`    m${i}() {\n        return ${i};\n    }`);
        cls.push("}", "export const after = 1;");
        const folded = await outline("cls.ts", `${cls.join("\n")}\n`);
        expect(folded.truncated).toBe(true);
        expect(folded.items.map((i) => i.label)).toEqual([
            "export class Big",
            "export const after",
        ]);
        expect(folded.items[0]!.hiddenChildren).toBe(300);
        expect(folded.outline).toContain("(+300 nested, hidden)");
    });
});
