/**
 * Runs edit steps against in-memory copies of their files and prepares one
 * write: every single edit tool is a batch of one, edit_apply_batch a batch
 * of many. Steps on the same file (by real path) see each other's results.
 */
import { resolveWritablePath } from "../path-guard";
import type { PreparedWrite, ToolContext, ToolResult } from "../types";
import { toolError, toolOk } from "../types";
import { toleranceNote } from "./diagnostics";
import type { EditOutcome, WorkingFile } from "./edits";
import { anchorEdit, createFile, insertAtLine, replaceExact } from "./edits";
import type { EditOperations, LoadedFile } from "./files";
import { loadResolvedFile } from "./files";
import type { PendingChange, ToleranceUse } from "./prepared";
import { prepareWrite } from "./prepared";
import type { BatchEditArgs } from "./schemas";

/** One edit: which file, and what to do to its current text. */
export interface EditStep {
    tool: string;
    path: string;
    /** False only for edit_create_file. */
    mustExist: boolean;
    run(file: WorkingFile): ToolResult<EditOutcome>;
}

/** The step for one edit tool call (a batch item or a single tool's input). */
export function stepFor(edit: BatchEditArgs): EditStep {
    const base = { tool: edit.tool, path: edit.path, mustExist: true };
    switch (edit.tool) {
        case "edit_replace_exact":
            return { ...base, run: (file) => replaceExact(file, edit) };
        case "edit_insert_at_line":
            return { ...base, run: (file) => insertAtLine(file, edit) };
        case "edit_after_anchor":
        case "edit_before_anchor": {
            const mode = edit.tool === "edit_after_anchor" ? "insert_after" : "insert_before";
            return { ...base, run: (file) => anchorEdit(file, { ...edit, mode }) };
        }
        case "edit_replace_block":
            return {
                ...base,
                run: (file) =>
                    anchorEdit(file, {
                        mode: "replace_between",
                        anchor: edit.start_anchor,
                        anchor_end: edit.end_anchor,
                        content: edit.content,
                        inclusive: edit.inclusive,
                        occurrence: edit.occurrence,
                    }),
            };
        case "edit_by_anchor":
            return { ...base, run: (file) => anchorEdit(file, edit) };
        case "edit_create_file":
            return { ...base, mustExist: false, run: (file) => createFile(file, edit) };
    }
}

interface FileState {
    loaded: LoadedFile;
    working: WorkingFile;
}

function inBatch<T>(
    result: ToolResult<T>,
    index: number,
    steps: readonly EditStep[]
): ToolResult<T> {
    if (result.ok || steps.length === 1) return result;
    const step = steps[index];
    const head = `Edit ${index + 1} of ${steps.length} (${step?.tool} on ${step?.path}) failed; no file was changed.`;
    return {
        ok: false,
        error: { code: result.error.code, message: `${head}\n\n${result.error.message}` },
    };
}

async function stateFor(
    ctx: ToolContext,
    step: EditStep,
    files: Map<string, FileState>,
    ops: EditOperations
): Promise<ToolResult<FileState>> {
    if (/[/\\]$/.test(step.path)) {
        return toolError(
            "invalid_path",
            `"${step.path}" ends with a slash; give the path of a file.`
        );
    }
    const safe = await resolveWritablePath(ctx.repoRoot, step.path, {
        mustExist: false,
        addedRoots: ctx.addedRoots,
    });
    if (!safe.ok) return safe;
    let state = files.get(safe.data.realPath);
    if (!state) {
        const loaded = await loadResolvedFile(safe.data, false, ops);
        if (!loaded.ok) return loaded;
        const { relPath, original, doc } = loaded.data;
        state = {
            loaded: loaded.data,
            working: { relPath, exists: original !== null, doc: { ...doc } },
        };
        files.set(safe.data.realPath, state);
    }
    if (step.mustExist && !state.working.exists) {
        return toolError(
            "not_found",
            `${state.working.relPath} does not exist. Use find_files to look for the right path, or edit_create_file to create it.`
        );
    }
    return toolOk(state);
}

/**
 * Validates and computes every step, then prepares one write over the files
 * that really change. Nothing is written here.
 */
export async function prepareSteps(
    ctx: ToolContext,
    steps: readonly EditStep[],
    ops: EditOperations
): Promise<ToolResult<PreparedWrite>> {
    if (ctx.signal.aborted) return toolError("cancelled", "cancelled before the edit was prepared");
    const files = new Map<string, FileState>();
    const tolerance: ToleranceUse[] = [];
    for (let i = 0; i < steps.length; i++) {
        const step = steps[i] as EditStep;
        const state = await stateFor(ctx, step, files, ops);
        if (!state.ok) return inBatch(state, i, steps);
        const { working } = state.data;
        const outcome = step.run(working);
        if (!outcome.ok) return inBatch(outcome, i, steps);
        working.doc = { ...working.doc, text: outcome.data.text };
        working.exists = true;
        const kind = outcome.data.tolerance;
        if (kind)
            tolerance.push({
                path: working.relPath,
                line: outcome.data.line,
                kind,
                note: toleranceNote(kind),
            });
    }
    const changes: PendingChange[] = [];
    for (const { loaded, working } of files.values()) {
        if (loaded.original === null || working.doc.text !== loaded.doc.text) {
            changes.push({ file: loaded, newText: working.doc.text });
        }
    }
    if (changes.length === 0) {
        const paths = [...files.values()].map((f) => f.loaded.relPath).join(", ");
        return toolError("no_change", `This edit leaves ${paths} unchanged; nothing to do.`);
    }
    return toolOk(await prepareWrite(ctx, changes, tolerance, ops, ctx.checkpoint));
}

/** Options every edit tool factory takes. */
export interface EditToolOptions {
    /** Replace disk operations (tests inject failing writers). */
    ops?: Partial<EditOperations>;
}
