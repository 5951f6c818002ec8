/**
 * The built-in tools' prebuilt input JSON Schemas (see util/prebuilt-tool-schemas).
 */
import { prebuiltToolSchemas } from "../util/prebuilt-tool-schemas";
import type { AnyToolDefinition } from "./types";

/**
 * Gives each built-in tool the input schema the build derived for it. Only
 * for definitions made by the built-in factories: a name alone does not say
 * which schema a tool has. Definitions are fresh per factory call, so setting
 * the field changes no one else's.
 */
export function withPrebuiltSchemas(
    tools: AnyToolDefinition[],
    schemas: Record<string, Record<string, unknown>> | undefined = prebuiltToolSchemas
): AnyToolDefinition[] {
    if (!schemas) return tools;
    for (const tool of tools) {
        const schema = schemas[tool.name];
        if (schema && !tool.inputJsonSchema) tool.inputJsonSchema = schema;
    }
    return tools;
}
