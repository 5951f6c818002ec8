/** The text without its byte-order mark: editors and language servers count positions after it. */
export function withoutBom(text: string): string {
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
