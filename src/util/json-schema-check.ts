/**
 * Whether a JSON value matches a JSON Schema, for the small part of JSON
 * Schema that zod's `toJSONSchema` writes for plain data: types, enum,
 * string length, number bounds, `format: "uri"`, objects, records, arrays
 * and `anyOf`. A schema word outside that part, and an object with an own
 * `__proto__` key, never match: the caller then asks the schema's source.
 */

type JsonSchema = Record<string, unknown>;

const KNOWN_WORDS = new Set([
    "$schema",
    "type",
    "enum",
    "minLength",
    "minimum",
    "exclusiveMinimum",
    "maximum",
    "format",
    "properties",
    "required",
    "additionalProperties",
    "propertyNames",
    "items",
    "anyOf",
]);

function isRecord(value: unknown): value is Record<string, unknown> {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What zod's `z.string().url()` accepts unchanged (it trims and drops tabs and newlines). */
function isUrl(value: string): boolean {
    return value === value.trim() && !/[\t\n\r]/.test(value) && URL.canParse(value);
}

function matchesType(type: unknown, value: unknown): boolean {
    switch (type) {
        case "string":
            return typeof value === "string";
        case "boolean":
            return typeof value === "boolean";
        case "number":
            return typeof value === "number" && Number.isFinite(value);
        case "integer":
            return typeof value === "number" && Number.isInteger(value);
        case "object":
            return isRecord(value);
        case "array":
            return Array.isArray(value);
        default:
            return false;
    }
}

function matchesString(schema: JsonSchema, value: string): boolean {
    if (schema.minLength !== undefined && value.length < (schema.minLength as number)) return false;
    if (schema.format === undefined) return true;
    return schema.format === "uri" && isUrl(value);
}

function matchesNumber(schema: JsonSchema, value: number): boolean {
    if (schema.minimum !== undefined && value < (schema.minimum as number)) return false;
    if (schema.exclusiveMinimum !== undefined && value <= (schema.exclusiveMinimum as number))
        return false;
    return schema.maximum === undefined || value <= (schema.maximum as number);
}

function matchesObject(schema: JsonSchema, value: Record<string, unknown>): boolean {
    if (Object.prototype.hasOwnProperty.call(value, "__proto__")) return false;
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const required = (schema.required ?? []) as string[];
    if (!required.every((key) => Object.prototype.hasOwnProperty.call(value, key))) return false;
    const names = schema.propertyNames as JsonSchema | undefined;
    if (names !== undefined && (Object.keys(names).length !== 1 || names.type !== "string"))
        return false;
    const extra = schema.additionalProperties as JsonSchema | boolean | undefined;
    return Object.entries(value).every(([key, field]) => {
        const known = Object.prototype.hasOwnProperty.call(properties, key)
            ? properties[key]
            : undefined;
        if (known !== undefined) return matchesJsonSchema(known, field);
        if (extra === false) return false;
        return extra === undefined || extra === true || matchesJsonSchema(extra, field);
    });
}

export function matchesJsonSchema(schema: JsonSchema, value: unknown): boolean {
    if (!Object.keys(schema).every((word) => KNOWN_WORDS.has(word))) return false;
    if (schema.anyOf !== undefined) {
        const options = schema.anyOf as JsonSchema[];
        if (!options.some((option) => matchesJsonSchema(option, value))) return false;
    }
    if (schema.enum !== undefined && !(schema.enum as unknown[]).includes(value)) return false;
    if (schema.type === undefined) {
        // Only `{}` and anyOf stand for any value; other words need a type to apply to.
        return Object.keys(schema).every((word) => word === "$schema" || word === "anyOf");
    }
    if (!matchesType(schema.type, value)) return false;
    if (typeof value === "string") return matchesString(schema, value);
    if (typeof value === "number") return matchesNumber(schema, value);
    if (Array.isArray(value)) {
        const items = schema.items as JsonSchema | undefined;
        return items === undefined || value.every((item) => matchesJsonSchema(items, item));
    }
    if (isRecord(value)) return matchesObject(schema, value);
    return true;
}
