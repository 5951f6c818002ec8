/** Edit distance between two strings (insert, delete, substitute all cost 1). */
export function levenshtein(a: string, b: string): number {
    if (a === b) return 0;
    if (a.length === 0) return b.length;
    if (b.length === 0) return a.length;
    let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
    let current = new Array<number>(b.length + 1).fill(0);
    for (let i = 1; i <= a.length; i++) {
        current[0] = i;
        for (let j = 1; j <= b.length; j++) {
            const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
            current[j] = Math.min(
                (previous[j] ?? 0) + 1,
                (current[j - 1] ?? 0) + 1,
                (previous[j - 1] ?? 0) + cost
            );
        }
        [previous, current] = [current, previous];
    }
    return previous[b.length] ?? 0;
}

/** The candidates closest to `input`, best first; substring matches count as close. */
export function closestMatches(input: string, candidates: string[], limit = 3): string[] {
    const needle = input.toLowerCase();
    const scored = candidates.map((candidate) => {
        const hay = candidate.toLowerCase();
        const distance = levenshtein(needle, hay);
        const contains = hay.includes(needle) || needle.includes(hay);
        return { candidate, score: contains ? Math.min(distance, 1) : distance };
    });
    const threshold = Math.max(3, Math.ceil(needle.length / 2));
    return scored
        .filter((s) => s.score <= threshold)
        .sort((a, b) => a.score - b.score || a.candidate.localeCompare(b.candidate))
        .slice(0, limit)
        .map((s) => s.candidate);
}
