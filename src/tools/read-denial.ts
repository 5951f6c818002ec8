/**
 * `Read(...)` deny rules inside the read and search tools: a denied file is
 * never read, listed or matched (ToolContext.readDenial).
 */
import path from "node:path";
import { type ToolContext, type ToolResult, toolError } from "./types";

/** The refusal for reading a denied path (as asked, or where its links lead), else null. */
export function refuseDeniedRead(
    ctx: ToolContext,
    shownPath: string,
    ...absPaths: string[]
): ToolResult<never> | null {
    if (!ctx.readDenial) return null;
    for (const absPath of absPaths) {
        const rule = ctx.readDenial(absPath);
        if (rule !== undefined) {
            return toolError(
                "denied",
                `reading ${shownPath} is denied by the permission rule ${rule}; do not try to read it another way`
            );
        }
    }
    return null;
}

/** Whether one repo-relative path may be read (for walks that filter as they go). */
export function isReadableRel(ctx: ToolContext, relPath: string): boolean {
    return ctx.readDenial?.(path.join(ctx.repoRoot, relPath)) === undefined;
}
