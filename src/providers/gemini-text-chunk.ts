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

/**
 * Reads one stream's chunks. It keeps the last tail parsed: consecutive
 * chunks repeat it (the same model version and response id, the same usage
 * until the last chunk), so it is parsed once and copied after. Only a tail
 * whose values are primitives or flat objects of primitives is kept, so a
 * copy one level deep is a new object all through.
 */
export class GeminiTextChunkReader {
    private lastRest: string | undefined;
    private lastMembers: Record<string, unknown> | undefined;

    /** The chunk in `data` when it is one plain text part, else undefined. */
    read(data: string): GeminiResponseChunk | undefined {
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
        const members = this.membersOf(rest);
        if (members === undefined) return undefined;
        return Object.assign(chunk, members);
    }

    private membersOf(rest: string): Record<string, unknown> | undefined {
        if (rest === this.lastRest && this.lastMembers !== undefined)
            return copyFlat(this.lastMembers);
        const members = parseMembers(rest);
        if (members !== undefined && isFlat(members)) {
            this.lastRest = rest;
            this.lastMembers = copyFlat(members);
        }
        return members;
    }
}

/** The members after `candidates`, parsed whole; undefined for what the full parse must judge. */
function parseMembers(rest: string): Record<string, unknown> | undefined {
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
    return members as Record<string, unknown>;
}

function isPrimitive(value: unknown): boolean {
    return value === null || typeof value !== "object";
}

function isFlat(members: Record<string, unknown>): boolean {
    for (const value of Object.values(members)) {
        if (isPrimitive(value)) continue;
        if (Array.isArray(value) || !Object.values(value as object).every(isPrimitive))
            return false;
    }
    return true;
}

function copyFlat(members: Record<string, unknown>): Record<string, unknown> {
    const copy: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(members))
        copy[name] = isPrimitive(value) ? value : { ...(value as object) };
    return copy;
}
