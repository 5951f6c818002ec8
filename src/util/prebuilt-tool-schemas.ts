/**
 * Tool input JSON Schemas derived from their zod schemas by scripts/build.mjs
 * from this same source (scripts/tool-schemas.mjs) and inlined into dist/:
 * deriving them costs 15-70 ms of every run otherwise. Running from source
 * (tsx, tests) there are none and the registry derives them at run time.
 * The build writes them as JSON text: esbuild initialises an object-valued
 * define in every module of the bundle, a string is inlined where it is used.
 */
declare const __NORTH_TOOL_SCHEMAS__: string | undefined;

/** name → input JSON Schema: the built-in tools, `task` and `skill`; undefined from source. */
export const prebuiltToolSchemas: Record<string, Record<string, unknown>> | undefined =
    typeof __NORTH_TOOL_SCHEMAS__ === "undefined"
        ? undefined
        : (JSON.parse(__NORTH_TOOL_SCHEMAS__) as Record<string, Record<string, unknown>>);

/** The prebuilt input schema of the tool named `name`, for its own factory to set. */
export function prebuiltToolSchema(name: string): Record<string, unknown> | undefined {
    return prebuiltToolSchemas?.[name];
}
