import { expect, it } from "vitest";
import { createSubagents } from "../../src/agent/subagent-tool";
import { createSkillTool } from "../../src/project/skills";
import { withPrebuiltSchemas } from "../../src/tools/builtin-schemas";
import { createBuiltinTools } from "../../src/tools/index";
import { createToolRegistry } from "../../src/tools/registry";
import type { AnyToolDefinition } from "../../src/tools/types";
import { toolInput } from "../../src/tools/tool-input";
import { fakeLanguageService } from "../kit/scripted-language-service";

function tool(name: string, inputJsonSchema?: Record<string, unknown>): AnyToolDefinition {
    return {
        name,
        description: `${name} tool`,
        input: toolInput((z) => z.object({ path: z.string() })),
        inputJsonSchema,
        approvalPolicy: "never",
        readOnly: true,
        execute: () => Promise.resolve({ ok: true, content: "" }),
    } as unknown as AnyToolDefinition;
}

const prebuilt = { read_file: { type: "object", properties: { path: { type: "string" } } } };

it("gives a listed tool its prebuilt schema, which the registry then sends", () => {
    const registry = createToolRegistry(withPrebuiltSchemas([tool("read_file")], prebuilt));
    expect(registry.schemas()[0]!.inputSchema).toBe(prebuilt.read_file);
});

it("keeps a tool's own schema and derives the schema of a tool the build did not list", () => {
    const own = { type: "object", properties: {} };
    const registry = createToolRegistry(
        withPrebuiltSchemas([tool("read_file", own), tool("custom")], prebuilt)
    );
    const [first, second] = registry.schemas();
    expect(first!.inputSchema).toBe(own);
    expect(second!.inputSchema).toMatchObject({
        type: "object",
        properties: { path: { type: "string" } },
        required: ["path"],
    });
});

it("changes nothing when running from source, where the build inlined no schemas", () => {
    const tools = [tool("read_file")];
    withPrebuiltSchemas(tools);
    expect(tools[0]!.inputJsonSchema).toBeUndefined();
});

it("prebuilds, as the registry derives them from source, every zod-derived schema, task and skill included", async () => {
    const { builtinToolSchemas } = await import("../../scripts/tool-schemas.mjs");
    const prebuiltByBuild = await builtinToolSchemas();
    const detachedShell = {
        run: () => Promise.reject(new Error("no shell in this test")),
        cwd: "",
        dispose: () => undefined,
    };
    const tools = [
        // A found language server brings the lsp tools, which are prebuilt too.
        ...createBuiltinTools({
            expandOutput: () => undefined,
            shell: detachedShell,
            languages: fakeLanguageService({ root: "/nowhere" }),
        }),
        createSubagents({ agents: [] }).tool,
        createSkillTool([]) as unknown as AnyToolDefinition,
    ];
    // From source nothing is prebuilt, so the registry derives each schema with zod now.
    const derivedNow = createToolRegistry(tools)
        .schemas((tool) => !tool.inputJsonSchema)
        .map((schema) => [schema.name, schema.inputSchema] as const);
    expect(derivedNow.map(([name]) => name)).toEqual(
        expect.arrayContaining(["task", "skill", "lsp", "lsp_rename"])
    );
    expect(prebuiltByBuild).toEqual(Object.fromEntries(derivedNow));
}, 60_000);
