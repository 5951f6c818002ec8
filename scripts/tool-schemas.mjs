// The input JSON Schemas of the built-in tools, `task` and `skill`, derived at
// build time exactly as the registry derives them at run time
// (src/util/prebuilt-tool-schemas.ts reads them from the bundle).
import { build } from "esbuild";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ENTRY = `
import * as zod from "zod";
import { provideZod } from "./src/util/zod-runtime";
import { createSubagents } from "./src/agent/subagent-tool";
import { createSkillTool } from "./src/project/skills";
import { createBuiltinTools } from "./src/tools/index";
import { createToolRegistry } from "./src/tools/registry";
// This bundle holds zod itself: no dist/zod.cjs exists yet.
provideZod(zod);
const detachedShell = {
    run: () => Promise.reject(new Error("no shell at build time")),
    cwd: "",
    dispose: () => undefined,
};
const tools = [
    ...createBuiltinTools({ expandOutput: () => undefined, shell: detachedShell }),
    createSubagents({ agents: [] }).tool,
    createSkillTool([]),
];
const derived = new Set(tools.filter((tool) => !tool.inputJsonSchema).map((tool) => tool.name));
export const schemas = Object.fromEntries(
    createToolRegistry(tools)
        .schemas((tool) => derived.has(tool.name))
        .map((schema) => [schema.name, schema.inputSchema])
);
`;

/** name → input JSON Schema for every such tool whose schema comes from zod. */
export async function builtinToolSchemas() {
    const dir = mkdtempSync(join(tmpdir(), "north-tool-schemas-"));
    try {
        const outfile = join(dir, "tool-schemas.mjs");
        await build({
            stdin: {
                contents: ENTRY,
                resolveDir: fileURLToPath(new URL("..", import.meta.url)),
                loader: "ts",
            },
            outfile,
            bundle: true,
            format: "esm",
            platform: "node",
            target: "node20",
            mainFields: ["module", "main"],
            banner: {
                js: 'import { createRequire as __northCreateRequire } from "node:module"; const require = __northCreateRequire(import.meta.url);',
            },
            logLevel: "warning",
        });
        const { schemas } = await import(pathToFileURL(outfile).href);
        if (Object.keys(schemas).length === 0) throw new Error("no built-in tool schemas");
        return schemas;
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
}
