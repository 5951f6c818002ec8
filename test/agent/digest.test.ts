import { describe, expect, it } from "vitest";
import { OutputCache, digestToolOutput } from "../../src/agent/digest";
import { createExpandOutputTool } from "../../src/tools/expand-output";
import { createBuiltinTools, createToolRegistry } from "../../src/tools/index";
import type { ShellService } from "../../src/tools/shell-service";

/** The run's registry the digests come from (no command runs here). */
const tools = createToolRegistry(
    createBuiltinTools({ expandOutput: () => undefined, shell: {} as ShellService })
);

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n");
const ctx = { repoRoot: "/repo", signal: new AbortController().signal };

describe("digestToolOutput", () => {
    it("digests a long read_file to 50 head + 10 tail lines and keeps the full output", () => {
        const cache = new OutputCache();
        const full = {
            path: "a.ts",
            content: lines(400),
            startLine: 1,
            endLine: 400,
            totalLines: 400,
            truncated: false,
        };
        const digest = digestToolOutput(
            tools.get("read_file"),
            { path: "a.ts" },
            full,
            cache
        ) as Record<string, unknown>;
        const content = String(digest.content).split("\n");
        expect(content.slice(0, 50)).toEqual(lines(50).split("\n"));
        expect(content[50]).toBe("... 340 more lines ...");
        expect(content.slice(51)).toEqual(lines(400).split("\n").slice(-10));
        expect(digest.outputId).toBe("out-1");
        expect(String(digest.digestNote)).toContain("expand_output");
        expect(cache.get("out-1")).toBe(full);
    });

    it("never digests a range the model bounded to 60 lines or fewer", () => {
        const cache = new OutputCache();
        const data = {
            path: "a.ts",
            content: lines(60),
            startLine: 1,
            endLine: 60,
            totalLines: 400,
        };
        expect(
            digestToolOutput(
                tools.get("read_file"),
                { path: "a.ts", range: { start: 1, end: 60 } },
                data,
                cache
            )
        ).toBe(data);
        const short = { path: "b.ts", content: lines(61) };
        expect(digestToolOutput(tools.get("read_file"), { path: "b.ts" }, short, cache)).toBe(
            short
        );
    });

    it("keeps 10 search matches, 20 files, 20+10 shell lines; other tools pass through", () => {
        const cache = new OutputCache();
        const matches = Array.from({ length: 30 }, (_, i) => ({ path: "a", line: i, text: "x" }));
        const search = digestToolOutput(
            tools.get("search_text"),
            {},
            { matches, totalMatches: 75, truncated: true },
            cache
        ) as { matches: unknown[]; digestNote: string };
        expect(search.matches).toHaveLength(10);
        expect(search.digestNote).toContain("total 75");
        const files = digestToolOutput(
            tools.get("find_files"),
            {},
            { files: Array.from({ length: 25 }, (_, i) => `f${i}`) },
            cache
        ) as { files: string[] };
        expect(files.files).toHaveLength(20);
        const shell = digestToolOutput(
            tools.get("shell_run"),
            {},
            { output: lines(100), exitCode: 0 },
            cache
        ) as { output: string };
        expect(shell.output.split("\n")).toHaveLength(31);
        const other = { anything: lines(500) };
        expect(digestToolOutput(tools.get("get_file_outline"), {}, other, cache)).toBe(other);
    });
});

describe("expand_output", () => {
    it("returns the cached output and explains an unknown or expired id", async () => {
        const cache = new OutputCache();
        const id = cache.put({ full: true });
        const tool = createExpandOutputTool((outputId) => cache.get(outputId));
        expect(await tool.execute({ outputId: id }, ctx)).toEqual({
            ok: true,
            data: { full: true },
        });
        cache.clear();
        const expired = await tool.execute({ outputId: id }, ctx);
        expect(expired.ok).toBe(false);
        expect(!expired.ok && expired.error.message).toContain("unknown or expired");
    });
});
