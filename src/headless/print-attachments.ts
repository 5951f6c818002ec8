/**
 * `@path` mentions in a print-mode prompt: the chat attaches files picked in
 * the composer; print mode finds them in the text and attaches them through
 * the same loader and context block.
 */
import {
    type AttachmentRules,
    type OutlineOf,
    loadAttachments,
    renderAttachedFiles,
} from "../project/attachments";
import { loadAttachedImages } from "../project/images";
import { looksLikePath, mentionedPaths } from "../project/mentions";
import type { ImageBlock } from "../providers/types";

export interface PrintAttachments {
    /** The "# Attached Files" block for the run, or undefined when nothing was attached. */
    context: string | undefined;
    attached: string[];
    /** Attached image files, sent as image blocks with the prompt. */
    images: ImageBlock[];
    /** Image files North would not send (too large, corrupt), with the reason. */
    refused: Array<{ path: string; reason: string }>;
    /** Image files scaled down to be sent, with how. */
    scaled: Array<{ path: string; note: string }>;
    /** Mentioned like a path but missing, unreadable or outside the project: sent as written. */
    missing: string[];
}

export async function attachMentionedFiles(
    repoRoot: string,
    prompt: string,
    outlineOf: () => Promise<OutlineOf>,
    rules: AttachmentRules = {}
): Promise<PrintAttachments> {
    const paths = mentionedPaths(prompt);
    if (paths.length === 0) {
        return {
            context: undefined,
            attached: [],
            images: [],
            refused: [],
            scaled: [],
            missing: [],
        };
    }
    const denied = new Set<string>();
    const onDenied = (path: string, rule: string): void => {
        denied.add(path);
        rules.onDenied?.(path, rule);
    };
    const images = await loadAttachedImages(repoRoot, paths, rules.readDenial, onDenied);
    const textPaths = paths.filter((p) => !images.handled.has(p));
    const files = await loadAttachments(repoRoot, textPaths, await outlineOf(), {
        readDenial: rules.readDenial,
        onDenied,
    });
    const refusedPaths = new Set(images.refused.map((r) => r.path));
    const attached = [
        ...files.map((f) => f.path),
        ...paths.filter((p) => images.handled.has(p) && !denied.has(p) && !refusedPaths.has(p)),
    ];
    return {
        context: renderAttachedFiles(files) || undefined,
        attached,
        images: images.images,
        refused: images.refused,
        scaled: images.scaled,
        missing: paths.filter(
            (p) =>
                !attached.includes(p) && !denied.has(p) && !refusedPaths.has(p) && looksLikePath(p)
        ),
    };
}
