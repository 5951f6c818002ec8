import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFindBlocksTool } from "../../src/tools/find-blocks";
import {
    CSHARP_SOURCE,
    CSS_SOURCE,
    HTML_SOURCE,
    JAVA_SOURCE,
    PHP_SOURCE,
    PY_SOURCE,
    TS_SOURCE,
    type TempRepo,
    UNCLOSED_HTML,
    err,
    makeRepo,
    ok,
    run,
} from "./nav-fixtures";
import { inputSchema } from "../../src/tools/tool-input";

let repo: TempRepo;
beforeEach(() => {
    repo = makeRepo();
});
afterEach(() => repo.dispose());

const tool = createFindBlocksTool();

async function blocks(rel: string, content: string, kind?: string) {
    repo.write(rel, content);
    return ok(await run(tool, kind ? { path: rel, kind } : { path: rel }, repo.ctx));
}

describe("find_blocks", () => {
    it("maps mixed HTML with the spec's ids and labels", async () => {
        const data = await blocks("index.html", HTML_SOURCE);
        expect(data.kind).toBe("all");
        expect(data.totalLines).toBe(49);
        expect(data.blocks).toEqual([
            { id: "html-0", label: "<head>", startLine: 3, endLine: 6 },
            { id: "html-1", label: "<body>", startLine: 7, endLine: 48 },
            { id: "html-2", label: '<header class="top">', startLine: 8, endLine: 12 },
            { id: "html-3", label: '<nav id="menu">', startLine: 9, endLine: 11 },
            { id: "style-0", label: "<style> (lines 13-24)", startLine: 13, endLine: 24 },
            { id: "style0-css-0", label: ".site-footer", startLine: 14, endLine: 16 },
            { id: "style0-css-1", label: "@media (max-width: 600px)", startLine: 17, endLine: 19 },
            { id: "style0-css-2", label: ".card", startLine: 18, endLine: 18 },
            { id: "style0-css-3", label: "@keyframes fadeIn", startLine: 20, endLine: 23 },
            { id: "html-4", label: "<main>", startLine: 25, endLine: 31 },
            { id: "html-5", label: '<section id="products">', startLine: 26, endLine: 30 },
            { id: "html-6", label: '<div id="product-list">', startLine: 27, endLine: 29 },
            { id: "html-7", label: '<footer class="site-footer">', startLine: 32, endLine: 34 },
            { id: "script-0", label: "<script> (lines 36-47)", startLine: 36, endLine: 47 },
            { id: "script0-js-0", label: "function initApp", startLine: 37, endLine: 40 },
            { id: "script0-js-1", label: "class Cart", startLine: 41, endLine: 45 },
            { id: "script0-js-2", label: "method Cart.add", startLine: 42, endLine: 44 },
        ]);
        expect(data.truncated).toBe(false);
    });

    it("filters HTML by kind", async () => {
        const sections = await blocks("index.html", HTML_SOURCE, "html_section");
        expect(sections.blocks.every((b) => b.id.startsWith("html-"))).toBe(true);
        const css = await blocks("index.html", HTML_SOURCE, "css_rule");
        expect(css.blocks.map((b) => b.id)).toEqual([
            "style-0",
            "style0-css-0",
            "style0-css-1",
            "style0-css-2",
            "style0-css-3",
        ]);
        const js = await blocks("index.html", HTML_SOURCE, "js_ts_symbol");
        expect(js.blocks.map((b) => b.id)).toEqual([
            "script-0",
            "script0-js-0",
            "script0-js-1",
            "script0-js-2",
        ]);
    });

    it("reports HTML with unclosed tags and says which end tags are missing", async () => {
        const data = await blocks("broken.html", UNCLOSED_HTML);
        expect(data.blocks.map((b) => `${b.label} ${b.startLine}-${b.endLine}`)).toEqual([
            "<body> 2-15",
            "<main> 3-13",
            '<section id="intro"> 4-8',
            '<section id="second"> 9-12',
            "<article> 10-12",
            "<footer> 14-15",
        ]);
        expect(data.note).toMatch(
            /Missing end tags: <body> \(line 2\), <article> \(line 10\), <footer> \(line 14\)/
        );
    });

    it("maps CSS rules, code symbols per language, and forced kinds", async () => {
        const css = await blocks("site.css", CSS_SOURCE);
        expect(css.kind).toBe("css_rule");
        expect(css.blocks.map((b) => `${b.id} ${b.label}`)).toEqual([
            "css-0 :root",
            "css-1 .card, .card--wide",
            "css-2 @media (max-width: 600px)",
            "css-3 .card",
            "css-4 .nav a:hover",
            "css-5 @keyframes fadeIn",
            "css-6 .site-footer",
        ]);
        const ts = await blocks("server.ts", TS_SOURCE);
        expect(ts.kind).toBe("js_ts_symbol");
        expect(ts.blocks.slice(5, 8)).toEqual([
            { id: "js-5", label: "class HttpServer", startLine: 24, endLine: 46 },
            { id: "js-6", label: "method HttpServer.constructor", startLine: 27, endLine: 29 },
            { id: "js-7", label: "method HttpServer.start", startLine: 31, endLine: 36 },
        ]);
        const cs = await blocks("Orders.cs", CSHARP_SOURCE);
        expect(cs.kind).toBe("csharp_symbol");
        expect(cs.blocks[3]).toEqual({
            id: "cs-3",
            label: "class OrderService",
            startLine: 11,
            endLine: 31,
        });
        const php = await blocks("UserController.php", PHP_SOURCE);
        expect(php.blocks.map((b) => b.label)).toContain("method UserController.render");
        const java = await blocks("Cart.java", JAVA_SOURCE);
        expect(java.blocks.map((b) => b.id).slice(0, 2)).toEqual(["java-0", "java-1"]);
        const py = await blocks("repo.py", PY_SOURCE);
        expect(py.kind).toBe("python_symbol");
        expect(py.blocks[1]).toEqual({
            id: "py-1",
            label: "class Repository",
            startLine: 11,
            endLine: 30,
        });
        // A PHP template: force html_section.
        const tpl = await blocks(
            "view.php",
            '<?php $x = 1; ?>\n<section id="a">\n<p>x</p>\n</section>\n',
            "html_section"
        );
        expect(tpl.blocks).toEqual([
            { id: "html-0", label: '<section id="a">', startLine: 2, endLine: 4 },
        ]);
    });

    it("explains an unknown language instead of guessing", async () => {
        repo.write("notes.xyz", "a { b }\n");
        const e = err(await run(tool, { path: "notes.xyz" }, repo.ctx));
        expect(e.code).toBe("invalid_args");
        expect(e.message).toContain("get_file_outline");
        const forced = ok(await run(tool, { path: "notes.xyz", kind: "css_rule" }, repo.ctx));
        expect(forced.blocks).toEqual([{ id: "css-0", label: "a", startLine: 1, endLine: 1 }]);
    });

    it("rejects an unknown kind at validation", () => {
        expect(
            inputSchema(tool.input).safeParse({ path: "a.ts", kind: "rust_symbol" }).success
        ).toBe(false);
    });
});
