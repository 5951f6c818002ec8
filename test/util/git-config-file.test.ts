/**
 * The git config reader reads what git reads, so a program key cannot hide
 * from the trust inventory behind quoting, a continuation or a header form.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { formatGitConfig, parseGitConfig } from "../../src/util/git-config-file";

describe("reading a git config file as git does", () => {
    it("reads sections, subsections, quotes, escapes, continuations, comments and bare keys", () => {
        const text = [
            "# a comment",
            "[core]",
            '\tFSMonitor = "./watch.sh" ; trailing comment',
            "\tbare",
            '[diff "My Tool"]',
            "\ttextconv = sh -c \\",
            "  'conv'",
            "[Filter.lfs]",
            '\tsmudge = a\\tb "x # y" \\"q\\"',
            "[alias]",
            "\tst = !sh evil",
        ].join("\n");
        expect(parseGitConfig(text)).toEqual([
            { key: "core.fsmonitor", value: "./watch.sh" },
            { key: "core.bare", value: "true" },
            { key: "diff.My Tool.textconv", value: "sh -c   'conv'" },
            { key: "filter.lfs.smudge", value: 'a\tb x # y "q"' },
            { key: "alias.st", value: "!sh evil" },
        ]);
    });

    it("reads CRLF files and skips lines it cannot read instead of stopping", () => {
        const text = "[core]\r\n\tpager = less\r\n=broken\r\n\teditor = vim\r\n";
        expect(parseGitConfig(text)).toEqual([
            { key: "core.pager", value: "less" },
            { key: "core.editor", value: "vim" },
        ]);
    });

    it("writes entries back so that git reads the same keys and values (what the sandbox keeps)", () => {
        const entries = [
            { key: "core.repositoryformatversion", value: "0" },
            { key: "core.bare", value: "true" },
            { key: 'remote.my "odd" name.url', value: '/path/with \\ and "quotes"' },
            { key: "url.https://example.com/.insteadof", value: "ex:" },
            { key: "user.name", value: " spaced # not a comment ; nor this\nsecond\tline" },
        ];
        const text = formatGitConfig(entries);
        expect(parseGitConfig(text)).toEqual(entries);
        execFileSync("git", ["config", "-f", "-", "--list"], { input: text });
        expect(
            execFileSync(
                "git",
                ["config", "-f", "-", "--get", "url.https://example.com/.insteadof"],
                { input: text }
            ).toString()
        ).toBe("ex:\n");
    });
});
