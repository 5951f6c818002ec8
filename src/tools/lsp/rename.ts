/**
 * A rename as a prepared write: the server's WorkspaceEdit applied to each
 * file's current text, reviewed like any edit and checkpointed when applied.
 * Edits outside the project and file operations (create, rename, delete) are
 * refused. A server whose view of a file is stale (an edit's range does not
 * cover the old name) has every changed file synced from disk and is asked
 * once more.
 */
import { fileURLToPath } from "node:url";
import type {
    PrepareRenameResult,
    Range,
    TextEdit,
    WorkspaceEdit,
} from "vscode-languageserver-protocol";
import type { EditOperations, LoadedFile } from "../editing/files";
import { loadResolvedFile } from "../editing/files";
import { type PendingChange, prepareWrite } from "../editing/prepared";
import { withEol } from "../editing/text-doc";
import { resolveWritablePath } from "../path-guard";
import { type PreparedWrite, type ToolContext, type ToolResult, toolError, toolOk } from "../types";
import { type PositionEncoding, lspText, offsetOf, textOfRange } from "./navigate-positions";
import {
    type AskedPosition,
    type CallSignal,
    type NavigationDeps,
    type PositionArgs,
    openAskedPosition,
    requestFailure,
} from "./navigate-target";

export interface RenameArgs extends PositionArgs {
    new_name: string;
}

interface FileEdits {
    uri: string;
    edits: TextEdit[];
}

/** The text edits per file, or why the edit cannot be applied as a plain edit. */
function editsOf(edit: WorkspaceEdit): ToolResult<FileEdits[]> {
    const byUri = new Map<string, TextEdit[]>();
    const add = (uri: string, edits: readonly TextEdit[]) =>
        byUri.set(uri, [...(byUri.get(uri) ?? []), ...edits]);
    for (const change of edit.documentChanges ?? []) {
        if ("kind" in change) {
            return toolError(
                "invalid_args",
                `The server's rename would also ${change.kind} a file; the lsp_rename tool only changes text. Rename the symbol with edit tools and move the file with a command.`
            );
        }
        const plain: TextEdit[] = [];
        for (const edit of change.edits) {
            // Snippets are for an editor's cursor; North never asks for them.
            if ("snippet" in edit) {
                return toolError(
                    "language_server_error",
                    "The server answered with a snippet edit."
                );
            }
            plain.push(edit);
        }
        add(change.textDocument.uri, plain);
    }
    if (!edit.documentChanges) {
        for (const [uri, edits] of Object.entries(edit.changes ?? {})) add(uri, edits);
    }
    return toolOk([...byUri].map(([uri, edits]) => ({ uri, edits })));
}

/** A file named by the server, loaded for writing when it lies in the project. */
async function loadTarget(
    ctx: ToolContext,
    uri: string,
    ops: EditOperations
): Promise<ToolResult<LoadedFile>> {
    let absPath: string;
    try {
        absPath = fileURLToPath(uri);
    } catch {
        return toolError(
            "path_outside_repo",
            `The rename would change ${uri}, which is not a file.`
        );
    }
    const safe = await resolveWritablePath(ctx.repoRoot, absPath, {
        mustExist: true,
        addedRoots: ctx.addedRoots,
    });
    if (!safe.ok) {
        return toolError(
            safe.error.code,
            `The rename would change ${absPath}: ${safe.error.message} Nothing was changed.`
        );
    }
    return loadResolvedFile(safe.data, true, ops);
}

type Applied = { ok: true; text: string } | { ok: false; stale: boolean; message: string };

/** `edits` applied to `file`'s text; stale when a replaced range does not hold `oldName`. */
function applyEdits(
    file: LoadedFile,
    edits: readonly TextEdit[],
    oldName: string,
    encoding: PositionEncoding
): Applied {
    const { text, eol } = file.doc;
    const doc = lspText(text);
    const spans = edits
        .map((edit) => ({
            start: offsetOf(doc, edit.range.start, encoding),
            end: offsetOf(doc, edit.range.end, encoding),
            covered: textOfRange(doc, edit.range, encoding),
            newText: edit.newText.includes("\n") ? withEol(edit.newText, eol) : edit.newText,
        }))
        .sort((a, b) => a.start - b.start || a.end - b.end);
    const stale = spans.find((s) => s.covered !== oldName && s.covered !== "");
    if (stale) {
        return {
            ok: false,
            stale: true,
            message: `the server placed an edit on "${stale.covered.slice(0, 40)}" in ${file.relPath}, not on "${oldName}"`,
        };
    }
    let out = "";
    let at = 0;
    for (const span of spans) {
        if (span.start < at) {
            return {
                ok: false,
                stale: false,
                message: `the server's edits overlap in ${file.relPath}`,
            };
        }
        out += text.slice(at, span.start) + span.newText;
        at = span.end;
    }
    return { ok: true, text: out + text.slice(at) };
}

