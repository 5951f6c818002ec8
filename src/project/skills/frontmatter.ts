/**
 * A small, forgiving reader for the YAML frontmatter of skills and commands:
 * `key: value` pairs with quoted strings, `|` and `>` block scalars and simple
 * lists. Not a YAML parser: anything it cannot read is reported as a problem
 * and skipped, and the rest is kept.
 */

export type FrontmatterValue = string | string[];

export interface Frontmatter {
    data: Record<string, FrontmatterValue>;
    /** Single-line values as written (e.g. `argument-hint: [file]`, which YAML would read as a list). */
    raw: Record<string, string>;
    /** The text after the closing `---` (all of it when there is no frontmatter). */
    body: string;
    /** Set when the frontmatter was there but could not be (fully) read. */
    problem?: string;
}

const KEY_LINE = /^([A-Za-z_][\w.-]*)\s*:(?:\s+(.*))?$/;

function unquote(raw: string): string {
    const value = raw.trim();
    const double = /^"((?:[^"\\]|\\.)*)"\s*(?:#.*)?$/.exec(value);
    if (double) {
        try {
            return JSON.parse(`"${double[1] ?? ""}"`) as string;
        } catch {
            return double[1] ?? "";
        }
    }
    const single = /^'((?:[^']|'')*)'\s*(?:#.*)?$/.exec(value);
    if (single) return (single[1] ?? "").replace(/''/g, "'");
    // A trailing comment after a plain scalar.
    return value.replace(/\s+#.*$/, "");
}

function inlineList(raw: string): string[] {
    return raw
        .trim()
        .slice(1, -1)
        .split(",")
        .map((item) => unquote(item))
        .filter((item) => item !== "");
}

function indentOf(line: string): number {
    return line.length - line.trimStart().length;
}

/** Reads a block scalar (`|`, `>`, with optional `-`/`+`) from `lines[start..]`. */
function blockScalar(
    style: string,
    lines: string[],
    start: number
): { value: string; next: number } {
    const collected: string[] = [];
    let i = start;
    let indent: number | undefined;
    for (; i < lines.length; i++) {
        const line = lines[i] ?? "";
        if (line.trim() === "") {
            collected.push("");
            continue;
        }
        const current = indentOf(line);
        if (current === 0) break;
        indent ??= current;
        collected.push(line.slice(Math.min(indent, current)));
    }
    while (collected.length > 0 && collected[collected.length - 1] === "") collected.pop();
    const value = style.startsWith(">")
        ? collected.join("\n").replace(/([^\n])\n(?=[^\n])/g, "$1 ")
        : collected.join("\n");
    return { value, next: i };
}

function parseBlock(lines: string[]): {
    data: Record<string, FrontmatterValue>;
    raw: Record<string, string>;
    problems: string[];
} {
    const data: Record<string, FrontmatterValue> = {};
    const rawValues: Record<string, string> = {};
    const problems: string[] = [];
    let i = 0;
    while (i < lines.length) {
        const line = lines[i] ?? "";
        if (line.trim() === "" || line.trimStart().startsWith("#")) {
            i++;
            continue;
        }
        const match = KEY_LINE.exec(line.trimEnd());
        if (!match || indentOf(line) > 0) {
            problems.push(
                `line ${i + 2} is not "key: value": ${JSON.stringify(line.trim().slice(0, 60))}`
            );
            i++;
            continue;
        }
        const key = match[1] as string;
        const raw = (match[2] ?? "").trim();
        if (raw !== "" && !/^[|>][+-]?$/.test(raw)) rawValues[key] = raw;
        i++;
        if (/^[|>][+-]?$/.test(raw)) {
            const block = blockScalar(raw, lines, i);
            data[key] = block.value;
            i = block.next;
        } else if (raw.startsWith("[") && raw.endsWith("]")) {
            data[key] = inlineList(raw);
        } else if (raw === "") {
            const items: string[] = [];
            while (i < lines.length && /^\s*-\s+/.test(lines[i] ?? "")) {
                items.push(unquote((lines[i] ?? "").replace(/^\s*-\s+/, "")));
                i++;
            }
            // A nested map (`metadata:` with indented keys, as Agent Skills write): valid YAML
            // North reads no key of, so its lines are passed over, not reported.
            if (items.length === 0) {
                while (
                    i < lines.length &&
                    ((lines[i] ?? "").trim() === "" || indentOf(lines[i] ?? "") > 0)
                ) {
                    i++;
                }
            }
            data[key] = items.length > 0 ? items : "";
        } else {
            data[key] = unquote(raw);
        }
    }
    return { data, raw: rawValues, problems };
}

export function parseFrontmatter(text: string): Frontmatter {
    const source = text.replace(/^\uFEFF/, "");
    const lines = source.split(/\r?\n/);
    if ((lines[0] ?? "").trimEnd() !== "---") return { data: {}, raw: {}, body: source };
    const end = lines.findIndex((line, index) => index > 0 && /^(---|\.\.\.)\s*$/.test(line));
    if (end === -1) {
        // Forgotten closing line: read the key lines up to the first blank line.
        const blank = lines.findIndex((line, index) => index > 0 && line.trim() === "");
        const stop = blank === -1 ? lines.length : blank;
        const { data, raw } = parseBlock(lines.slice(1, stop));
        return {
            data,
            raw,
            body: lines.slice(stop + 1).join("\n"),
            problem: 'the frontmatter has no closing "---" line',
        };
    }
    const { data, raw, problems } = parseBlock(lines.slice(1, end));
    const body = lines
        .slice(end + 1)
        .join("\n")
        .replace(/^\s*\n/, "");
    return problems.length > 0
        ? { data, raw, body, problem: `frontmatter: ${problems.join("; ")}` }
        : { data, raw, body };
}

/** A string field, or undefined (lists are joined with ", "). */
export function frontmatterString(
    data: Record<string, FrontmatterValue>,
    key: string
): string | undefined {
    const value = data[key];
    if (value === undefined) return undefined;
    const text = (Array.isArray(value) ? value.join(", ") : value).trim();
    return text === "" ? undefined : text;
}

/** The first line of `body` that reads like prose, cut to `max` characters. */
export function firstLine(body: string, max: number): string | undefined {
    for (const raw of body.split("\n")) {
        const line = raw.replace(/^#+\s*/, "").trim();
        if (line === "") continue;
        return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
    }
    return undefined;
}
