/**
 * What a `sed` script does besides editing text: GNU sed's `e` command and
 * `s///e` flag run shell commands, `w FILE` and `s///w FILE` write files.
 * An allow rule for `sed` must not let either past the rules.
 */
import type { Word } from "./command-words";

export interface SedEffects {
    /** Shell commands the script runs; null for one only known when it runs (`s///e`, a bare `e`). */
    runs: (string | null)[];
    /** Files it writes. */
    writes: string[];
    /** The script could not be read (a script file, an expansion, an unknown command). */
    unreadable: boolean;
}

const SIMPLE_COMMANDS = new Set("=dDgGhHlnNpPxzF{}".split(""));

/** The effects of `sed`'s scripts (`-e`, `--expression`, or its first operand); `--sandbox` forbids them. */
export function sedEffects(words: readonly Word[]): SedEffects {
    const effects: SedEffects = { runs: [], writes: [], unreadable: false };
    const scripts: string[] = [];
    let firstOperand: Word | undefined;
    let scripted = false;
    for (let i = 1; i < words.length; i++) {
        const word = words[i]!;
        const text = word.value;
        if (word.dynamic && word.glob === undefined) {
            effects.unreadable = true;
            continue;
        }
        if (text === "--sandbox") return { runs: [], writes: [], unreadable: false };
        if (text === "--") {
            firstOperand ??= words[i + 1];
            break;
        }
        if (text.startsWith("--")) {
            const [name, value] = [text.slice(2).split("=")[0]!, text.includes("=")];
            if (name.length >= 1 && "expression".startsWith(name)) {
                scripted = true;
                const script = value ? text.slice(text.indexOf("=") + 1) : words[++i]?.value;
                if (script !== undefined) scripts.push(script);
            } else if (name.length >= 1 && "file".startsWith(name)) effects.unreadable = true;
            else if (!value && ["line-length"].some((long) => long.startsWith(name))) i++;
            continue;
        }
        if (!text.startsWith("-") || text === "-") {
            firstOperand ??= word;
            continue;
        }
        for (let k = 1; k < text.length; k++) {
            const letter = text[k]!;
            if (letter === "e" || letter === "f" || letter === "l") {
                const rest = text.slice(k + 1);
                const value = rest !== "" ? rest : words[++i]?.value;
                if (letter === "e" && value !== undefined) scripts.push(value);
                if (letter !== "l") scripted = true;
                if (letter === "f") effects.unreadable = true;
                break;
            }
            // `-i[SUFFIX]`: the rest of the word is the suffix.
            if (letter === "i") break;
        }
    }
    if (!scripted && firstOperand) {
        if (firstOperand.dynamic) effects.unreadable = true;
        else scripts.push(firstOperand.value);
    }
    for (const script of scripts) {
        if (!readScript(script, effects)) effects.unreadable = true;
    }
    return effects;
}

/** Reads one script into `effects`; false when a part is not understood. */
function readScript(script: string, effects: SedEffects): boolean {
    let i = 0;
    const n = script.length;
    const toLineEnd = (): string => {
        const end = script.indexOf("\n", i);
        const text = script.slice(i, end < 0 ? n : end);
        i = end < 0 ? n : end + 1;
        return text;
    };
    const skipDelimited = (delimiter: string): boolean => {
        for (; i < n; i++) {
            if (script[i] === "\\") i++;
            else if (script[i] === delimiter) {
                i++;
                return true;
            }
        }
        return false;
    };
    const skipAddress = (): boolean => {
        const ch = script[i];
        if (ch === "/" || ch === "\\") {
            const delimiter = ch === "/" ? "/" : script[i + 1];
            i += ch === "/" ? 1 : 2;
            if (delimiter === undefined || !skipDelimited(delimiter)) return false;
            while (script[i] === "I" || script[i] === "M") i++;
            return true;
        }
        while (i < n && /[0-9$~+]/.test(script[i]!)) i++;
        return true;
    };
    while (i < n) {
        while (i < n && /[\s;]/.test(script[i]!)) i++;
        if (i >= n) break;
        if (!skipAddress()) return false;
        if (script[i] === ",") {
            i++;
            if (!skipAddress()) return false;
        }
        while (i < n && /[\s!]/.test(script[i]!)) i++;
        const command = script[i++];
        if (command === undefined) return false;
        if (SIMPLE_COMMANDS.has(command)) continue;
        if ("qQlL".includes(command)) {
            while (i < n && /[\s\d]/.test(script[i]!) && script[i] !== "\n") i++;
        } else if (":btTv".includes(command)) {
            while (i < n && !/[;\n]/.test(script[i]!)) i++;
        } else if ("aicrR#".includes(command)) {
            // Text, a file read, or a comment: to the end of the line (a `\` continues it).
            while (i < n) {
                if (script[i] === "\\") i += 2;
                else if (script[i] === "\n") break;
                else i++;
            }
        } else if (command === "w" || command === "W") {
            effects.writes.push(toLineEnd().trim());
        } else if (command === "e") {
            const text = toLineEnd().trim();
            effects.runs.push(text === "" ? null : text);
        } else if (command === "s" || command === "y") {
            const delimiter = script[i++];
            if (delimiter === undefined || delimiter === "\n" || delimiter === "\\") return false;
            if (!skipDelimited(delimiter) || !skipDelimited(delimiter)) return false;
            if (command === "y") continue;
            while (i < n && /[gpiImMe0-9]/.test(script[i]!)) {
                if (script[i] === "e") effects.runs.push(null);
                i++;
            }
            if (script[i] === "w") {
                i++;
                effects.writes.push(toLineEnd().trim());
            }
        } else return false;
    }
    return true;
}
