/**
 * The built-in tools' input JSON Schemas, derived from their zod schemas by
 * scripts/build.mjs from this same source (scripts/tool-schemas.mjs) and
 * inlined into dist/: deriving them costs 15-70 ms of every run otherwise.
 * Running from source (tsx, tests), the registry derives them at run time.
 */
import type { AnyToolDefinition } from "./types";

declare const __NORTH_TOOL_SCHEMAS__: Record<string, Record<string, unknown>> | undefined;

const prebuilt: Record<string, Record<string, unknown>> | undefined =
    typeof __NORTH_TOOL_SCHEMAS__ === "undefined" ? undefined : __NORTH_TOOL_SCHEMAS__;

/**
 * Gives each built-in tool the input schema the build derived for it. Only
 * for definitions made by the built-in factories: a name alone does not say
 * which schema a tool has. Definitions are fresh per factory call, so setting
 * the field changes no one else's.
 */
export function withPrebuiltSchemas(
    tools: AnyToolDefinition[],
    schemas: Record<string, Record<string, unknown>> | undefined = prebuilt
): AnyToolDefinition[] {
    if (!schemas) return tools;
    for (const tool of tools) {
        const schema = schemas[tool.name];
        if (schema && !tool.inputJsonSchema) tool.inputJsonSchema = schema;
    }
    return tools;
}
