/**
 * The in-process tool registry: schemas for providers, and `execute`, which
 * turns every expected failure (unknown tool, oversized or invalid input, a
 * throw inside a tool) into a `ToolResult` error instead of an exception.
 */
import type * as z from "zod";
import type { ToolSchema } from "../providers/types";
import { type AnyToolDefinition, type ToolContext, type ToolResult, toolError } from "./types";
import { MAX_TOOL_INPUT_BYTES } from "./limits";
import { deriveInputJsonSchema, inputSchema } from "./tool-input";

export { MAX_TOOL_INPUT_BYTES };

export interface ToolRegistry {
    /** All tools, in registration order. */
    list(): AnyToolDefinition[];
    get(name: string): AnyToolDefinition | undefined;
    /** Provider-facing schemas, optionally for a subset (e.g. read-only tools in ask mode). */
    schemas(filter?: (tool: AnyToolDefinition) => boolean): ToolSchema[];
    /** Validates `rawInput` and runs the tool; never throws. */
    execute(name: string, rawInput: unknown, ctx: ToolContext): Promise<ToolResult>;
    /** `execute` for a definition the caller already looked up (from `list()`): no second lookup by name. */
    executeDefinition(
        tool: AnyToolDefinition,
        rawInput: unknown,
        ctx: ToolContext
    ): Promise<ToolResult>;
}

type JsonSchema = Record<string, unknown>;

/** Drops noise the model does not need: `$schema` and the safe-integer bounds zod adds. */
function tidySchema(node: unknown): unknown {
    if (Array.isArray(node)) return node.map(tidySchema);
    if (typeof node !== "object" || node === null) return node;
    const out: JsonSchema = {};
    for (const [key, value] of Object.entries(node)) {
        // Defaults are stated in the descriptions; `$schema` is noise to the model.
        if (key === "$schema" || key === "default") continue;
        if (key === "maximum" && value === Number.MAX_SAFE_INTEGER) continue;
        if (key === "minimum" && value === Number.MIN_SAFE_INTEGER) continue;
        out[key] = tidySchema(value);
    }
    return out;
}

function derivedSchema(tool: AnyToolDefinition): JsonSchema {
    return tidySchema(deriveInputJsonSchema(tool.input)) as JsonSchema;
}

/** A one-line signature such as `{path: string, range?: object}`. */
function signature(schema: JsonSchema): string {
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((schema.required ?? []) as string[]);
    const fields = Object.entries(properties).map(([name, prop]) => {
        const type = Array.isArray(prop.enum)
            ? prop.enum.map((v) => JSON.stringify(v)).join(" | ")
            : String(prop.type ?? "any");
        return `${name}${required.has(name) ? "" : "?"}: ${type}`;
    });
    return `{${fields.join(", ")}}`;
}

function describeIssues(toolName: string, schema: JsonSchema, issues: z.core.$ZodIssue[]): string {
    const lines = issues.map((issue) => {
        const where = issue.path.length > 0 ? issue.path.map(String).join(".") : "input";
        let message = issue.message.replace(
            /^(Invalid input|Too big|Too small|Invalid option): /,
            ""
        );
        if (issue.code === "invalid_type" && / received undefined$/.test(message)) {
            message = `required (${issue.expected})`;
        }
        return `- ${where}: ${message}`;
    });
    return `Invalid arguments for ${toolName}:\n${lines.join("\n")}\nExpected: ${signature(schema)}`;
}

function formatKb(bytes: number): string {
    return `${(bytes / 1024).toFixed(1)} KB`;
}

function errorMessage(error: unknown): string {
    return error instanceof Error ? error.message : String(error);
}

/** Checks the input's size and shape, then runs `tool`; every failure is a result. */
async function runDefinition(
    tool: AnyToolDefinition,
    rawInput: unknown,
    ctx: ToolContext,
    schemaOf: (tool: AnyToolDefinition) => JsonSchema
): Promise<ToolResult> {
    const { name } = tool;
    const value = rawInput === undefined ? {} : rawInput;
    let json: string | undefined;
    try {
        json = JSON.stringify(value);
    } catch (error) {
        return toolError("invalid_args", `Input for ${name} is not JSON: ${errorMessage(error)}`);
    }
    const size = json === undefined ? 0 : Buffer.byteLength(json, "utf8");
    if (size > MAX_TOOL_INPUT_BYTES) {
        return toolError(
            "input_too_large",
            `Input for ${name} is ${formatKb(size)}; the limit is ${formatKb(MAX_TOOL_INPUT_BYTES)}. ` +
                "Split the work into smaller calls. To write a large file, put its content in plain " +
                'assistant text as <NORTH_FILE path="...">...</NORTH_FILE> instead of a tool argument.'
        );
    }
    let parsed: ReturnType<z.ZodType["safeParse"]>;
    try {
        // Building the schema loads zod on first use: a broken install is this call's error.
        parsed = inputSchema(tool.input).safeParse(value);
    } catch (error) {
        return toolError("internal", `${name} failed: ${errorMessage(error)}`);
    }
    if (!parsed.success) {
        return toolError("invalid_args", describeIssues(name, schemaOf(tool), parsed.error.issues));
    }
    if (ctx.signal.aborted) return toolError("cancelled", `${name} was cancelled.`);
    try {
        return await tool.execute(parsed.data, ctx);
    } catch (error) {
        if (ctx.signal.aborted) return toolError("cancelled", `${name} was cancelled.`);
        return toolError("internal", `${name} failed: ${errorMessage(error)}`);
    }
}

export function createToolRegistry(tools: AnyToolDefinition[]): ToolRegistry {
    const byName = new Map<string, AnyToolDefinition>();
    for (const tool of tools) {
        if (byName.has(tool.name)) throw new Error(`Duplicate tool name: ${tool.name}`);
        byName.set(tool.name, tool);
    }
    const schemaCache = new Map<string, JsonSchema>();
    const schemaOf = (tool: AnyToolDefinition): JsonSchema => {
        let schema = schemaCache.get(tool.name);
        if (!schema) {
            schema = (tool.inputJsonSchema as JsonSchema | undefined) ?? derivedSchema(tool);
            schemaCache.set(tool.name, schema);
        }
        return schema;
    };

    return {
        list: () => [...byName.values()],
        get: (name) => byName.get(name),
        schemas(filter) {
            return [...byName.values()]
                .filter((tool) => !filter || filter(tool))
                .map((tool) => ({
                    name: tool.name,
                    description: tool.description,
                    inputSchema: schemaOf(tool),
                }));
        },
        async execute(name, rawInput, ctx) {
            const tool = byName.get(name);
            if (!tool) {
                const names = [...byName.keys()].join(", ");
                return toolError(
                    "unknown_tool",
                    `Unknown tool "${name}". Available tools: ${names}.`
                );
            }
            return runDefinition(tool, rawInput, ctx, schemaOf);
        },
        executeDefinition: (tool, rawInput, ctx) => runDefinition(tool, rawInput, ctx, schemaOf),
    };
}
