// The build's facts from the source, derived once at build time: the input JSON
// Schemas of the built-in tools, `task` and `skill`, exactly as the registry
// derives them at run time (src/util/prebuilt-tool-schemas.ts reads them from the
// bundle); the JSON Schema of a user settings file (src/storage/settings/plain-load.ts);
// and the zod members North uses at run time (scripts/build.mjs bundles them as dist/zod.cjs).
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
// Some server found: the lsp tools are made too, so their schemas are prebuilt as well.
const foundServers = { hasServers: () => true };
const tools = [
    ...createBuiltinTools({
        expandOutput: () => undefined,
        shell: detachedShell,
        languages: foundServers,
    }),
    createSubagents({ agents: [] }).tool,
    createSkillTool([]),
];
const derived = new Set(tools.filter((tool) => !tool.inputJsonSchema).map((tool) => tool.name));
export const schemas = Object.fromEntries(
    createToolRegistry(tools)
        .schemas((tool) => derived.has(tool.name))
        .map((schema) => [schema.name, schema.inputSchema])
);
export { ZOD_MEMBERS } from "./src/util/zod-runtime";
export { userFileJsonSchema } from "./src/storage/settings/schema";
`;

let loaded;

/** The source's build-time facts (ENTRY above), bundled and imported once. */
function sourceFacts() {
    loaded ??= (async () => {
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
            return await import(pathToFileURL(outfile).href);
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    })();
    return loaded;
}

/** name → input JSON Schema for every such tool whose schema comes from zod. */
export async function builtinToolSchemas() {
    const { schemas } = await sourceFacts();
    if (Object.keys(schemas).length === 0) throw new Error("no built-in tool schemas");
    return schemas;
}

/** The zod members North uses at run time (`ZOD_MEMBERS`, src/util/zod-runtime.ts). */
export async function runtimeZodMembers() {
    const { ZOD_MEMBERS } = await sourceFacts();
    if (!Array.isArray(ZOD_MEMBERS) || ZOD_MEMBERS.length === 0) {
        throw new Error("src/util/zod-runtime.ts exports no ZOD_MEMBERS");
    }
    return ZOD_MEMBERS;
}

/** The JSON Schema of a user settings file with nothing to report (`userFileJsonSchema`). */
export async function userSettingsJsonSchema() {
    const { userFileJsonSchema } = await sourceFacts();
    return userFileJsonSchema();
}
