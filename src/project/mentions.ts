/**
 * What an `@` mention is, in the chat's composer and in a print-mode prompt
 * alike: `@` at the start or after whitespace, then a path with no whitespace
 * and no second `@`. A bare `@`, a diff's `@@ -1,3 +1,4 @@` and an address
 * (`me@example.com`) are not mentions.
 */

/** The mention being typed at the end of `before` (the text up to the cursor), its query without `@`. */
export function mentionAtEnd(before: string): { start: number; query: string } | null {
    const match = /(?:^|\s)@([^\s@]*)$/.exec(before);
    if (!match) return null;
    const query = match[1] ?? "";
    return { start: before.length - query.length - 1, query };
}

/** Punctuation that ends a sentence rather than a path (`what is in @a.txt?`). */
const TRAILING = /[.,;:!?)\]}'"`]+$/;

/** Characters of a path as one is written in a prompt: no quotes, brackets or parentheses. */
const PATH = /^[\p{L}\p{N}._\-/~+]+$/u;

/**
 * The paths mentioned in `text`, in order, once each: every whole `@` word
 * (a mention followed by whitespace or the end) whose rest, sentence
 * punctuation dropped, is made of path characters (a decorator call such as
 * `@app.route("/")` is not one).
 */
export function mentionedPaths(text: string): string[] {
    const paths: string[] = [];
    for (const match of text.matchAll(/(?:^|\s)@([^\s@]+)(?=\s|$)/g)) {
        const path = match[1]!.replace(TRAILING, "");
        if (PATH.test(path) && !paths.includes(path)) paths.push(path);
    }
    return paths;
}

/**
 * Whether a mention that names no file should be reported: one that looks
 * like a path (a folder or an extension in it). A bare word (`@Override`,
 * `@property` in a piped diff) is attached when such a file exists and is
 * passed over quietly when not.
 */
export function looksLikePath(mention: string): boolean {
    return mention.includes("/") || mention.includes(".");
}
