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

/** Punctuation that ends a sentence rather than a path (`what is in @a.txt?`). */
const TRAILING = /[.,;:!?)\]}'"`]+$/;

/** The paths mentioned as `@path` (at the start or after whitespace), in order, once each. */
export function mentionedPaths(prompt: string): string[] {
    const paths: string[] = [];
    for (const match of prompt.matchAll(/(?:^|\s)@(\S+)/g)) {
        const path = match[1]!.replace(TRAILING, "");
        if (path && !paths.includes(path)) paths.push(path);
    }
    return paths;
}

export interface PrintAttachments {
    /** The "# Attached Files" block for the run, or undefined when nothing was attached. */
    context: string | undefined;
    attached: string[];
    /** Mentioned but missing, unreadable or outside the project: sent as written. */
    missing: string[];
}

export async function attachMentionedFiles(
    repoRoot: string,
    prompt: string,
    outlineOf: () => Promise<OutlineOf>,
    rules: AttachmentRules = {}
): Promise<PrintAttachments> {
    const paths = mentionedPaths(prompt);
    if (paths.length === 0) return { context: undefined, attached: [], missing: [] };
    const denied = new Set<string>();
    const files = await loadAttachments(repoRoot, paths, await outlineOf(), {
        readDenial: rules.readDenial,
        onDenied: (path, rule) => {
            denied.add(path);
            rules.onDenied?.(path, rule);
        },
    });
    const attached = files.map((f) => f.path);
    return {
        context: renderAttachedFiles(files) || undefined,
        attached,
        missing: paths.filter((p) => !attached.includes(p) && !denied.has(p)),
    };
}
