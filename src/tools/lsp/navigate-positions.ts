/**
 * Positions between the model and a language server. The model counts
 * 1-based lines and characters (code points); a server counts 0-based lines
 * and, within a line, UTF-16 code units unless it chose UTF-8 or UTF-32
 * (`positionEncoding`). Lines end at "\r\n", "\n" or a lone "\r", as LSP says.
 */
import type { Position, PositionEncodingKind, Range } from "vscode-languageserver-protocol";

export type PositionEncoding = "utf-8" | "utf-16" | "utf-32";

/** The encoding a server's capabilities chose; UTF-16 when it said nothing. */
export function encodingOf(chosen: PositionEncodingKind | undefined): PositionEncoding {
    return chosen === "utf-8" || chosen === "utf-32" ? chosen : "utf-16";
}

/** A text split as LSP splits it, with each line's start offset (string index). */
export interface LspText {
    text: string;
    /** Offset at which each line starts; index 0 is line 0. */
    starts: number[];
}

export function lspText(text: string): LspText {
    const starts = [0];
    for (let i = 0; i < text.length; i++) {
        const code = text.charCodeAt(i);
        if (code === 10) starts.push(i + 1);
        else if (code === 13) {
            if (text.charCodeAt(i + 1) === 10) i++;
            starts.push(i + 1);
        }
    }
    return { text, starts };
}

/** Line `line` (0-based) without its line break; "" past the end. */
export function lineAt(doc: LspText, line: number): string {
    const start = doc.starts[line];
    if (start === undefined) return "";
    const next = doc.starts[line + 1] ?? doc.text.length;
    let end = next;
    if (end > start && doc.text.charCodeAt(end - 1) === 10) end--;
    if (end > start && doc.text.charCodeAt(end - 1) === 13) end--;
    return doc.text.slice(start, end);
}

/** Units one code point takes in `encoding`. */
function unitsOf(codePoint: number, encoding: PositionEncoding): number {
    if (encoding === "utf-32") return 1;
    if (encoding === "utf-16") return codePoint > 0xffff ? 2 : 1;
    if (codePoint < 0x80) return 1;
    if (codePoint < 0x800) return 2;
    return codePoint < 0x10000 ? 3 : 4;
}

/** String index in `lineText` of a server's `character`, clamped to the line's end. */
export function indexOfCharacter(
    lineText: string,
    character: number,
    encoding: PositionEncoding
): number {
    let units = 0;
    let index = 0;
    while (index < lineText.length && units < character) {
        const codePoint = lineText.codePointAt(index) ?? 0;
        units += unitsOf(codePoint, encoding);
        index += codePoint > 0xffff ? 2 : 1;
    }
    return index;
}

/** A server's `character` for string index `index` of `lineText`. */
export function characterOfIndex(
    lineText: string,
    index: number,
    encoding: PositionEncoding
): number {
    let units = 0;
    for (let i = 0; i < index && i < lineText.length;) {
        const codePoint = lineText.codePointAt(i) ?? 0;
        units += unitsOf(codePoint, encoding);
        i += codePoint > 0xffff ? 2 : 1;
    }
    return units;
}

/** 1-based code-point column of string index `index` in `lineText`. */
export function columnOfIndex(lineText: string, index: number): number {
    return [...lineText.slice(0, index)].length + 1;
}

/** String index of 1-based code-point column `column`; null past the line's end. */
export function indexOfColumn(lineText: string, column: number): number | null {
    let index = 0;
    for (let c = 1; c < column; c++) {
        if (index >= lineText.length) return null;
        index += (lineText.codePointAt(index) ?? 0) > 0xffff ? 2 : 1;
    }
    return index <= lineText.length ? index : null;
}

/** Offset in `doc.text` of a server position; clamped to the line, and to the text's end. */
export function offsetOf(doc: LspText, position: Position, encoding: PositionEncoding): number {
    const start = doc.starts[position.line];
    if (start === undefined) return doc.text.length;
    return start + indexOfCharacter(lineAt(doc, position.line), position.character, encoding);
}

/** The text a server range covers in `doc`. */
export function textOfRange(doc: LspText, range: Range, encoding: PositionEncoding): string {
    return doc.text.slice(offsetOf(doc, range.start, encoding), offsetOf(doc, range.end, encoding));
}