/** The old name the server will replace: its prepareRename answer, else the identifier asked. */
async function oldNameAt(
    at: AskedPosition,
    deps: NavigationDeps,
    call: CallSignal
): Promise<ToolResult<string>> {
    const provider = at.handle.capabilities.renameProvider;
    if (!provider) return toolError("language_server_error", `${at.handle.name} cannot rename.`);
    if (typeof provider !== "object" || !provider.prepareProvider) return toolOk(at.word);
    let prepared: PrepareRenameResult | null;
    try {
        prepared = await at.handle.request<PrepareRenameResult | null>(
            "textDocument/prepareRename",
            { textDocument: { uri: at.uri }, position: at.position },
            call.signal
        );
    } catch (error) {
        return requestFailure(error, at.handle.name, call);
    }
    if (!prepared) {
        return toolError(
            "no_match",
            `${at.handle.name} cannot rename "${at.word}" at ${at.relPath}:${at.position.line + 1}; point at the symbol's name.`
        );
    }
    if ("placeholder" in prepared) return toolOk(prepared.placeholder);
    const range: Range | undefined = "start" in prepared ? prepared : undefined;
    return toolOk(range ? textOfRange(at.doc, range, at.encoding) : at.word);
}

/** Asks for the rename and applies it to every file's current text. */
async function renameOnce(
    at: AskedPosition,
    args: RenameArgs,
    oldName: string,
    context: { ctx: ToolContext; call: CallSignal; ops: EditOperations }
): Promise<ToolResult<{ changes: PendingChange[]; stale: string[] | null }>> {
    const { ctx, call, ops } = context;
    let answer: WorkspaceEdit | null;
    try {
        answer = await at.handle.request<WorkspaceEdit | null>(
            "textDocument/rename",
            { textDocument: { uri: at.uri }, position: at.position, newName: args.new_name },
            call.signal
        );
    } catch (error) {
        return requestFailure(error, at.handle.name, call);
    }
    const files = editsOf(answer ?? {});
    if (!files.ok) return files;
    if (files.data.length === 0) {
        return toolError(
            "no_match",
            `${at.handle.name} found nothing to rename at ${at.relPath}:${args.line}.`
        );
    }
    const changes: PendingChange[] = [];
    const loaded: string[] = [];
    for (const { uri, edits } of files.data) {
        const file = await loadTarget(ctx, uri, ops);
        if (!file.ok) return file;
        if (loaded.includes(file.data.realPath)) {
            // Two names (a link and its target) for one file: the edits' offsets cannot be merged safely.
            return toolError(
                "language_server_error",
                `${at.handle.name} edits ${file.data.relPath} under two names; rename it with the edit tools.`
            );
        }
        loaded.push(file.data.realPath);
        const applied = applyEdits(file.data, edits, oldName, at.encoding);
        if (!applied.ok && applied.stale) {
            const rest = await Promise.all(
                files.data.slice(loaded.length).map((f) => loadTarget(ctx, f.uri, ops))
            );
            const stale = [...loaded, ...rest.flatMap((r) => (r.ok ? [r.data.realPath] : []))];
            return toolOk({ changes, stale });
        }
        if (!applied.ok)
            return toolError("language_server_error", `${at.handle.name}: ${applied.message}.`);
        if (applied.text !== file.data.doc.text)
            changes.push({ file: file.data, newText: applied.text });
    }
    return toolOk({ changes, stale: null });
}

/** The rename the model asked for, as a write the user reviews. */
export async function prepareRename(
    deps: NavigationDeps,
    ctx: ToolContext,
    call: CallSignal,
    args: RenameArgs,
    ops: EditOperations
): Promise<ToolResult<PreparedWrite>> {
    if (/\s/.test(args.new_name) || args.new_name === "") {
        return toolError("invalid_args", `new_name "${args.new_name}" is not a name.`);
    }
    const at = await openAskedPosition(deps, ctx, call, args);
    if (!at.ok) return at;
    const oldName = await oldNameAt(at.data, deps, call);
    if (!oldName.ok) return oldName;
    if (oldName.data === "") {
        return toolError(
            "no_match",
            `No name at ${at.data.relPath}:${args.line}; give the symbol's text on that line, or a column on it.`
        );
    }
    if (oldName.data === args.new_name) {
        return toolError("no_change", `The symbol is already called ${args.new_name}.`);
    }
    const context = { ctx, call, ops };
    let round = await renameOnce(at.data, args, oldName.data, context);
    if (round.ok && round.data.stale) {
        // The server saw another text than the disk holds: give it the disk's and ask again.
        try {
            for (const path of round.data.stale) await at.data.handle.sync(path);
        } catch (error) {
            return requestFailure(error, at.data.handle.name, call);
        }
        round = await renameOnce(at.data, args, oldName.data, context);
        if (round.ok && round.data.stale) {
            return toolError(
                "file_changed",
                `${at.data.handle.name}'s view of the files differs from the disk; nothing was changed. Try again.`
            );
        }
    }
    if (!round.ok) return round;
    if (round.data.changes.length === 0) {
        return toolError("no_change", "The rename changes no file.");
    }
    const write = await prepareWrite(ctx, round.data.changes, [], ops, ctx.checkpoint);
    const count = round.data.changes.length;
    const where = count === 1 ? round.data.changes[0]?.file.relPath : `${count} files`;
    return toolOk({
        ...write,
        summary: `Renaming ${oldName.data} to ${args.new_name} in ${where}`,
    });
}
