/**
 * The outline shown for an attached file: its top-level symbols (and their
 * members) with lines, from the same parsers the structure tools use.
 */
import { languageOf } from "../tools/structure/language";
import { extractSymbols, symbolLabel } from "../tools/structure/symbols";

const MAX_OUTLINE = 30;

export function outlineOf(path: string, text: string): string[] {
    const language = languageOf(path);
    if (!language || language.parser === "none") return [];
    try {
        const symbols = extractSymbols(text.split("\n"), language.parser, { signatures: 0 });
        return symbols
            .filter((s) => s.level <= 1)
            .slice(0, MAX_OUTLINE)
            .map((s) => `${symbolLabel(s)} (line ${s.line})`);
    } catch {
        return [];
    }
}
