/**
 * Typing in a picker narrows its options: a label that starts with what was
 * typed comes before one that contains it, which comes before one that
 * holds its letters in order (the label, then label and hint together).
 * Within a tier the picker's own order stays (a resume list is newest first).
 */
import { isSubsequence, scorePath } from "../../project/fuzzy";

export interface FilterableOption {
    label: string;
    hint?: string;
}

/** Below every label tier: the letters found only with the hint. */
const HINT_TIER = 50;

function tierOf(query: string, option: FilterableOption): number | null {
    const score = scorePath(query, option.label);
    // The tier only (the tie-break prefers short paths; a picker keeps its order).
    if (score !== null) return Math.floor(score / 100) * 100;
    const both = `${option.label} ${option.hint ?? ""}`.toLowerCase();
    if (both.includes(query) || isSubsequence(query, both)) return HINT_TIER;
    return null;
}

/** The options matching `query` (case-insensitive), best first; all of them for "". */
export function filterOptions<T extends FilterableOption>(
    options: readonly T[],
    query: string
): T[] {
    const q = query.trim().toLowerCase();
    if (q === "") return [...options];
    return options
        .map((option, order) => ({ option, order, tier: tierOf(q, option) }))
        .filter((m): m is { option: T; order: number; tier: number } => m.tier !== null)
        .sort((a, b) => b.tier - a.tier || a.order - b.order)
        .map((m) => m.option);
}
