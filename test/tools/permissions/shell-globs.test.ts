import { describe, expect, it } from "vitest";
import { expandBraces, globExpands } from "../../../src/tools/permissions/shell-glob-text";
import {
    Overlap,
    componentOf,
    pathOverlap,
    pathPatterns,
    ruleComponentsOf,
} from "../../../src/tools/permissions/shell-globs";

const rule = (glob: string, coversBelow = true, caseInsensitive = false) => ({
    components: ruleComponentsOf(glob, caseInsensitive),
    coversBelow,
    caseInsensitive,
});
const overlap = (word: string, glob: string, dotglob = false) =>
    pathOverlap(pathPatterns(word, [], "/home/u")![0]!, rule(glob), dotglob);

describe("brace expansion", () => {
    it("expands lists, sequences and nested braces as bash does", () => {
        expect(expandBraces("a{b,c}d")).toEqual(["abd", "acd"]);
        expect(expandBraces("x{1..3}")).toEqual(["x1", "x2", "x3"]);
        expect(expandBraces("{3..1}")).toEqual(["3", "2", "1"]);
        expect(expandBraces("{01..03}")).toEqual(["01", "02", "03"]);
        expect(expandBraces("{a..c}")).toEqual(["a", "b", "c"]);
        expect(expandBraces("{a,{b,c}}")).toEqual(["a", "b", "c"]);
        expect(expandBraces(".{e,x}nv")).toEqual([".env", ".xnv"]);
    });

    it("leaves escaped and single-item braces alone, and gives up past 64 words", () => {
        expect(expandBraces("\\{a,b\\}")).toEqual(["\\{a,b\\}"]);
        expect(expandBraces("{a}")).toEqual(["{a}"]);
        expect(expandBraces("{}")).toEqual(["{}"]);
        expect(expandBraces("{1..1000}")).toBeNull();
        expect(expandBraces("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}")).toBeNull();
    });
});

describe("which words expansion changes", () => {
    it("counts every unescaped form", () => {
        for (const glob of [
            "*",
            "a?",
            ".[g]it",
            "[!a]",
            "[^a]",
            "[[:alpha:]]",
            "{a,b}",
            "{1..2}",
            "~u/x",
            "~+",
        ]) {
            expect(globExpands(glob), glob).toBe(true);
        }
    });

    it("does not count escaped (quoted) characters or a lone bracket", () => {
        for (const glob of ["\\*", "a\\?", "\\[g]it", "a[b", "{a}", "x\\{a,b}", "\\~u"]) {
            expect(globExpands(glob), glob).toBe(false);
        }
    });
});

describe("a component as a pattern", () => {
    it("reads bracket expressions: negation with ! and ^, classes, a leading ]", () => {
        const matches = (glob: string, name: string) => {
            const c = componentOf(glob);
            return c.kind === "glob" ? c.regex.test(name) : c.kind === "literal" && c.text === name;
        };
        expect(matches(".[g]it", ".git")).toBe(true);
        expect(matches(".[!a]it", ".git")).toBe(true);
        expect(matches(".[!g]it", ".git")).toBe(false);
        expect(matches(".[^g]it", ".git")).toBe(false);
        expect(matches(".gi[[:alpha:]]", ".git")).toBe(true);
        expect(matches(".gi[[:digit:]]", ".git")).toBe(false);
        expect(matches("[]x]", "]")).toBe(true);
        expect(matches("r\\*", "r*")).toBe(true);
        expect(matches("r\\*", "rm")).toBe(false);
    });
});

describe("whether a word's pattern and a rule's glob can meet", () => {
    it("is sure when a pattern meets a literal name", () => {
        expect(overlap(".[g]it/config", "**/.git/*")).toBe(Overlap.Yes);
        expect(overlap(".[e]nv", "**/.env")).toBe(Overlap.Yes);
        expect(overlap("src/*/.env", "**/.env")).toBe(Overlap.Yes);
        expect(overlap("x.pem", "**/*.pem")).toBe(Overlap.Yes);
    });

    it("keeps bash's rule that a leading dot is matched only by a literal dot, unless dotglob", () => {
        expect(overlap("*/config", "**/.git/*")).toBe(Overlap.No);
        expect(overlap("[.]git/config", "**/.git/*")).toBe(Overlap.No);
        expect(overlap("*/config", "**/.git/*", true)).toBe(Overlap.Yes);
    });

    it("tells two patterns apart by their fixed starts and ends, else says maybe", () => {
        expect(overlap("*.ts", "**/*.pem")).toBe(Overlap.No);
        expect(overlap("out*", "**/*.pem")).toBe(Overlap.Maybe);
        expect(overlap("a*", "**/b*")).toBe(Overlap.No);
    });

    it("follows the home folder, `..` and a directory only known when it runs", () => {
        expect(overlap("~/.bash[r]c", "/home/u/.bashrc")).toBe(Overlap.Yes);
        expect(overlap("~root/.env", "/**/.env")).toBe(Overlap.Yes);
        expect(overlap("/p/[s]rc/../.env", "/p/.env")).toBe(Overlap.Yes);
        expect(overlap("/p/src/../.[e]nv", "/p/.env")).toBe(Overlap.Yes);
        expect(overlap("/p/[s]rc/x.ts", "/p/.env")).toBe(Overlap.No);
        // An unknown directory may be that file, or (a guess) a folder of that name.
        expect(overlap("~root", "/home/u/.bashrc")).toBe(Overlap.Maybe);
        expect(overlap("~root/notes.txt", "/home/u/.bashrc")).toBe(Overlap.Guess);
    });
});
