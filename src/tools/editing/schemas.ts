/**
 * Input schemas of the edit tools, shared by the single tools and by
 * edit_apply_batch (whose items are these shapes plus a `tool` name). Field
 * descriptions go on the single tools only; batch items repeat the same names
 * without them, which keeps the batch schema small. Names are snake_case.
 */
import * as z from "zod";

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

const DOCS = {
    occurrence: "Which match, from 1, when there are several.",
    content: "Lines to write.",
    anchor: "Text on the target line.",
    inclusive: "Also replace the anchor lines.",
};

const replaceExactShape = {
    path: z.string(),
    old_text: z.string(),
    new_text: z.string(),
    occurrence: z.number().int().optional(),
};

const insertAtLineShape = { path: z.string(), line: z.number().int(), content: z.string() };

const anchorInsertShape = {
    path: z.string(),
    anchor: z.string(),
    content: z.string(),
    occurrence: z.number().int().optional(),
};

const replaceBlockShape = {
    path: z.string(),
    start_anchor: z.string(),
    end_anchor: z.string(),
    content: z.string(),
    inclusive: z.boolean().optional(),
    occurrence: z.number().int().optional(),
};

const byAnchorShape = {
    path: z.string(),
    mode: z.enum(["insert_before", "insert_after", "replace_line", "replace_between"]),
    anchor: z.string(),
    anchor_end: z.string().optional(),
    content: z.string(),
    occurrence: z.number().int().optional(),
    inclusive: z.boolean().optional(),
};

const createFileShape = {
    path: z.string(),
    content: z.string(),
    overwrite: z.boolean().optional(),
};

export const replaceExactInput = z.object(
    describe(replaceExactShape, {
        old_text: "The exact text to replace, whitespace included; enough lines to be unique.",
        new_text: "The replacement text (empty to delete).",
        occurrence: DOCS.occurrence,
    })
);

export const insertAtLineInput = z.object(
    describe(insertAtLineShape, {
        line: "1-based line to insert before; the line count plus 1 appends.",
        content: DOCS.content,
    })
);

export const anchorInsertInput = z.object(
    describe(anchorInsertShape, {
        anchor: DOCS.anchor,
        content: DOCS.content,
        occurrence: DOCS.occurrence,
    })
);

export const replaceBlockInput = z.object(
    describe(replaceBlockShape, {
        start_anchor: "Text on the first line.",
        end_anchor: "Text on the last line (the first such after start).",
        content: "New lines (empty deletes).",
        inclusive: DOCS.inclusive,
        occurrence: "Which start_anchor match, from 1.",
    })
);

export const byAnchorInput = z.object(
    describe(byAnchorShape, {
        anchor: DOCS.anchor,
        anchor_end: "replace_between: text on the closing line.",
        content: "Lines to insert, or the replacement.",
        occurrence: DOCS.occurrence,
        inclusive: DOCS.inclusive,
    })
);

export const createFileInput = z.object(
    describe(createFileShape, {
        content: "The complete file content.",
        overwrite: "Replace the file if it exists (default false).",
    })
);

export type ReplaceExactArgs = z.infer<typeof replaceExactInput>;
export type InsertAtLineArgs = z.infer<typeof insertAtLineInput>;
export type AnchorInsertArgs = z.infer<typeof anchorInsertInput>;
export type ReplaceBlockArgs = z.infer<typeof replaceBlockInput>;
export type ByAnchorArgs = z.infer<typeof byAnchorInput>;
export type CreateFileArgs = z.infer<typeof createFileInput>;

/** One item of edit_apply_batch: a tool name and that tool's arguments. */
export const batchEditInput = z.discriminatedUnion("tool", [
    z.object({ tool: z.literal("edit_replace_exact"), ...replaceExactShape }),
    z.object({ tool: z.literal("edit_insert_at_line"), ...insertAtLineShape }),
    z.object({ tool: z.literal("edit_after_anchor"), ...anchorInsertShape }),
    z.object({ tool: z.literal("edit_before_anchor"), ...anchorInsertShape }),
    z.object({ tool: z.literal("edit_replace_block"), ...replaceBlockShape }),
    z.object({ tool: z.literal("edit_by_anchor"), ...byAnchorShape }),
    z.object({ tool: z.literal("edit_create_file"), ...createFileShape }),
]);

export type BatchEditArgs = z.infer<typeof batchEditInput>;

export const MAX_BATCH_EDITS = 100;

export const applyBatchInput = z.object({
    edits: z
        .array(batchEditInput)
        .min(1)
        .max(MAX_BATCH_EDITS)
        .describe("Edits in order; each is {tool: <edit tool name>, ...that tool's arguments}."),
});

export type ApplyBatchArgs = z.infer<typeof applyBatchInput>;
