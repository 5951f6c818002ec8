/**
 * Streaming parser for NORTH_FILE blocks in assistant text:
 *
 *     <NORTH_FILE path="src/a.ts">            (or mode="append" to continue)
 *     ...file content...
 *     </NORTH_FILE>
 *
 * Fed arbitrary chunks (a tag may be split anywhere), it emits the text
 * outside blocks as `display_text` and each block as `session_start`,
 * `session_content`..., `session_complete`. Text that could still become a
 * tag is held back until the next chunk decides. One newline right after the
 * open tag and one right after the close tag belong to the tags.
 */

export type FileBlockMode = "create" | "append";

export type FileBlockEvent =
    | { type: "display_text"; text: string }
    | { type: "session_start"; path: string; mode: FileBlockMode }
    | { type: "session_content"; text: string }
    | { type: "session_complete"; path: string }
    /** The stream ended inside a block (no close tag): the content so far is partial. */
    | { type: "session_incomplete"; path: string };

const OPEN = "<NORTH_FILE";
const CLOSE = "</NORTH_FILE>";
/** An open tag longer than this is not taken for one. */
const MAX_TAG = 2048;

/** Length of the longest suffix of `text` that is a proper prefix of `tag`. */
function partialTagLength(text: string, tag: string): number {
    const max = Math.min(text.length, tag.length - 1);
    for (let length = max; length > 0; length--) {
        if (text.endsWith(tag.slice(0, length))) return length;
    }
    return 0;
}

interface OpenTag {
    path: string;
    mode: FileBlockMode;
}

/** Attributes of a complete open tag, or null when it has no usable path. */
export function parseOpenTag(tag: string): OpenTag | null {
    const attributes = new Map<string, string>();
    const pattern = /([A-Za-z_][\w-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
    for (const match of tag.slice(OPEN.length).matchAll(pattern)) {
        attributes.set((match[1] ?? "").toLowerCase(), match[2] ?? match[3] ?? "");
    }
    const path = attributes.get("path")?.trim();
    if (!path) return null;
    return {
        path,
        mode: attributes.get("mode")?.trim().toLowerCase() === "append" ? "append" : "create",
    };
}

/** Index of the `>` ending the tag that starts at `from`, skipping quoted values; -1 if not yet seen. */
function tagEnd(text: string, from: number): number {
    let quote: string | null = null;
    for (let i = from; i < text.length; i++) {
        const ch = text[i];
        if (quote) {
            if (ch === quote) quote = null;
        } else if (ch === '"' || ch === "'") quote = ch;
        else if (ch === ">") return i;
    }
    return -1;
}

export class FileBlockParser {
    private buffer = "";
    private path: string | null = null;
    /** Drop one newline at the start of the block content. */
    private atContentStart = false;
    /** Drop one newline right after a close tag. */
    private afterClose = false;

    /** Outside any block with nothing held back: plain text without "<" passes straight through. */
    get idle(): boolean {
        return this.path === null && this.buffer === "" && !this.afterClose;
    }

    /** Path of the block being streamed, or null outside blocks. */
    get activePath(): string | null {
        return this.path;
    }

    /** Feeds one chunk; returns the events it completes, in order. */
    push(chunk: string): FileBlockEvent[] {
        this.buffer += chunk;
        const events: FileBlockEvent[] = [];
        while (this.path === null ? this.scanText(events) : this.scanBlock(events)) {
            // each pass consumes input; stop when more is needed
        }
        return events;
    }

    /** Ends the stream: flushes held-back text and reports an unclosed block. */
    end(): FileBlockEvent[] {
        const events: FileBlockEvent[] = [];
        if (this.path !== null) {
            // Held-back text here can only be the start of a cut-off close tag.
            events.push({ type: "session_incomplete", path: this.path });
        } else if (this.buffer !== "") {
            events.push({ type: "display_text", text: this.buffer });
        }
        this.buffer = "";
        this.path = null;
        this.atContentStart = false;
        this.afterClose = false;
        return events;
    }

    /** Drops one leading "\n" or "\r\n"; false while that cannot be decided yet. */
    private dropLeadingNewline(): boolean {
        if (this.buffer === "" || this.buffer === "\r") return false;
        if (this.buffer.startsWith("\n")) this.buffer = this.buffer.slice(1);
        else if (this.buffer.startsWith("\r\n")) this.buffer = this.buffer.slice(2);
        return true;
    }

    /** Outside a block. Returns true when it consumed something and should run again. */
    private scanText(events: FileBlockEvent[]): boolean {
        if (this.afterClose) {
            if (!this.dropLeadingNewline()) return false;
            this.afterClose = false;
        }
        const emit = (text: string) => {
            if (text !== "") events.push({ type: "display_text", text });
        };
        const at = this.buffer.indexOf(OPEN);
        if (at === -1) {
            const keep = partialTagLength(this.buffer, OPEN);
            emit(this.buffer.slice(0, this.buffer.length - keep));
            this.buffer = this.buffer.slice(this.buffer.length - keep);
            return false;
        }
        emit(this.buffer.slice(0, at));
        this.buffer = this.buffer.slice(at);
        const next = this.buffer[OPEN.length];
        if (next === undefined) return false;
        const end = /[\s>]/.test(next) ? tagEnd(this.buffer, OPEN.length) : -2;
        if (end === -1 && this.buffer.length <= MAX_TAG) return false;
        const tag = end >= 0 ? parseOpenTag(this.buffer.slice(0, end + 1)) : null;
        if (!tag) {
            // Not a NORTH_FILE tag after all: show its "<" and scan on.
            emit("<");
            this.buffer = this.buffer.slice(1);
            return true;
        }
        this.buffer = this.buffer.slice(end + 1);
        this.path = tag.path;
        this.atContentStart = true;
        events.push({ type: "session_start", path: tag.path, mode: tag.mode });
        return true;
    }

    /** Inside a block. Returns true when it consumed something and should run again. */
    private scanBlock(events: FileBlockEvent[]): boolean {
        if (this.atContentStart) {
            if (!this.dropLeadingNewline()) return false;
            this.atContentStart = false;
        }
        const emit = (text: string) => {
            if (text !== "") events.push({ type: "session_content", text });
        };
        const at = this.buffer.indexOf(CLOSE);
        if (at === -1) {
            const keep = partialTagLength(this.buffer, CLOSE);
            emit(this.buffer.slice(0, this.buffer.length - keep));
            this.buffer = this.buffer.slice(this.buffer.length - keep);
            return false;
        }
        emit(this.buffer.slice(0, at));
        events.push({ type: "session_complete", path: this.path ?? "" });
        this.buffer = this.buffer.slice(at + CLOSE.length);
        this.path = null;
        this.afterClose = true;
        return true;
    }
}
