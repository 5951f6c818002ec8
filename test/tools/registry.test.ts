import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReadTools } from "../../src/tools/index";
import { MAX_TOOL_INPUT_BYTES, createToolRegistry } from "../../src/tools/registry";
import { type ToolDefinition, toolOk } from "../../src/tools/types";
import { type TempRepo, expectError, expectOk, makeRepo } from "./fixtures";
import { toolInput } from "../../src/tools/tool-input";

const boom: ToolDefinition<{ x?: string }, never> = {
    name: "boom",
    description: "Throws.",
    input: toolInput((z) => z.object({ x: z.string().optional() })),
    approvalPolicy: "none",
    readOnly: false,
    execute: async () => {
        throw new Error("kaboom");
    },
};

const echo: ToolDefinition<{ text: string }, { text: string }> = {
    name: "echo",
    description: "Echoes.",
    input: toolInput((z) => z.object({ text: z.string() })),
    approvalPolicy: "none",
    readOnly: true,
    execute: async (input) => toolOk({ text: input.text }),
};

describe("tool registry", () => {
    let repo: TempRepo;
    const registry = createToolRegistry([
        ...createReadTools({ search: { ripgrepPath: null } }).slice(0, 4),
        boom,
        echo,
    ]);
    beforeAll(async () => {
        repo = await makeRepo({ "src/a.ts": "hello\n" });
    });
    afterAll(() => repo.cleanup());

    it("turns an input schema that cannot be built into the call's error, never a throw", async () => {
        const broken: ToolDefinition<{ text: string }, never> = {
            ...echo,
            name: "broken",
            input: {
                build: () => {
                    throw new Error("dist/zod.cjs is missing");
                },
            },
            inputJsonSchema: { type: "object" },
            execute: async () => {
                throw new Error("never run");
            },
        };
        const result = await createToolRegistry([broken]).execute("broken", {}, repo.ctx());
        expect(expectError(result)).toEqual({
            code: "internal",
            message: "broken failed: dist/zod.cjs is missing",
        });
    });

    it("lists tools and builds compact JSON schemas", () => {
        expect(registry.list().map((t) => t.name)).toEqual([
            "list_root",
            "find_files",
            "search_text",
            "read_file",
            "boom",
            "echo",
        ]);
        expect(registry.get("read_file")?.readOnly).toBe(true);
        const schemas = registry.schemas((t) => t.readOnly);
        expect(schemas.map((s) => s.name)).toEqual([
            "list_root",
            "find_files",
            "search_text",
            "read_file",
            "echo",
        ]);
        const search = schemas.find((s) => s.name === "search_text")!;
        expect(search.inputSchema).toMatchObject({
            type: "object",
            required: ["query"],
            properties: { limit: { type: "integer", maximum: 200 } },
        });
        expect(JSON.stringify(schemas)).not.toMatch(/\$schema|9007199254740991/);
        expect(schemas.find((s) => s.name === "list_root")!.inputSchema).toEqual({
            type: "object",
            properties: {},
        });
    });

    it("runs a tool with validated, defaulted input", async () => {
        const result = expectOk(
            await registry.execute("search_text", { query: "HELLO" }, repo.ctx())
        );
        expect(result).toMatchObject({
            totalMatches: 1,
            matches: [{ path: "src/a.ts", line: 1, text: "hello" }],
        });
        expect(expectOk(await registry.execute("list_root", undefined, repo.ctx()))).toMatchObject({
            entries: ["src/"],
        });
    });

    it("names the available tools for an unknown tool", async () => {
        const error = expectError(await registry.execute("read_files", {}, repo.ctx()));
        expect(error.code).toBe("unknown_tool");
        expect(error.message).toMatch(
            /"read_files".*list_root, find_files, search_text, read_file/
        );
    });

    it("describes each bad field readably", async () => {
        const error = expectError(
            await registry.execute(
                "search_text",
                { query: 5, limit: 1000, regex: "yes" },
                repo.ctx()
            )
        );
        expect(error.code).toBe("invalid_args");
        expect(error.message).toContain("- query: expected string, received number");
        expect(error.message).toContain("- regex: expected boolean, received string");
        expect(error.message).toContain("- limit: expected number to be <=200");
        expect(error.message).toMatch(/Expected: \{query: string, regex\?: boolean/);
        const missing = expectError(await registry.execute("read_file", {}, repo.ctx()));
        expect(missing.message).toContain("- path: required (string)");
        const nested = expectError(
            await registry.execute("read_file", { path: "a", range: { start: "1" } }, repo.ctx())
        );
        expect(nested.message).toContain("- range.start: expected number, received string");
        const notObject = expectError(await registry.execute("read_file", "src/a.ts", repo.ctx()));
        expect(notObject.message).toContain("- input: expected object, received string");
        expect(expectError(await registry.execute("read_file", null, repo.ctx())).code).toBe(
            "invalid_args"
        );
    });

    it("rejects input over 50 KB with the limit, the size and what to do", async () => {
        const text = "x".repeat(MAX_TOOL_INPUT_BYTES);
        const error = expectError(await registry.execute("echo", { text }, repo.ctx()));
        expect(error.code).toBe("input_too_large");
        expect(error.message).toMatch(/is 50\.0 KB; the limit is 50\.0 KB/);
        expect(error.message).toMatch(/smaller calls/);
        expect(error.message).toContain('<NORTH_FILE path="...">');
        // Just under the limit passes.
        const ok = expectOk(
            await registry.execute(
                "echo",
                { text: "x".repeat(MAX_TOOL_INPUT_BYTES - 20) },
                repo.ctx()
            )
        );
        expect((ok as { text: string }).text).toHaveLength(MAX_TOOL_INPUT_BYTES - 20);
        // Bytes, not characters.
        const wide = expectError(
            await registry.execute("echo", { text: "é".repeat(30_000) }, repo.ctx())
        );
        expect(wide.code).toBe("input_too_large");
    });

    it("turns a throw into an internal error and reports cancellation", async () => {
        const error = expectError(await registry.execute("boom", {}, repo.ctx()));
        expect(error).toEqual({ code: "internal", message: "boom failed: kaboom" });
        const controller = new AbortController();
        controller.abort();
        expect(
            expectError(await registry.execute("echo", { text: "a" }, repo.ctx(controller.signal)))
                .code
        ).toBe("cancelled");
        const circular: Record<string, unknown> = {};
        circular.self = circular;
        expect(expectError(await registry.execute("echo", circular, repo.ctx())).code).toBe(
            "invalid_args"
        );
    });

    it("refuses duplicate tool names", () => {
        expect(() => createToolRegistry([echo, echo])).toThrow(/Duplicate tool name: echo/);
    });

    it("runs a definition already looked up with execute's checks and results", async () => {
        const ctx = repo.ctx();
        expect(expectOk(await registry.executeDefinition(echo, { text: "hi" }, ctx))).toEqual({
            text: "hi",
        });
        const invalid = expectError(await registry.executeDefinition(echo, { text: 1 }, ctx));
        expect(invalid.code).toBe("invalid_args");
        expect(invalid.message).toBe(
            expectError(await registry.execute("echo", { text: 1 }, ctx)).message
        );
        expect(expectError(await registry.executeDefinition(boom, {}, ctx)).message).toBe(
            "boom failed: kaboom"
        );
        const big = { text: "x".repeat(MAX_TOOL_INPUT_BYTES + 1) };
        expect(expectError(await registry.executeDefinition(echo, big, ctx)).code).toBe(
            "input_too_large"
        );
    });
});
