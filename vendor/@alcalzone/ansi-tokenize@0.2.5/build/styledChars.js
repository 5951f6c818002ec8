import { ansiCodesToString } from "./ansiCodes.js";
import { diffAnsiCodes } from "./diff.js";
import { reduceAnsiCodesIncremental } from "./reduce.js";
export function styledCharsFromTokens(tokens) {
    let codes = [];
    const ret = [];
    for (const token of tokens) {
        if (token.type === "ansi") {
            codes = reduceAnsiCodesIncremental(codes, [token]);
        }
        else if (token.type === "char") {
            ret.push({
                ...token,
                styles: [...codes],
            });
        }
    }
    return ret;
}
function northSameStyles(a, b) {
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
}
//# sourceMappingURL=styledChars.js.map