// Start-up and keystroke speed, same output: Ink turns every cell of every frame back into
// text with @alcalzone/ansi-tokenize's styledCharsToString, which diffs the styles of each
// cell against the previous one (three Sets and four arrays per cell, even for two unstyled
// blanks). Neighbouring cells almost always share their styles, and the diff of equal
// styles is empty, so the patched loop skips it then; test/build/ansi-tokenize-patch.test.ts
// checks the patched function against the original.
import { replaceOnce, sourcePatchEsbuild } from "./ink-patch.mjs";

/** The module that holds styledCharsToString, wherever node_modules puts it. */
export const ANSI_TOKENIZE_STYLED_CHARS =
    /[\\/]@alcalzone[\\/]ansi-tokenize[\\/]build[\\/]styledChars\.js$/;

const ORIGINAL = `export function styledCharsToString(chars) {
    let ret = "";
    for (let i = 0; i < chars.length; i++) {
        const char = chars[i];
        if (i === 0) {
            ret += ansiCodesToString(char.styles);
        }
        else {
            ret += ansiCodesToString(diffAnsiCodes(chars[i - 1].styles, char.styles));
        }
        ret += char.value;
        // reset active styles at the end of the string
        if (i === chars.length - 1) {
            ret += ansiCodesToString(diffAnsiCodes(char.styles, []));
        }
    }
    return ret;
}`;

const FAST = `function northSameStyles(a, b) {
    if (a === b) return true;
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
        if (a[i].code !== b[i].code || a[i].endCode !== b[i].endCode) return false;
    }
    return true;
}
export function styledCharsToString(chars) {
    let ret = "";
    for (let i = 0; i < chars.length; i++) {
        const char = chars[i];
        if (i === 0) {
            if (char.styles.length > 0) ret += ansiCodesToString(char.styles);
        }
        else if (!northSameStyles(chars[i - 1].styles, char.styles)) {
            ret += ansiCodesToString(diffAnsiCodes(chars[i - 1].styles, char.styles));
        }
        ret += char.value;
        if (i === chars.length - 1 && char.styles.length > 0) {
            ret += ansiCodesToString(diffAnsiCodes(char.styles, []));
        }
    }
    return ret;
}`;

/** Returns styledChars.js with the fast loop; throws when the original is not there exactly once. */
export function patchStyledCharsToString(
    source,
    file = "@alcalzone/ansi-tokenize/build/styledChars.js"
) {
    return replaceOnce(
        source,
        ORIGINAL,
        FAST,
        `The styledCharsToString patch no longer applies: ${file} does not contain the ` +
            "original function exactly once. @alcalzone/ansi-tokenize was upgraded or changed; " +
            "update or remove the patch in scripts/ansi-tokenize-patch.mjs."
    );
}

/** esbuild plugin: patches styledCharsToString, and fails the build when it was never bundled. */
export function ansiTokenizePatchEsbuild() {
    return sourcePatchEsbuild({
        name: "ansi-tokenize-styled-chars",
        filter: ANSI_TOKENIZE_STYLED_CHARS,
        patch: patchStyledCharsToString,
        missing:
            "@alcalzone/ansi-tokenize's build/styledChars.js was not bundled, so its speed patch was not applied; update scripts/ansi-tokenize-patch.mjs.",
    });
}
