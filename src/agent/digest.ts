/**
 * Tool output digesting: the model gets a condensed view of large outputs,
 * the full output stays in a per-turn cache it can fetch with expand_output.
 */

/** Full outputs of the current user message, by id. Cleared when a new message starts. */
export class OutputCache {
    private readonly outputs = new Map<string, unknown>();
    private counter = 0;

    put(data: unknown): string {
        const id = `out-${++this.counter}`;
        this.outputs.set(id, data);
        return id;
    }

    get(id: string): unknown {
        return this.outputs.get(id);
    }

    clear(): void {
        this.outputs.clear();
    }
}

/** A result the model already bounded to this many lines is never digested. */
export const BOUNDED_RANGE_LINES = 60;
const READ_HEAD = 50;
const READ_TAIL = 10;
const SEARCH_KEEP = 10;
const FILES_KEEP = 20;
const SHELL_HEAD = 20;
const SHELL_TAIL = 10;

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}

function note(outputId: string, what: string): Json {
    return {
        outputId,
        digestNote: `${what} Call expand_output with {"outputId":"${outputId}"} for the full output (kept until the next user message).`,
    };
}

function headTail(
    text: string,
    head: number,
    tail: number
): { text: string; omitted: number } | null {
    const lines = text.split("\n");
    if (lines.length <= head + tail + 1) return null;
    const omitted = lines.length - head - tail;
    return {
        text: [
            ...lines.slice(0, head),
            `... ${omitted} more lines ...`,
            ...lines.slice(-tail),
        ].join("\n"),
        omitted,
    };
}

function requestedRange(input: unknown): number | null {
    if (!isRecord(input) || !isRecord(input.range)) return null;
    const { start, end } = input.range;
    return typeof start === "number" && typeof end === "number" ? end - start + 1 : null;
}

/**
 * Returns the data to send the model: the original when it is already compact,
 * or a digest carrying `outputId` and `digestNote`, the full data cached.
 */
export function digestToolOutput(
    toolName: string,
    input: unknown,
    data: unknown,
    cache: OutputCache
): unknown {
    if (!isRecord(data)) return data;
    switch (toolName) {
        case "read_file": {
            if (typeof data.content !== "string") return data;
            const range = requestedRange(input);
            if (range !== null && range <= BOUNDED_RANGE_LINES) return data;
            const cut = headTail(data.content, READ_HEAD, READ_TAIL);
            if (!cut) return data;
            const id = cache.put(data);
            return {
                ...data,
                content: cut.text,
                ...note(
                    id,
                    `Showing the first ${READ_HEAD} and last ${READ_TAIL} lines; ${cut.omitted} lines in between omitted. Prefer read_file with a range of at most ${BOUNDED_RANGE_LINES} lines.`
                ),
            };
        }
        case "search_text": {
            if (!Array.isArray(data.matches) || data.matches.length <= SEARCH_KEEP) return data;
            const id = cache.put(data);
            return {
                ...data,
                matches: data.matches.slice(0, SEARCH_KEEP),
                shownMatches: SEARCH_KEEP,
                ...note(
                    id,
                    `Showing ${SEARCH_KEEP} of ${data.matches.length} returned matches (total ${String(data.totalMatches ?? data.matches.length)}).`
                ),
            };
        }
        case "find_files": {
            if (!Array.isArray(data.files) || data.files.length <= FILES_KEEP) return data;
            const id = cache.put(data);
            return {
                ...data,
                files: data.files.slice(0, FILES_KEEP),
                shownFiles: FILES_KEEP,
                ...note(
                    id,
                    `Showing ${FILES_KEEP} of ${data.files.length} files ... ${data.files.length - FILES_KEEP} more.`
                ),
            };
        }
        case "shell_run": {
            if (typeof data.output !== "string") return data;
            const cut = headTail(data.output, SHELL_HEAD, SHELL_TAIL);
            if (!cut) return data;
            const id = cache.put(data);
            return {
                ...data,
                output: cut.text,
                ...note(
                    id,
                    `Showing the first ${SHELL_HEAD} and last ${SHELL_TAIL} lines of output; ${cut.omitted} lines omitted.`
                ),
            };
        }
        default:
            return data;
    }
}
