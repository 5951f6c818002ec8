import * as realZod from "zod";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type ZodApi, provideZod } from "../../src/util/zod-runtime";

// Counts the object schemas tool code builds, through the zod tool-input hands out.
const built = { objects: 0 };
provideZod({
    ...realZod,
    object: ((...args: Parameters<typeof realZod.object>) => {
        built.objects++;
        return realZod.object(...args);
    }) as typeof realZod.object,
});

const { createBuiltinTools } = await import("../../src/tools/index");
const { withPrebuiltSchemas } = await import("../../src/tools/builtin-schemas");
const { createToolRegistry } = await import("../../src/tools/registry");
const { inputSchema, toolInput } = await import("../../src/tools/tool-input");
const { expectError, expectOk, makeRepo } = await import("./fixtures");
type TempRepo = Awaited<ReturnType<typeof makeRepo>>;

const detachedShell = {
    run: () => Promise.reject(new Error("no shell in this test")),
    cwd: "",
    dispose: () => undefined,
};

describe("tool input schemas built on first use", () => {
    let repo: TempRepo;
    beforeAll(async () => {
        repo = await makeRepo({ "src/a.ts": "hello\n" });
    });
    afterAll(() => repo.cleanup());
    // First: the count runs from before the tool modules were imported.
    it("imports and creates every built-in tool and lists prebuilt schemas without building any", () => {
        const tools = createBuiltinTools({ expandOutput: () => undefined, shell: detachedShell });
        const prebuilt = Object.fromEntries(tools.map((tool) => [tool.name, { type: "object" }]));
        const registry = createToolRegistry(withPrebuiltSchemas(tools, prebuilt));
        expect(registry.schemas().length).toBe(tools.length);
        expect(built.objects).toBe(0);
    });

    it("builds a schema only when first asked for it, then keeps it", () => {
        const build = vi.fn((z: ZodApi) => z.object({ path: z.string() }));
        const input = toolInput(build);
        expect(build).not.toHaveBeenCalled();
        const first = inputSchema(input);
        expect(inputSchema(input)).toBe(first);
        expect(build).toHaveBeenCalledTimes(1);
        expect(first.safeParse({ path: "a" }).success).toBe(true);
    });

    it("builds only the called tool's schema, once, and validates as before", async () => {
        const tools = createBuiltinTools({ expandOutput: () => undefined, shell: detachedShell });
        const registry = createToolRegistry(tools);
        built.objects = 0;
        const found = expectOk(
            await registry.execute("find_files", { pattern: "*.ts" }, repo.ctx())
        ) as { files: string[] };
        expect(found.files).toEqual(["src/a.ts"]);
        const afterFirst = built.objects;
        expect(afterFirst).toBe(1);
        const invalid = expectError(await registry.execute("find_files", { limit: 0 }, repo.ctx()));
        expect(invalid.message).toMatch(/^Invalid arguments for find_files:\n- pattern: required/);
        // The error's "Expected:" line derives the JSON Schema from the same kept schema.
        expect(built.objects).toBe(afterFirst);
    });
});
