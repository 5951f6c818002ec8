/**
 * A tool's input schema, built on first use. Zod is slow to construct
 * schemas and a run calls few tools (the model-facing JSON Schemas are
 * prebuilt), so a definition holds a builder, not a schema. The builder is
 * handed zod (util/zod-runtime), which is only loaded then.
 */
import type * as z from "zod";
import { type ZodApi, zod } from "../util/zod-runtime";

/**
 * How to build a tool's input schema. A plain object, so definitions outside
 * tools/ (project/ may not import it) can write one with a type-only zod import.
 */
export interface ToolInput<I> {
    /** Called at each use; one made by `toolInput` builds once and keeps the schema. */
    readonly build: (zod: ZodApi) => z.ZodType<I>;
}

/** The validated input type of a `ToolInput`, for naming a tool's arguments. */
export type InputOf<T> = T extends ToolInput<infer I> ? I : never;

/** Typed constructor: `toolInput((z) => z.object({...}))`. */
export function toolInput<S extends z.ZodType>(build: (zod: ZodApi) => S): ToolInput<z.output<S>> {
    // The definition keeps its schema: built on first use, then reused.
    let schema: S | undefined;
    const keep = (api: ZodApi): S => (schema ??= build(api));
    // S is a schema whose output is z.output<S>; TypeScript cannot see that through the generic.
    return { build: keep as (zod: ZodApi) => z.ZodType<z.output<S>> };
}

/** The zod schema of `input` (see `ToolInput.build`). */
export function inputSchema<I>(input: ToolInput<I>): z.ZodType<I> {
    return input.build(zod());
}

/** The input-side JSON Schema zod derives for `input`, before any tidying. */
export function deriveInputJsonSchema(input: ToolInput<unknown>): Record<string, unknown> {
    return zod().toJSONSchema(inputSchema(input), { io: "input" }) as Record<string, unknown>;
}
