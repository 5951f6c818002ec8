import * as z from "zod";
import { expect, it } from "vitest";
import { withPrebuiltSchemas } from "../../src/tools/builtin-schemas";
import { createToolRegistry } from "../../src/tools/registry";
import type { AnyToolDefinition } from "../../src/tools/types";

function tool(name: string, inputJsonSchema?: Record<string, unknown>): AnyToolDefinition {
    return {
        name,
        description: `${name} tool`,
        input: z.object({ path: z.string() }),
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
