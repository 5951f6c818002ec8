/** Helpers for the tools' `digest` members: cut long text, tell the model how to get the rest. */

export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The fields a digested result carries: its `outputId` and what was left out. */
export function digestNote(outputId: string, what: string): JsonRecord {
    return {
        outputId,
        digestNote: `${what} Call expand_output with {"outputId":"${outputId}"} for the full output (kept until the next user message).`,
    };
}

/** The first `head` and last `tail` lines with a count between them; null when nothing would be cut. */
export function headTail(
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
