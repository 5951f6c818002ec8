/**
 * Input schemas of the edit tools, shared by the single tools and by
 * edit_apply_batch (whose items are these shapes plus a `tool` name). Field
 * descriptions go on the single tools only; batch items repeat the same names
 * without them, which keeps the batch schema small. Names are snake_case.
 * Shapes are functions of zod so that nothing is built before a tool is used.
 */
import type * as z from "zod";
import type { ZodApi } from "../../util/zod-runtime";
import { type InputOf, type ToolInput, toolInput } from "../tool-input";

type Shape = Record<string, z.ZodType>;

/** The same fields, each described for the model. */
function describe<S extends Shape>(shape: S, docs: Partial<Record<keyof S, string>>): S {
    const out: Shape = {};
    for (const [key, field] of Object.entries(shape)) {
        const doc = docs[key as keyof S];
        out[key] = doc ? field.describe(doc) : field;
    }
    return out as S;
}

/** A single edit tool's input: its fields, each described. */
function describedInput<S extends Shape>(
    shape: (z: ZodApi) => S,
    docs: Partial<Record<keyof S, string>>
): ToolInput<z.output<z.ZodObject<S>>> {
    return toolInput((z) => z.object(describe(shape(z), docs)));
}

const DOCS = {
    occurrence: "Which match, from 1.",
    content: "Lines to write.",
    anchor: "Text on the target line.",
    inclusive: "Also replace the anchor lines.",
};

const replaceExactShape = (z: ZodApi) => ({
    path: z.string(),
    old_text: z.string(),
    new_text: z.string(),
    occurrence: z.number().int().optional(),
});

const insertAtLineShape = (z: ZodApi) => ({
    path: z.string(),
    line: z.number().int(),
    content: z.string(),
});

const anchorInsertShape = (z: ZodApi) => ({
    path: z.string(),
    anchor: z.string(),
    content: z.string(),
    occurrence: z.number().int().optional(),
});

const replaceBlockShape = (z: ZodApi) => ({
    path: z.string(),
    start_anchor: z.string(),
    end_anchor: z.string(),
    content: z.string(),
    inclusive: z.boolean().optional(),
    occurrence: z.number().int().optional(),
});

const byAnchorShape = (z: ZodApi) => ({
    path: z.string(),
    mode: z.enum(["insert_before", "insert_after", "replace_line", "replace_between"]),
    anchor: z.string(),
    anchor_end: z.string().optional(),
    content: z.string(),
    occurrence: z.number().int().optional(),
    inclusive: z.boolean().optional(),
});

const createFileShape = (z: ZodApi) => ({
    path: z.string(),
    content: z.string(),
    overwrite: z.boolean().optional(),
});

export const replaceExactInput = describedInput(replaceExactShape, {
    old_text: "Whitespace included.",
    new_text: "Empty deletes.",
    occurrence: DOCS.occurrence,
});

export const insertAtLineInput = describedInput(insertAtLineShape, {
    content: DOCS.content,
});

export const anchorInsertInput = describedInput(anchorInsertShape, {
    anchor: DOCS.anchor,
    content: DOCS.content,
    occurrence: DOCS.occurrence,
});

export const replaceBlockInput = describedInput(replaceBlockShape, {
    start_anchor: "Text on the first line.",
    end_anchor: "Text on the last line.",
    content: "New lines (empty deletes).",
    inclusive: DOCS.inclusive,
    occurrence: "Which start_anchor match, from 1.",
});

export const byAnchorInput = describedInput(byAnchorShape, {
    anchor: DOCS.anchor,
    anchor_end: "replace_between: text on the closing line.",
    content: "Lines to insert, or the replacement.",
    occurrence: DOCS.occurrence,
    inclusive: DOCS.inclusive,
});

export const createFileInput = describedInput(createFileShape, {
    content: "The whole file.",
    overwrite: "Default false.",
});

export type ReplaceExactArgs = InputOf<typeof replaceExactInput>;
export type InsertAtLineArgs = InputOf<typeof insertAtLineInput>;
export type AnchorInsertArgs = InputOf<typeof anchorInsertInput>;
export type ReplaceBlockArgs = InputOf<typeof replaceBlockInput>;
export type ByAnchorArgs = InputOf<typeof byAnchorInput>;
export type CreateFileArgs = InputOf<typeof createFileInput>;

/** One item of edit_apply_batch: a tool name and that tool's arguments. */
function batchEditInput(z: ZodApi) {
    return z.discriminatedUnion("tool", [
        z.object({ tool: z.literal("edit_replace_exact"), ...replaceExactShape(z) }),
        z.object({ tool: z.literal("edit_insert_at_line"), ...insertAtLineShape(z) }),
        z.object({ tool: z.literal("edit_after_anchor"), ...anchorInsertShape(z) }),
        z.object({ tool: z.literal("edit_before_anchor"), ...anchorInsertShape(z) }),
        z.object({ tool: z.literal("edit_replace_block"), ...replaceBlockShape(z) }),
        z.object({ tool: z.literal("edit_by_anchor"), ...byAnchorShape(z) }),
        z.object({ tool: z.literal("edit_create_file"), ...createFileShape(z) }),
    ]);
}

export type BatchEditArgs = z.infer<ReturnType<typeof batchEditInput>>;

export const MAX_BATCH_EDITS = 100;

export const applyBatchInput = toolInput((z) =>
    z.object({
        edits: z
            .array(batchEditInput(z))
            .min(1)
            .max(MAX_BATCH_EDITS)
            .describe(
                "Edits in order; each is {tool: <edit tool name>, ...that tool's arguments}."
            ),
    })
);

export type ApplyBatchArgs = InputOf<typeof applyBatchInput>;
