/**
 * A path pasted alone into the composer (a terminal's drag and drop of a
 * screenshot, say) becomes an `@path` attachment when it names an image
 * file. The extension only preselects: the bytes decide when it is sent.
 */
const IMAGE_EXTENSION = /\.(png|jpe?g|gif|webp)$/i;

/** The path the paste names, or null when it is not a lone image path. */
export function pastedImagePath(pasted: string): string | null {
    let text = pasted.trim();
    if (text === "" || /[\r\n]/.test(text)) return null;
    // A sentence that ends in a file name is text: spaces must be quoted, escaped or URL-encoded.
    if (/\s/.test(text.replace(/\\\s/g, "")) && !/^(['"]).*\1$/.test(text)) return null;
    const quoted = /^(['"])(.*)\1$/.exec(text);
    if (quoted) text = quoted[2]!;
    else text = text.replace(/\\(.)/g, "$1"); // drag and drop escapes spaces: a\ b.png
    if (text.startsWith("file://")) {
        try {
            text = decodeURIComponent(new URL(text).pathname);
        } catch {
            return null;
        }
    }
    return IMAGE_EXTENSION.test(text) ? text : null;
}
