import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createToolRegistry } from "../../src/tools/registry";
import { findRipgrep } from "../../src/tools/search-ripgrep";
import {
    MAX_SEARCH_FILE_BYTES,
    type SearchTextInput,
    type SearchTextResult,
    createSearchTextTool,
} from "../../src/tools/search-text";
import { type TempRepo, expectError, expectOk, makeOutsideDir, makeRepo } from "./fixtures";

const rgPath = await findRipgrep();
// CI installs ripgrep (.ci/run); elsewhere the comparison tests skip, saying why.
if (process.env.CI && !rgPath)
    throw new Error("ripgrep (Debian package ripgrep) is required in CI");
if (!rgPath)
    console.warn(
        "search-text: ripgrep not on PATH (apt-get install ripgrep); skipping rg comparisons"
    );
const engines = [
    { name: "js", tool: createSearchTextTool({ ripgrepPath: null }) },
    ...(rgPath ? [{ name: "ripgrep", tool: createSearchTextTool({ ripgrepPath: rgPath }) }] : []),
];

function args(query: string, extra: Partial<SearchTextInput> = {}): SearchTextInput {
    return { query, regex: false, caseSensitive: false, limit: 50, ...extra };
}

describe.each(engines)("search_text ($name engine)", ({ name, tool }) => {
    let repo: TempRepo;
    beforeAll(async () => {
        repo = await makeRepo({
            ".gitignore": "dist/\n*.log\n",
            "src/app.ts":
                "import { retry } from './retry';\nexport const App = 1;\n// TODO: fix retry\n",
            "src/retry.ts":
                "export function retry(n: number) {\n    return n + 1; // Retry once\n}\n",
            "src/deep/nested/x.ts": "const RETRY_LIMIT = 3;\n",
            "docs/notes.md": "Café au lait\nnaïve résumé\n日本語のテキスト retry\n",
            "dist/bundle.js": "retry();\n",
            "debug.log": "retry\n",
            "bin/data.bin": Buffer.concat([Buffer.from("retry\0\0\0"), Buffer.from("retry")]),
            "latin1.txt": Buffer.from("caf\xe9 retry\n", "latin1"),
            "crlf.txt": "alpha retry\r\nbeta\r\n",
            "long.min.js": `${"a".repeat(5000)}retry${"b".repeat(5000)}\n`,
            "ctx/ten.ts": "a\nb\nhit one\nc\nhit two\nd\ne\nf\ng\nhit three\n",
            "ctx/crlf.ts": "  one\r\nhit\r\n\ttwo  \r\n",
            // Minified: one 1 MB line; and a short match between two 1 MB lines.
            "ctx/one-line.min.js": `${"m".repeat(500_000)}needle${"n".repeat(500_000)}`,
            "ctx/sandwich.min.js": `${"p".repeat(1_000_000)}\nneedle\n  ${"q".repeat(1_000_000)}\n`,
        });
    });
    afterAll(() => repo.cleanup());

    it(`uses the ${name} engine`, async () => {
        expect(expectOk(await tool.execute(args("retry"), repo.ctx())).engine).toBe(name);
    });

    it("finds literal text case-insensitively by default, sorted by path then line, skipping ignored and binary files", async () => {
        const result = expectOk(await tool.execute(args("retry"), repo.ctx()));
        expect(result.matches.map((m) => `${m.path}:${m.line}`)).toEqual([
            "crlf.txt:1",
            "docs/notes.md:3",
            "latin1.txt:1",
            "long.min.js:1",
            "src/app.ts:1",
            "src/app.ts:3",
            "src/deep/nested/x.ts:1",
            "src/retry.ts:1",
            "src/retry.ts:2",
        ]);
        expect(result).toMatchObject({ totalMatches: 9, truncated: false });
        expect(result.matches[0]!.text).toBe("alpha retry");
        expect(result.matches[2]!.text).toBe("caf\uFFFD retry");
        expect(result.matches.find((m) => m.path === "src/retry.ts" && m.line === 2)!.text).toBe(
            "return n + 1; // Retry once"
        );
    });

    it("windows long lines around the match", async () => {
        const result = expectOk(
            await tool.execute(args("retry", { path: "long.min.js" }), repo.ctx())
        );
        const text = result.matches[0]!.text;
        expect(text.length).toBeLessThanOrEqual(302);
        expect(text).toMatch(/^…a+retryb+…$/);
    });

    it("honours caseSensitive, regex and unicode", async () => {
        const sensitive = expectOk(
            await tool.execute(args("Retry", { caseSensitive: true }), repo.ctx())
        );
        expect(sensitive.matches.map((m) => m.path)).toEqual(["src/retry.ts"]);
        const regex = expectOk(
            await tool.execute(args("^export (const|function) \\w+", { regex: true }), repo.ctx())
        );
        expect(regex.matches.map((m) => `${m.path}:${m.line}`)).toEqual([
            "src/app.ts:2",
            "src/retry.ts:1",
        ]);
        const unicode = expectOk(await tool.execute(args("CAFÉ"), repo.ctx()));
        expect(unicode.matches.map((m) => m.path)).toEqual(["docs/notes.md"]);
        const cjk = expectOk(await tool.execute(args("日本語"), repo.ctx()));
        expect(cjk.totalMatches).toBe(1);
    });

    it("scopes to a directory or a file", async () => {
        const dir = expectOk(await tool.execute(args("retry", { path: "src/deep" }), repo.ctx()));
        expect(dir.matches.map((m) => m.path)).toEqual(["src/deep/nested/x.ts"]);
        const file = expectOk(
            await tool.execute(args("retry", { path: "./src/app.ts" }), repo.ctx())
        );
        expect(file.matches.map((m) => m.line)).toEqual([1, 3]);
        // An explicitly named ignored directory is searched.
        const ignored = expectOk(await tool.execute(args("retry", { path: "dist" }), repo.ctx()));
        expect(ignored.matches.map((m) => m.path)).toEqual(["dist/bundle.js"]);
    });

    it("limits matches and flags truncation", async () => {
        const result = expectOk(await tool.execute(args("retry", { limit: 3 }), repo.ctx()));
        expect(result.matches.map((m) => m.path)).toEqual([
            "crlf.txt",
            "docs/notes.md",
            "latin1.txt",
        ]);
        expect(result).toMatchObject({ totalMatches: 9, truncated: true });
        expect(result.note).toMatch(/3 of 9/);
    });

    it("returns clear errors", async () => {
        const invalid = expectError(await tool.execute(args("foo(", { regex: true }), repo.ctx()));
        expect(invalid.code).toBe("invalid_regex");
        expect(invalid.message).toMatch(/Invalid regular expression.*regex: false/);
        expect(expectError(await tool.execute(args("x", { path: "../.." }), repo.ctx())).code).toBe(
            "path_outside_repo"
        );
        expect(expectError(await tool.execute(args("x", { path: "nope" }), repo.ctx())).code).toBe(
            "not_found"
        );
        expect(
            expectError(await tool.execute(args("retry", { path: "bin/data.bin" }), repo.ctx()))
                .code
        ).toBe("binary_file");
        expect(expectError(await tool.execute(args("a\nb"), repo.ctx())).code).toBe("invalid_args");
        const controller = new AbortController();
        controller.abort();
        expect(
            expectError(await tool.execute(args("retry"), repo.ctx(controller.signal))).code
        ).toBe("cancelled");
    });

    it("searches one file, optionally within a line range", async () => {
        const file = expectOk(
            await tool.execute(args("retry", { file: "src/app.ts" }), repo.ctx())
        );
        expect(file.matches.map((m) => m.line)).toEqual([1, 3]);
        expect(file.engine).toBe("js");
        // path "." is the default scope, so it does not clash with file.
        const dot = expectOk(
            await tool.execute(args("retry", { file: "src/app.ts", path: "." }), repo.ctx())
        );
        expect(dot.matches).toEqual(file.matches);
        const range = expectOk(
            await tool.execute(
                args("hit", { file: "ctx/ten.ts", lineRange: { start: 4, end: 9 } }),
                repo.ctx()
            )
        );
        expect(range.matches.map((m) => m.line)).toEqual([5]);
        expect(range).toMatchObject({ totalMatches: 1, truncated: false });
        const edges = expectOk(
            await tool.execute(
                args("hit", { file: "ctx/ten.ts", lineRange: { start: 3, end: 10 } }),
                repo.ctx()
            )
        );
        expect(edges.matches.map((m) => m.line)).toEqual([3, 5, 10]);
        // An end past the last line is clamped; a path naming a file takes lineRange too.
        const clamped = expectOk(
            await tool.execute(
                args("hit", { path: "ctx/ten.ts", lineRange: { start: 6, end: 500 } }),
                repo.ctx()
            )
        );
        expect(clamped.matches.map((m) => m.line)).toEqual([10]);
        expect(clamped.note).toBeUndefined();
        const past = expectOk(
            await tool.execute(
                args("hit", { file: "ctx/ten.ts", lineRange: { start: 11, end: 20 } }),
                repo.ctx()
            )
        );
        expect(past).toMatchObject({ matches: [], totalMatches: 0, truncated: false });
        expect(past.note).toMatch(/lineRange.start 11 is past the end: ctx\/ten.ts has 10 lines/);
        const limited = expectOk(
            await tool.execute(
                args("hit", { file: "ctx/ten.ts", lineRange: { start: 1, end: 10 }, limit: 1 }),
                repo.ctx()
            )
        );
        expect(limited).toMatchObject({ totalMatches: 3, truncated: true });
    });

    it("rejects bad file, lineRange and contextLines values", async () => {
        const dir = expectError(await tool.execute(args("retry", { file: "src" }), repo.ctx()));
        expect(dir.code).toBe("not_a_file");
        const both = expectError(
            await tool.execute(args("retry", { file: "src/app.ts", path: "src" }), repo.ctx())
        );
        expect(both).toMatchObject({ code: "invalid_args" });
        expect(both.message).toMatch(/file or path, not both/);
        const reversed = expectError(
            await tool.execute(
                args("hit", { file: "ctx/ten.ts", lineRange: { start: 5, end: 2 } }),
                repo.ctx()
            )
        );
        expect(reversed.code).toBe("invalid_args");
        expect(reversed.message).toMatch(/lineRange.end \(2\) is before lineRange.start \(5\)/);
        const noFile = expectError(
            await tool.execute(args("hit", { lineRange: { start: 1, end: 5 } }), repo.ctx())
        );
        expect(noFile.code).toBe("invalid_args");
        expect(noFile.message).toMatch(/lineRange needs file/);
        const dirRange = expectError(
            await tool.execute(
                args("hit", { path: "ctx", lineRange: { start: 1, end: 5 } }),
                repo.ctx()
            )
        );
        expect(dirRange.code).toBe("invalid_args");
        expect(
            expectError(await tool.execute(args("x", { file: "nope.ts" }), repo.ctx())).code
        ).toBe("not_found");
        // Schema bounds are checked by the registry before execute.
        const registry = createToolRegistry([tool]);
        for (const bad of [
            { contextLines: 0 },
            { contextLines: 6 },
            { contextLines: 1.5 },
            { lineRange: { start: 0, end: 3 } },
            { lineRange: { start: 2 } },
        ]) {
            const error = expectError(
                await registry.execute(
                    "search_text",
                    { query: "hit", file: "ctx/ten.ts", ...bad },
                    repo.ctx()
                )
            );
            expect(error.code, JSON.stringify(bad)).toBe("invalid_args");
        }
    });

    it("adds context lines, each shown once when matches are close", async () => {
        const result = expectOk(
            await tool.execute(args("hit", { path: "ctx", contextLines: 2 }), repo.ctx())
        );
        expect(result.matches).toEqual([
            { path: "ctx/crlf.ts", line: 2, text: "hit", before: ["one"], after: ["two"] },
            { path: "ctx/ten.ts", line: 3, text: "hit one", before: ["a", "b"], after: ["c"] },
            { path: "ctx/ten.ts", line: 5, text: "hit two", before: [], after: ["d", "e"] },
            { path: "ctx/ten.ts", line: 10, text: "hit three", before: ["f", "g"], after: [] },
        ]);
        const one = expectOk(
            await tool.execute(
                args("hit", {
                    file: "ctx/ten.ts",
                    lineRange: { start: 4, end: 6 },
                    contextLines: 5,
                }),
                repo.ctx()
            )
        );
        // Context may reach outside lineRange; only matches are limited to it.
        expect(one.matches).toEqual([
            {
                path: "ctx/ten.ts",
                line: 5,
                text: "hit two",
                before: ["a", "b", "hit one", "c"],
                after: ["d", "e", "f", "g", "hit three"],
            },
        ]);
        const plain = expectOk(await tool.execute(args("hit", { path: "ctx" }), repo.ctx()));
        expect(plain.matches[0]).not.toHaveProperty("before");
    });

    it("cuts minified lines in matches and context to ~300 characters", async () => {
        const single = expectOk(
            await tool.execute(
                args("needle", { file: "ctx/one-line.min.js", contextLines: 3 }),
                repo.ctx()
            )
        );
        expect(single.matches).toHaveLength(1);
        expect(single.matches[0]).toMatchObject({ line: 1, before: [], after: [] });
        expect(single.matches[0]!.text.length).toBeLessThanOrEqual(302);
        const both = expectOk(
            await tool.execute(args("needle", { path: "ctx", contextLines: 1 }), repo.ctx())
        );
        expect(both.matches.map((m) => `${m.path}:${m.line}`)).toEqual([
            "ctx/one-line.min.js:1",
            "ctx/sandwich.min.js:2",
        ]);
        expect(both.matches[1]).toEqual({
            path: "ctx/sandwich.min.js",
            line: 2,
            text: "needle",
            before: [`${"p".repeat(300)}…`],
            after: [`${"q".repeat(300)}…`],
        });
    });

    it("finds nothing in an empty repository", async () => {
        const empty = await makeRepo();
        try {
            const result = expectOk(await tool.execute(args("anything"), empty.ctx()));
            expect(result).toMatchObject({ matches: [], totalMatches: 0, truncated: false });
        } finally {
            await empty.cleanup();
        }
    });
});

