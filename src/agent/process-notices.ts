/**
 * Background processes' notices as the model reads them: one short text
 * block added to the next user message (a prompt, tool results, or a turn
 * the notice itself starts). Bounded: a few lines per process, a cap in total.
 */
import type { ProcessInfo, ProcessNotice } from "../tools/processes/types";
import { oneLine } from "../util/short-text";

/** Lines of a process's output shown per notice. */
export const NOTICE_LINES = 4;
const NOTICE_LINE_CHARS = 160;
const NOTICE_COMMAND_CHARS = 80;
/** The whole block; notices past it are only counted. */
export const NOTICE_BLOCK_CHARS = 1_500;

function ending(process: ProcessInfo): string {
    if (process.stopped) return "was stopped";
    if (typeof process.exitCode === "number") return `exited with code ${process.exitCode}`;
    return process.signal ? `was ended by ${process.signal}` : "exited";
}

function noticeText(notice: ProcessNotice): string {
    const { process } = notice;
    const head = `[background] ${process.id} \`${oneLine(process.command, NOTICE_COMMAND_CHARS)}\``;
    const lines = notice.lines
        .slice(-NOTICE_LINES)
        .map((l) => `  ${oneLine(l, NOTICE_LINE_CHARS)}`);
    if (notice.kind === "matched") {
        const pattern = notice.pattern === undefined ? "" : ` /${notice.pattern}/`;
        return [`${head} printed a line matching${pattern}:`, ...lines].join("\n");
    }
    const last = lines.length > 0 ? "; last lines:" : " (no output)";
    return [`${head} ${ending(process)}${last}`, ...lines].join("\n");
}

/** The block for `notices` (oldest first), or null when there are none. */
export function processNoticeBlock(notices: readonly ProcessNotice[]): string | null {
    if (notices.length === 0) return null;
    const parts: string[] = [];
    let used = 0;
    for (const [i, notice] of notices.entries()) {
        const text = noticeText(notice);
        if (parts.length > 0 && used + text.length > NOTICE_BLOCK_CHARS) {
            const rest = notices.slice(i).map((n) => `${n.process.id} ${n.kind}`);
            parts.push(`[background] also ${rest.join(", ")}: process_read shows their output.`);
            break;
        }
        parts.push(text.slice(0, NOTICE_BLOCK_CHARS));
        used += text.length;
    }
    return parts.join("\n");
}
