/**
 * Fuzzy file matching for @ mentions: an exact file name beats a name
 * prefix, which beats a name containing the query, which beats a path
 * containing it, which beats a subsequence. Ties go to shorter paths.
 */

export const MATCH_TIERS = {
    exact: 1000,
    prefix: 800,
    nameContains: 600,
    pathContains: 400,
    nameSubsequence: 200,
    pathSubsequence: 100,
} as const;

function fileNameOf(path: string): string {
    const slash = path.lastIndexOf("/");
    return slash === -1 ? path : path.slice(slash + 1);
}

/** True when the characters of `query` appear in `text` in order. */
export function isSubsequence(query: string, text: string): boolean {
    let at = 0;
    for (const ch of query) {
        at = text.indexOf(ch, at);
        if (at === -1) return false;
        at += ch.length;
    }
    return true;
}

/**
 * The score of `path` for `query` (case-insensitive), or null when it does not
 * match. Higher is better; the tier dominates, the length breaks ties.
 */
export function scorePath(query: string, path: string): number | null {
    const q = query.toLowerCase();
    const p = path.toLowerCase();
    const name = fileNameOf(p);
    // Within a tier, shorter names and paths come first (at most 99 points).
    const tieBreak = Math.max(0, 99 - Math.floor(p.length / 4) - (name.length - q.length));
    if (q === "") return tieBreak;
    let tier: number;
    if (name === q) tier = MATCH_TIERS.exact;
    else if (name.startsWith(q)) tier = MATCH_TIERS.prefix;
    else if (name.includes(q)) tier = MATCH_TIERS.nameContains;
    else if (p.includes(q)) tier = MATCH_TIERS.pathContains;
    else if (isSubsequence(q, name)) tier = MATCH_TIERS.nameSubsequence;
    else if (isSubsequence(q, p)) tier = MATCH_TIERS.pathSubsequence;
    else return null;
    return tier + Math.max(0, Math.min(99, tieBreak));
}

/** The best `limit` paths for `query`, best first (stable for equal scores). */
export function fuzzyFilter(query: string, paths: readonly string[], limit = 10): string[] {
    const scored: Array<{ path: string; score: number; order: number }> = [];
    paths.forEach((path, order) => {
        const score = scorePath(query, path);
        if (score !== null) scored.push({ path, score, order });
    });
    scored.sort((a, b) => b.score - a.score || a.order - b.order);
    return scored.slice(0, limit).map((s) => s.path);
}