describe("search_text engines agree", () => {
    let repo: TempRepo;
    let outside: { dir: string; cleanup: () => Promise<void> };
    beforeAll(async () => {
        outside = await makeOutsideDir();
        await fs.writeFile(path.join(outside.dir, "secret.ts"), "const token = 1;\n");
        const many = Array.from(
            { length: 120 },
            (_, i) => `const token${i} = ${i}; // Token ${i}`
        ).join("\n");
        repo = await makeRepo({
            ".gitignore": "*.log\nbuild/\n/generated/\n!keep.log\n",
            ".ignore": "!build/\n",
            ".git/info/exclude": "excluded.ts\n",
            ".git/HEAD": "token\n",
            ".env": "TOKEN=abc\n",
            ".hidden/dot.ts": "let token = 'hidden';\n",
            "excluded.ts": "token\n",
            "a.log": "token\n",
            "keep.log": "token kept\n",
            "build/out.js": "token();\n",
            "generated/g.ts": "token\n",
            "src/generated/g.ts": "token here\n",
            "src/many.ts": `${many}\n`,
            "src/.gitignore": "*.tmp\n!important.tmp\n",
            "src/x.tmp": "token\n",
            "src/important.tmp": "token important\n",
            "src/sub/.gitignore": "!*.log\n",
            "src/sub/debug.log": "token in sub log\n",
            "vendor/lib/.git/HEAD": "",
            "vendor/lib/v.log": "token in nested repo\n",
            "node_modules/dep/index.js": "token\n",
            "a/__pycache__/m.pyc": "token\n",
            "unicode/ünïcödé.txt":
                "Ünïcödé TOKEN ñ\nΣίσυφος token\nemoji 😀 token 😀\nKelvin \u212A token\n",
            "unicode/ß.txt": "STRASSE straße token\n",
            "bin/nul-start.bin": Buffer.from("token\0token\n"),
            "bin/nul-late.txt": Buffer.concat([
                Buffer.from("token early\n".repeat(20_000)),
                Buffer.from([0]),
                Buffer.from("token late\n"),
            ]),
            "enc/latin1.txt": Buffer.from("caf\xe9 token\nna\xefve\n", "latin1"),
            "enc/bom.txt": "\uFEFFtoken with bom\n",
            "enc/utf16.txt": Buffer.from("\uFEFFtoken utf16\n", "utf16le"),
            "crlf.txt": "token\r\nTOKEN\r\nend token\r\n",
            "lines/long.js": `${"x".repeat(70_000)} token ${"y".repeat(70_000)}\n${"z".repeat(400)}token\n`,
            // JSON lines longer than the parser's 256 KB head: text, submatches, escapes.
            "lines/huge.js": `${"q".repeat(400_000)} token\ntoken after huge\n`,
            "lines/many.txt": `${"token ".repeat(50_000)}\nafter many token\n`,
            "lines/ctrl.txt": `${"\u0001".repeat(60_000)}token ctrl\ntoken after ctrl\n`,
            "lines/no-newline.txt": "last token",
            "lines/empty.txt": "",
            "lines/blank.txt": "\n\n\ntoken\n\n",
            "with space/file name.ts": "token\n",
            "a-b.ts": "token\n",
            "a/b.ts": "token\n",
            "B.ts": "Token\n",
        });
        await fs.writeFile(
            path.join(repo.root, "big.txt"),
            Buffer.alloc(MAX_SEARCH_FILE_BYTES + 1, "token\n")
        );
        await fs.symlink(outside.dir, path.join(repo.root, "out-link"));
        await fs.symlink(path.join(repo.root, "src"), path.join(repo.root, "src-link"));
        await fs.symlink(
            path.join(repo.root, "src", "many.ts"),
            path.join(repo.root, "many-link.ts")
        );
    });
    afterAll(async () => {
        await repo.cleanup();
        await outside.cleanup();
    });

    const queries: Array<[string, Partial<SearchTextInput>]> = [
        ["token", {}],
        ["token", { caseSensitive: true }],
        ["TOKEN", { caseSensitive: true }],
        ["token", { limit: 7 }],
        ["token", { limit: 200 }],
        ["token", { path: "src" }],
        ["token", { path: "src/sub" }],
        ["token", { path: "vendor/lib" }],
        ["token", { path: "unicode" }],
        ["token\\d+ = \\d{2};", { regex: true }],
        ["^\\s*const \\w+", { regex: true }],
        ["^token", { regex: true }],
        ["caf.\\s", { regex: true }],
        ["token$", { regex: true }],
        ["token.$", { regex: true }],
        ["^$", { regex: true }],
        ["\\btoken\\b", { regex: true, caseSensitive: true }],
        ["[^\\x00-\\x7f]", { regex: true }],
        ["ünïcödé|σίσυφος", { regex: true }],
        ["STRASSE", {}],
        ["k", { caseSensitive: false, path: "unicode" }],
        ["\\u00e9|ñ", { regex: true }],
        ["😀.token", { regex: true }],
        ["(?i)TOKEN \\d+", { regex: true }],
        ["token(?= here)", { regex: true }],
        ["t[aeiou]k\\w{2}\\s", { regex: true }],
        ["a\\.b|\\/|\\-", { regex: true }],
        ["x*", { regex: true, limit: 10 }],
        [" token ", {}],
        ["kept", {}],
        ["token", { contextLines: 2 }],
        ["token", { contextLines: 5, limit: 200 }],
        ["token", { contextLines: 1, path: "lines" }],
        ["token", { contextLines: 3, path: "enc", caseSensitive: true }],
        ["^$", { regex: true, contextLines: 1 }],
        ["token", { file: "crlf.txt", contextLines: 1 }],
        ["token", { file: "src/many.ts", lineRange: { start: 10, end: 20 }, contextLines: 3 }],
        ["token", { file: "lines/huge.js", contextLines: 1 }],
        ["token", { file: "src/many.ts", lineRange: { start: 500, end: 600 } }],
    ];

    it.skipIf(!rgPath).each(queries)("%s %o gives identical results", async (query, extra) => {
        const js = createSearchTextTool({ ripgrepPath: null });
        const rg = createSearchTextTool({ ripgrepPath: rgPath });
        const a = expectOk(await js.execute(args(query, extra), repo.ctx()));
        const b = expectOk(await rg.execute(args(query, extra), repo.ctx()));
        const strip = ({ engine: _engine, ...rest }: SearchTextResult) => rest;
        expect(strip(b)).toEqual(strip(a));
        expect(a.engine).toBe("js");
    });

    it.skipIf(!rgPath)(
        "really runs ripgrep for translatable queries, and JS for lookaround",
        async () => {
            const rg = createSearchTextTool({ ripgrepPath: rgPath });
            expect(
                expectOk(await rg.execute(args("token", { regex: true }), repo.ctx())).engine
            ).toBe("ripgrep");
            expect(
                expectOk(await rg.execute(args("a(?=b)", { regex: true }), repo.ctx())).engine
            ).toBe("js");
            const context = expectOk(
                await rg.execute(args("token", { contextLines: 2 }), repo.ctx())
            );
            expect(context.engine).toBe("ripgrep");
            expect(context.matches.every((m) => m.before && m.after)).toBe(true);
        }
    );

    it.skipIf(!rgPath)(
        "applies ignore rules from above a scoped directory to ripgrep's results",
        async () => {
            const scoped = await makeRepo({
                ".gitignore": "*.log\nsecret/\n",
                ".git/info/exclude": "excl.ts\n",
                "src/a.ts": "token\n",
                "src/b.log": "token\n",
                "src/secret/c.ts": "token\n",
                "src/excl.ts": "token\n",
                "src/sub/.gitignore": "!*.log\n",
                "src/sub/d.log": "token\n",
            });
            try {
                const js = createSearchTextTool({ ripgrepPath: null });
                const rg = createSearchTextTool({ ripgrepPath: rgPath });
                const a = expectOk(await js.execute(args("token", { path: "src" }), scoped.ctx()));
                const b = expectOk(await rg.execute(args("token", { path: "src" }), scoped.ctx()));
                expect(b.engine).toBe("ripgrep");
                expect(b.matches.map((m) => m.path)).toEqual(["src/a.ts", "src/sub/d.log"]);
                expect(a.matches).toEqual(b.matches);
            } finally {
                await scoped.cleanup();
            }
        }
    );

    it("skips ignored, binary, oversized and symlinked files", async () => {
        const js = createSearchTextTool({ ripgrepPath: null });
        const result = expectOk(await js.execute(args("token", { limit: 200 }), repo.ctx()));
        const paths = new Set(result.matches.map((m) => m.path));
        for (const skipped of [
            "excluded.ts",
            "a.log",
            "generated/g.ts",
            "src/x.tmp",
            "node_modules/dep/index.js",
            "a/__pycache__/m.pyc",
            "bin/nul-start.bin",
            "bin/nul-late.txt",
            "big.txt",
            "many-link.ts",
            ".git/HEAD",
        ]) {
            expect(paths.has(skipped), skipped).toBe(false);
        }
        for (const kept of [
            ".env",
            ".hidden/dot.ts",
            "keep.log",
            "build/out.js",
            "src/generated/g.ts",
            "src/important.tmp",
            "src/sub/debug.log",
            "vendor/lib/v.log",
            "enc/utf16.txt",
            "enc/bom.txt",
            "with space/file name.ts",
        ]) {
            expect(paths.has(kept), kept).toBe(true);
        }
        expect([...paths].some((p) => p.startsWith("out-link") || p.startsWith("src-link"))).toBe(
            false
        );
    });
});

