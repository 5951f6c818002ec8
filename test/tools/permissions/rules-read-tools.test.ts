import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFindFilesTool } from "../../../src/tools/find-files";
import { createGetLineCountTool } from "../../../src/tools/get-line-count";
import { createHotfilesTool } from "../../../src/tools/hotfiles";
import { createListRootTool } from "../../../src/tools/list-root";
import { PermissionRules } from "../../../src/tools/permissions/rules";
import { createReadAroundTool } from "../../../src/tools/read-around";
import { createReadFileTool } from "../../../src/tools/read-file";
import { findRipgrep } from "../../../src/tools/search-ripgrep";
import { createSearchTextTool } from "../../../src/tools/search-text";
import type { AnyToolDefinition, ToolContext, ToolResult } from "../../../src/tools/types";
import { type TempRepo, makeRepo } from "../fixtures";
import { inputSchema } from "../../../src/tools/tool-input";

const rgPath = await findRipgrep();
let repo: TempRepo;
let denied: ToolContext;
let open: ToolContext;

beforeAll(async () => {
    repo = await makeRepo({
        ".env": "API_TOKEN=hunter2\n",
        "secrets/key.ts": "export const key = 'hunter2';\n",
        "src/app.ts": "const token = 'hunter2 is not here';\n",
    });
    const rules = new PermissionRules({ projectRoot: repo.root, home: "/nonexistent" }, new Set());
    rules.addSource({ source: "test", permissions: { deny: ["Read(./.env)", "Read(secrets)"] } });
    open = repo.ctx();
    denied = { ...repo.ctx(), readDenial: (p) => rules.readDenial(p) };
});
afterAll(async () => {
    await repo.cleanup();
});

const text = (result: ToolResult) => JSON.stringify(result);
const run = (tool: AnyToolDefinition, input: unknown, ctx: ToolContext) =>
    tool.execute(inputSchema(tool.input).parse(input), ctx);

describe("Read deny rules in the read and search tools", () => {
    it("read_file, read_around and get_line_count refuse a denied file, naming the rule", async () => {
        const cases: Array<[AnyToolDefinition, unknown]> = [
            [createReadFileTool(), { path: ".env" }],
            [createReadAroundTool(), { path: "secrets/key.ts", anchor: "key" }],
            [createGetLineCountTool(), { path: "./secrets/../.env" }],
        ];
        for (const [tool, input] of cases) {
            expect((await run(tool, input, open)).ok).toBe(true);
            const result = await run(tool, input, denied);
            expect(result.ok).toBe(false);
            expect(text(result)).toMatch(
                /denied by the permission rule Read\((\.\/\.env|secrets)\)/
            );
            expect(text(result)).not.toContain("hunter2");
        }
        expect(text(await run(createReadFileTool(), { path: ".env" }, open))).toContain("hunter2");
    });

    const engines = [
        { name: "js", tool: createSearchTextTool({ ripgrepPath: null }) },
        ...(rgPath
            ? [{ name: "ripgrep", tool: createSearchTextTool({ ripgrepPath: rgPath }) }]
            : []),
    ];
    it.each(engines)("search_text ($name) never matches in a denied file", async ({ tool }) => {
        const input = { query: "hunter2" };
        const without = text(await run(tool, input, open));
        expect(without).toContain('"path":".env"');
        expect(without).toContain('"path":"secrets/key.ts"');
        const withRules = text(await run(tool, input, denied));
        expect(withRules).toContain('"path":"src/app.ts"');
        expect(withRules).not.toContain('"path":".env"');
        expect(withRules).not.toContain("secrets/key.ts");
        const scoped = await run(tool, { query: "hunter2", path: "secrets" }, denied);
        expect(scoped.ok).toBe(false);
        expect(text(scoped)).toContain("Read(secrets)");
    });

    it("find_files, list_root and hotfiles never list a denied path", async () => {
        const find = createFindFilesTool();
        expect(text(await run(find, { pattern: "**" }, open))).toContain('".env"');
        const found = text(await run(find, { pattern: "**" }, denied));
        expect(found).toContain("src/app.ts");
        expect(found).not.toContain('".env"');
        expect(found).not.toContain("secrets/");
        const list = createListRootTool();
        expect(text(await run(list, {}, open))).toContain("secrets/");
        const listed = text(await run(list, {}, denied));
        expect(listed).toContain("src/");
        expect(listed).not.toContain("secrets/");
        expect(listed).not.toContain('".env"');
        const hot = text(await run(createHotfilesTool(), {}, denied));
        expect(hot).not.toContain("secrets/key.ts");
    });
});
