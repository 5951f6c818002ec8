import { describe, expect, it } from "vitest";
import {
    type CommandPattern,
    allowMatches,
    parseCommandPattern,
    possiblyMatches,
} from "../../../src/tools/permissions/command-patterns";
import { validateCommandPattern } from "../../../src/tools/permissions/command-judge";
import type { Word } from "../../../src/tools/permissions/command-words";

function pattern(source: string): CommandPattern {
    const parsed = parseCommandPattern(source);
    if (typeof parsed === "string") throw new Error(parsed);
    return parsed;
}

/** Words from a plain string; `$X` marks a dynamic word. */
function words(text: string): Word[] {
    return text.split(" ").map((value) => ({ value, dynamic: value.startsWith("$") }));
}

describe("Bash rule patterns", () => {
    it("matches an exact pattern only on the same words", () => {
        const exact = pattern("npm test");
        expect(allowMatches(exact, words("npm test"))).toBe(true);
        expect(allowMatches(exact, words("npm test --watch"))).toBe(false);
        expect(allowMatches(exact, words("npm"))).toBe(false);
    });

    it("matches a `:*` prefix on word boundaries", () => {
        const prefix = pattern("npm test:*");
        expect(allowMatches(prefix, words("npm test"))).toBe(true);
        expect(allowMatches(prefix, words("npm test -- --watch"))).toBe(true);
        expect(allowMatches(prefix, words("npm testing"))).toBe(false);
        expect(allowMatches(prefix, words("npm tes"))).toBe(false);
    });

    it("treats `*` as any text, a single trailing ` *` as optional, and the space before it as significant", () => {
        expect(allowMatches(pattern("ls *"), words("ls"))).toBe(true);
        expect(allowMatches(pattern("ls *"), words("ls -la"))).toBe(true);
        expect(allowMatches(pattern("ls *"), words("lsof"))).toBe(false);
        expect(allowMatches(pattern("ls*"), words("lsof -i"))).toBe(true);
        expect(allowMatches(pattern("git * main"), words("git push origin main"))).toBe(true);
        expect(allowMatches(pattern("git * main"), words("git push origin dev"))).toBe(false);
        expect(allowMatches(pattern("* --version"), words("node --version"))).toBe(true);
    });

    it("never lets a dynamic word satisfy a literal position of an allow pattern", () => {
        expect(allowMatches(pattern("npm test:*"), words("npm $X"))).toBe(false);
        expect(allowMatches(pattern("npm test:*"), words("npm test $X"))).toBe(true);
        expect(allowMatches(pattern("git diff *"), words("git diff $REF"))).toBe(true);
    });

    it("counts a dynamic word as possibly matching a deny pattern", () => {
        expect(possiblyMatches(pattern("git push:*"), words("git $SUB"))).toBe(true);
        expect(possiblyMatches(pattern("git push:*"), words("git $SUB origin"))).toBe(true);
        expect(possiblyMatches(pattern("git push:*"), words("git diff $REF"))).toBe(false);
        expect(possiblyMatches(pattern("rm -rf:*"), words("rm $FLAGS /"))).toBe(true);
    });

    it("matches a program given by path by its base name for deny, never for allow", () => {
        expect(possiblyMatches(pattern("rm:*"), words("/bin/rm -rf x"))).toBe(true);
        expect(allowMatches(pattern("ls:*"), words("/tmp/evil/ls"))).toBe(false);
    });

    it("removes quotes in patterns as the shell does in commands", () => {
        expect(
            allowMatches(pattern("git commit -m 'fix it'"), [
                { value: "git", dynamic: false },
                { value: "commit", dynamic: false },
                { value: "-m", dynamic: false },
                { value: "fix it", dynamic: false },
            ])
        ).toBe(true);
        // A quoted space is inside one word: `'npm test'` is a program named "npm test".
        expect(allowMatches(pattern("npm test"), [{ value: "npm test", dynamic: false }])).toBe(
            false
        );
    });

    it("marks patterns that hold a whole compound command", () => {
        expect(pattern("npm ci && npm test").wholeCommand).toBe("npm ci && npm test");
        expect(pattern("npm test:*").wholeCommand).toBeNull();
    });

    it("rejects malformed patterns with a one-line reason", () => {
        expect(validateCommandPattern("")).toMatch(/empty/);
        expect(validateCommandPattern("   ")).toMatch(/empty/);
        expect(validateCommandPattern("npm:*test")).toMatch(/only end/);
        expect(validateCommandPattern(":*")).toMatch(/names no command/);
        expect(validateCommandPattern("echo 'open")).toMatch(/unclosed/);
        expect(validateCommandPattern("ls\r")).toMatch(/control character/);
        for (const valid of ["npm test", "npm test:*", "git diff *", "*", "npm run test:unit:*"]) {
            expect(validateCommandPattern(valid)).toBeNull();
        }
    });
});
