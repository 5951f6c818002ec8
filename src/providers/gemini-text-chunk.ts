/**
 * A fast path for the chunk that is nearly every chunk of a Gemini stream:
 * one candidate whose content is one text part (`{"candidates":[{"content":
 * {"parts":[{"text":"…"}],"role":"model"},"index":0}],…}`). The candidate is
 * read by one native match instead of a general JSON.parse per token; the
 * members after it (usage, model version, response id: a few fields) are
 * parsed on their own. JSON whitespace between tokens is allowed (Google's
 * servers put a space after each colon) and `parts`/`role` may come in either
 * order; anything else (a thought, a call, a finish reason, other fields, a
 * malformed value) returns undefined and is parsed whole, so the result is
 * always what JSON.parse would give.
 */
import type { GeminiResponseChunk } from "./gemini-wire";

const W = "[ \\t\\n\\r]*";
/** A JSON string's body: any character but a quote, a backslash or a control character, or a valid escape. */
const BODY = '((?:[^"\\\\\\u0000-\\u001f]|\\\\(?:["\\\\/bfnrt]|u[0-9a-fA-F]{4}))*)';
const PARTS = `"parts"${W}:${W}\\[${W}\\{${W}"text"${W}:${W}"${BODY}"${W}\\}${W}\\]`;
const ROLE = `"role"${W}:${W}"model"`;

/** Groups: 1 text (parts first), 2 text (role first), 3 `"index": 0` present, 4 the members after `candidates`. */
const TEXT_CHUNK = new RegExp(
    `^${W}\\{${W}"candidates"${W}:${W}\\[${W}\\{${W}"content"${W}:${W}\\{${W}` +
        `(?:${PARTS}${W},${W}${ROLE}|${ROLE}${W},${W}${PARTS})${W}\\}` +
        `(${W},${W}"index"${W}:${W}0)?${W}\\}${W}\\]${W}` +
        `(?:,([^]*))?\\}${W}$`
);

/**
 * Chunks are a few hundred characters; past this a regular expression gains
 * nothing over JSON.parse and a long enough body would overflow its backtrack stack.
 */
const MAX_FAST_CHARS = 16 * 1024;

/** The chunk in `data` when it is one plain text part, else undefined. */
export function parseGeminiTextChunk(data: string): GeminiResponseChunk | undefined {
    if (data.length > MAX_FAST_CHARS) return undefined;
    const match = TEXT_CHUNK.exec(data);
    if (match === null) return undefined;
    const partsFirst = match[1] !== undefined;
    const body = (partsFirst ? match[1] : match[2])!;
    // Escapes are valid (the pattern checked them); only JSON knows how to read them.
    const text = body.includes("\\") ? (JSON.parse(`"${body}"`) as string) : body;
    const content = partsFirst
        ? { parts: [{ text }], role: "model" }
        : { role: "model", parts: [{ text }] };
    const candidate = match[3] === undefined ? { content } : { content, index: 0 };
    const chunk: GeminiResponseChunk = { candidates: [candidate] };
    const rest = match[4];
    if (rest === undefined) return chunk;
    // `…],}` is no JSON, though `{}` is.
    if (rest.trim() === "") return undefined;
    let members: unknown;
    try {
        members = JSON.parse(`{${rest}}`);
    } catch {
        return undefined; // the whole parse reports it
    }
    // A second `candidates` would win in JSON.parse, and `__proto__` is an own
    // key there but a prototype here: leave both to it.
    if (
        typeof members !== "object" ||
        members === null ||
        Object.hasOwn(members, "candidates") ||
        Object.hasOwn(members, "__proto__")
    )
        return undefined;
    return Object.assign(chunk, members as GeminiResponseChunk);
}