describe("search_text with a misbehaving ripgrep", () => {
    let repo: TempRepo;
    let scripts: { dir: string; cleanup: () => Promise<void> };
    afterEach(async () => {
        await repo?.cleanup();
        await scripts?.cleanup();
    });

    async function script(name: string, body: string): Promise<string> {
        const file = path.join(scripts.dir, name);
        await fs.writeFile(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
        return file;
    }

    it("kills ripgrep when the signal aborts", async () => {
        repo = await makeRepo({ "a.ts": "token\n" });
        scripts = await makeOutsideDir();
        const ran = path.join(scripts.dir, "ran");
        const tool = createSearchTextTool({
            ripgrepPath: await script(
                "rg",
                // Never ends by itself: only the kill can stop it.
                `: > "${ran}"; exec tail -f /dev/null`
            ),
        });
        const controller = new AbortController();
        // Aborted once the stand-in ripgrep runs.
        void vi
            .waitFor(() => expect(existsSync(ran)).toBe(true), { timeout: 10_000 })
            .then(() => controller.abort());
        const started = performance.now();
        const error = expectError(await tool.execute(args("token"), repo.ctx(controller.signal)));
        expect(error.code).toBe("cancelled");
        expect(performance.now() - started).toBeLessThan(5_000);
    });

    it("falls back to the JS engine when ripgrep fails", async () => {
        repo = await makeRepo({ "a.ts": "token\n" });
        scripts = await makeOutsideDir();
        const tool = createSearchTextTool({
            ripgrepPath: await script("rg", "echo broken >&2; exit 2"),
        });
        const result = expectOk(await tool.execute(args("token"), repo.ctx()));
        expect(result).toMatchObject({ engine: "js", totalMatches: 1 });
    });
});

describe("search_text engine choice", () => {
    it("uses the built-in search in a small project and ripgrep in a large one (when rg is on PATH)", async () => {
        const files: Record<string, string> = { "a.ts": "needle\n" };
        const small = await makeRepo(files);
        const largeFiles: Record<string, string> = {};
        for (let i = 0; i < 600; i++) largeFiles[`src/f${i}.ts`] = i === 7 ? "needle\n" : "hay\n";
        const large = await makeRepo(largeFiles);
        try {
            const tool = createSearchTextTool();
            const inSmall = expectOk(await tool.execute(args("needle"), small.ctx()));
            expect(inSmall.engine).toBe("js");
            expect(inSmall.matches.map((m) => m.path)).toEqual(["a.ts"]);
            const inLarge = expectOk(await tool.execute(args("needle"), large.ctx()));
            expect(inLarge.engine).toBe(rgPath ? "ripgrep" : "js");
            expect(inLarge.matches.map((m) => m.path)).toEqual(["src/f7.ts"]);
        } finally {
            await small.cleanup();
            await large.cleanup();
        }
    });
});
