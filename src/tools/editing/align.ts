/**
 * Line alignment for tolerant replacements: which lines of the new text are
 * old lines copied unchanged (by a caller-supplied equality) and which are new.
 * Search blocks are small, so a plain LCS table is fine; very large blocks
 * fall back to matching only the common prefix and suffix.
 */

export type AlignedLine = { kind: "same"; oldIndex: number } | { kind: "added"; line: string };

/** LCS table cells allowed before falling back to prefix/suffix alignment. */
const MAX_CELLS = 4_000_000;

/** The new lines in order, each marked as a copy of an old line or as added. */
export function alignLines(
    oldLines: readonly string[],
    newLines: readonly string[],
    equal: (a: string, b: string) => boolean
): AlignedLine[] {
    const eq = (i: number, j: number) => equal(oldLines[i] ?? "", newLines[j] ?? "");
    let prefix = 0;
    while (prefix < oldLines.length && prefix < newLines.length && eq(prefix, prefix)) prefix++;
    let oldEnd = oldLines.length;
    let newEnd = newLines.length;
    while (oldEnd > prefix && newEnd > prefix && eq(oldEnd - 1, newEnd - 1)) {
        oldEnd--;
        newEnd--;
    }
    const out: AlignedLine[] = [];
    for (let i = 0; i < prefix; i++) out.push({ kind: "same", oldIndex: i });
    const n = oldEnd - prefix;
    const m = newEnd - prefix;
    if (n > 0 && m > 0 && (n + 1) * (m + 1) <= MAX_CELLS) {
        // lcs[i][j]: longest common subsequence of old[prefix+i..oldEnd) and new[prefix+j..newEnd).
        const width = m + 1;
        const lcs = new Int32Array((n + 1) * width);
        for (let i = n - 1; i >= 0; i--) {
            for (let j = m - 1; j >= 0; j--) {
                lcs[i * width + j] = eq(prefix + i, prefix + j)
                    ? (lcs[(i + 1) * width + j + 1] ?? 0) + 1
                    : Math.max(lcs[(i + 1) * width + j] ?? 0, lcs[i * width + j + 1] ?? 0);
            }
        }
        let i = 0;
        let j = 0;
        while (j < m) {
            if (i < n && eq(prefix + i, prefix + j)) {
                out.push({ kind: "same", oldIndex: prefix + i });
                i++;
                j++;
            } else if (i < n && (lcs[(i + 1) * width + j] ?? 0) >= (lcs[i * width + j + 1] ?? 0)) {
                i++;
            } else {
                out.push({ kind: "added", line: newLines[prefix + j] ?? "" });
                j++;
            }
        }
    } else {
        for (let j = prefix; j < newEnd; j++) out.push({ kind: "added", line: newLines[j] ?? "" });
    }
    for (let k = 0; k < oldLines.length - oldEnd; k++)
        out.push({ kind: "same", oldIndex: oldEnd + k });
    return out;
}
