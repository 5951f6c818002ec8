/**
 * A large paste is held aside and shown in the composer as one chip,
 * `[Pasted N lines]`: the editor's text carries a single private-use
 * character for it (so the cursor, Backspace and undo treat it as one
 * character), and the paste's text replaces it when the prompt is sent.
 */

/** Chip character → the text it stands for. */
export type Pastes = Readonly<Record<string, string>>;

export const NO_PASTES: Pastes = Object.freeze({});

/** A paste of more lines than this, or more characters, becomes a chip. */
export const CHIP_MIN_LINES = 10;
export const CHIP_MIN_CHARS = 2000;

/** Chips use Supplementary Private Use Area-B, which typed or pasted text practically never holds. */
const FIRST_CHIP = 0x100000;
const LAST_CHIP = 0x10fffd;

function lineCount(text: string): number {
    const lines = text.split("\n").length;
    return text.endsWith("\n") ? lines - 1 : lines;
}

export function isLargePaste(text: string): boolean {
    return lineCount(text) > CHIP_MIN_LINES || text.length > CHIP_MIN_CHARS;
}

/** What the chip shows: `[Pasted 42 lines]`, or the size of one long line. */
export function chipLabel(text: string): string {
    const lines = lineCount(text);
    if (lines > 1) return `[Pasted ${lines.toLocaleString("en-US")} lines]`;
    return `[Pasted ${text.length.toLocaleString("en-US")} characters]`;
}

export function isChip(ch: string, pastes: Pastes): boolean {
    return Object.hasOwn(pastes, ch);
}

/** The chips of `text` with their labels, for drawing. */
export function chipLabels(text: string, pastes: Pastes): ReadonlyMap<string, string> {
    const labels = new Map<string, string>();
    for (const [ch, pasted] of Object.entries(pastes)) {
        if (text.includes(ch)) labels.set(ch, chipLabel(pasted));
    }
    return labels;
}

/** The text with every chip replaced by what was pasted. */
export function expandPastes(text: string, pastes: Pastes): string {
    let out = "";
    for (const ch of text) out += isChip(ch, pastes) ? (pastes[ch] as string) : ch;
    return out;
}

/** A chip character used neither in `text` nor by another chip. */
function freeChip(text: string, pastes: Pastes): string {
    for (let code = FIRST_CHIP; code <= LAST_CHIP; code++) {
        const ch = String.fromCodePoint(code);
        if (!isChip(ch, pastes) && !text.includes(ch)) return ch;
    }
    throw new Error("no free paste chip");
}

/** A new chip for `pasted`: its character and the chips with it added. */
export function addChip(
    text: string,
    pastes: Pastes,
    pasted: string
): { chip: string; pastes: Pastes } {
    const chip = freeChip(text, pastes);
    return { chip, pastes: { ...pastes, [chip]: pasted } };
}

/**
 * Only chips still in `text` (an undo step or the stash may hold the rest),
 * with any that plain `inserted` text would collide with moved to a free character.
 */
export function keepChips(
    text: string,
    pastes: Pastes,
    inserted = ""
): { text: string; pastes: Pastes } {
    let kept: Record<string, string> = {};
    let out = text;
    for (const [ch, pasted] of Object.entries(pastes)) {
        if (!out.includes(ch)) continue;
        if (inserted.includes(ch)) {
            const moved = freeChip(out + inserted, { ...pastes, ...kept });
            out = out.split(ch).join(moved);
            kept = { ...kept, [moved]: pasted };
        } else kept = { ...kept, [ch]: pasted };
    }
    return { text: out, pastes: kept };
}
