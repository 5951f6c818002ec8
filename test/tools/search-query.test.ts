import { describe, expect, it } from "vitest";
import { compileQuery } from "../../src/tools/search-query";

function rust(text: string, regex = true, caseSensitive = true): string | null {
    const result = compileQuery(text, regex, caseSensitive);
    if (!result.ok) throw new Error(result.message);
    return result.query.rust;
}

describe("compileQuery", () => {
    it("reports invalid regexes with the engine's message", () => {
        const result = compileQuery("foo(", true, false);
        expect(result.ok).toBe(false);
        if (!result.ok) expect(result.message).toMatch(/Invalid regular expression/);
        expect(compileQuery("[a-", true, false).ok).toBe(false);
        expect(compileQuery("a{2", true, false).ok).toBe(false);
    });

    it("escapes literals for both engines", () => {
        const result = compileQuery("a.b(c)*[d]{1}|$^\\/", false, true);
        expect(result.ok && result.query.literal).toBe("a.b(c)*[d]{1}|$^\\/");
        expect(result.ok && result.query.regex.test("xa.b(c)*[d]{1}|$^\\/y")).toBe(true);
        expect(rust("a.b(c)*", false)).toBe("a\\.b\\(c\\)\\*");
        expect(rust("A-b#c&d~e", false, false)).toBe("(?i)A\\-b\\#c\\&d\\~e");
    });

    it("translates JavaScript classes and escapes to the Rust regex they mean", () => {
        expect(rust("\\d+\\w*\\s")).toBe(
            "[0-9]+[0-9A-Za-z_]*[\\t\\x0B\\x0C\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}]"
        );
        expect(rust("\\bfoo\\B")).toBe("(?-u:\\b)foo(?-u:\\B)");
        expect(rust("[a-z\\d_-]")).toBe("[a-z0-9_\\-]");
        expect(rust("[^\\W]")).toBe("[^[^0-9A-Za-z_]]");
        expect(rust("\\u00e9\\x41\\u{1F600}\\x00")).toBe("éA😀\\x{0}");
        expect(rust("(?<name>a)(?:b)")).toBe("(a)(?:b)");
        expect(rust("a{2,3}?")).toBe("a{2,3}?");
    });

    it("accepts needless escapes of punctuation that the u flag would reject", () => {
        expect(rust('\\"\\:\\-')).toBe('":\\-');
        expect(rust("a\\/b")).toBe("a/b");
    });

    it("leaves JavaScript-only constructs to the JavaScript engine", () => {
        expect(rust("foo(?=bar)")).toBeNull();
        expect(rust("(a)\\1")).toBeNull();
        expect(rust("\\p{L}")).toBeNull();
        expect(rust("a\\nb")).toBeNull();
    });

    it("asks ripgrep to transcode only when the pattern can match U+FFFD", () => {
        const transcode = (text: string, regex = true) => {
            const result = compileQuery(text, regex, false);
            return result.ok && result.query.transcode;
        };
        expect(transcode("token")).toBe(false);
        expect(transcode("\\w+\\s[a-z]")).toBe(false);
        expect(transcode("a.b")).toBe(true);
        expect(transcode("[^a]")).toBe(true);
        expect(transcode("\\W")).toBe(true);
        expect(transcode("[\\u0100-\\uffff]")).toBe(true);
        expect(transcode("\uFFFD", false)).toBe(true);
        expect(transcode("a.b", false)).toBe(false);
    });

    it("reads a leading (?i) as case-insensitive", () => {
        const result = compileQuery("(?i)hello", true, true);
        expect(result.ok && result.query.caseSensitive).toBe(false);
        expect(result.ok && result.query.regex.test("HeLLo")).toBe(true);
    });
});
