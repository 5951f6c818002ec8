import { describe, expect, it } from "vitest";
import { judgeCommand, suggestPrefixRule } from "../../../src/tools/permissions/command-judge";
import type { CommandRules, WriteTargetJudge } from "../../../src/tools/permissions/types";

const RULES: CommandRules = {
    allow: ["npm test:*", "ls:*", "echo:*", "git status", "sudo apt-get update"],
    deny: ["rm:*", "git push:*"],
    ask: ["npm publish:*"],
};
const writesAllowed: WriteTargetJudge = () => "allow";

describe("judgeCommand", () => {
    it("allows a command only when every simple command in it is allowed", async () => {
        expect(await judgeCommand("npm test && ls -la | echo", RULES, writesAllowed)).toEqual({
            decision: "allow",
            commands: ["npm test", "ls -la", "echo"],
        });
        expect(await judgeCommand("npm test && make build; ls", RULES, writesAllowed)).toEqual({
            decision: "ask",
            reason: "no allow rule covers `make build`",
            uncovered: ["make build"],
            forced: false,
        });
    });

    it("denies with the rule as the user wrote it, wherever the command hides", async () => {
        for (const command of [
            "ls; rm -rf /",
            "echo $(rm x)",
            "sudo -u root rm x",
            "bash -c 'rm x'",
        ]) {
            const verdict = await judgeCommand(command, RULES, writesAllowed);
            expect(verdict, command).toMatchObject({ decision: "deny", rule: "Bash(rm:*)" });
        }
        expect(await judgeCommand("git -c core.editor=x push", RULES, writesAllowed)).toMatchObject(
            {
                decision: "deny",
                rule: "Bash(git push:*)",
            }
        );
    });

    it("forces a review for an ask rule, even when an allow rule also matches", async () => {
        const rules = { ...RULES, allow: [...RULES.allow, "npm:*"] };
        expect(await judgeCommand("ls && npm publish --tag next", rules, writesAllowed)).toEqual({
            decision: "ask",
            reason: "`npm publish --tag next` matches the ask rule Bash(npm publish:*)",
            uncovered: ["npm publish --tag next"],
            forced: true,
        });
    });

    it("asks for sudo unless `sudo …` itself is allowed, and still denies what the inner command's rules deny", async () => {
        expect(await judgeCommand("sudo npm test", RULES, writesAllowed)).toMatchObject({
            decision: "ask",
            uncovered: ["sudo npm test"],
        });
        expect(await judgeCommand("sudo apt-get update", RULES, writesAllowed)).toMatchObject({
            decision: "allow",
        });
        expect(await judgeCommand("sudo rm -rf /", RULES, writesAllowed)).toMatchObject({
            decision: "deny",
        });
    });

    it("judges write redirections through the Edit rules, from the directory the shell is in", async () => {
        const seen: [string, string][] = [];
        const judgeWrite: WriteTargetJudge = (path, cwd) => {
            seen.push([path, cwd]);
            return path.endsWith(".env") ? "deny" : path.startsWith("/etc") ? "ask" : "allow";
        };
        expect(await judgeCommand("echo x > .env", RULES, judgeWrite, { cwd: "/p" })).toEqual({
            decision: "deny",
            reason: "`> .env` writes /p/.env, which an Edit rule denies",
            rule: "Edit(.env)",
            deniedBy: { type: "write", path: ".env", cwd: "/p" },
        });
        expect(seen).toEqual([[".env", "/p"]]);
        seen.length = 0;
        expect(
            await judgeCommand("ls && cd sub && echo x > out.txt", RULES, judgeWrite, { cwd: "/p" })
        ).toMatchObject({
            decision: "ask",
            uncovered: ["cd sub"],
        });
        // Both the starting directory and the one after `cd` are judged (a subshell may have undone the cd).
        expect(seen).toEqual(
            expect.arrayContaining([
                ["out.txt", "/p"],
                ["out.txt", "/p/sub"],
            ])
        );
        expect(await judgeCommand("echo x > /etc/hosts", RULES, judgeWrite)).toMatchObject({
            decision: "ask",
            forced: false,
        });
        expect(await judgeCommand("echo x > $OUT", RULES, judgeWrite)).toMatchObject({
            decision: "ask",
            reason: "`> $OUT` writes to a path only known when it runs",
        });
        const throwing: WriteTargetJudge = () => {
            throw new Error("bad path");
        };
        expect(await judgeCommand("echo x > out.txt", RULES, throwing)).toMatchObject({
            decision: "ask",
            reason: "`> out.txt` writes out.txt",
        });
        expect(await judgeCommand("npm test > /dev/null 2>&1", RULES, judgeWrite)).toMatchObject({
            decision: "allow",
        });
    });

    it("lets a saved whole compound command run, but never past a deny rule", async () => {
        const rules = { ...RULES, allow: ["make && make install", "make && rm -rf build"] };
        expect(await judgeCommand("  make && make install ", rules, writesAllowed)).toMatchObject({
            decision: "allow",
        });
        expect(await judgeCommand("make && rm -rf build", rules, writesAllowed)).toMatchObject({
            decision: "deny",
        });
        expect(await judgeCommand("make && make install; ls", rules, writesAllowed)).toMatchObject({
            decision: "ask",
        });
    });

    it("asks, never allows, what it cannot understand, and never throws", async () => {
        const noDeny = { ...RULES, deny: [] };
        expect(await judgeCommand("echo $(ls", noDeny, writesAllowed)).toMatchObject({
            decision: "ask",
        });
        // What it cannot read may be what a deny rule forbids.
        expect(await judgeCommand("echo $(ls", RULES, writesAllowed)).toMatchObject({
            decision: "deny",
        });
        expect(await judgeCommand("ls\rrm x", RULES, writesAllowed)).toMatchObject({
            decision: "ask",
            reason: "the command contains a hidden control character (U+000D)",
        });
        expect(await judgeCommand("", RULES, writesAllowed)).toMatchObject({ decision: "ask" });
        const deep = "bash -c ".repeat(1) + "'" + "eval ".repeat(20) + "ls'";
        expect((await judgeCommand(deep, noDeny, writesAllowed)).decision).toBe("ask");
        expect((await judgeCommand(deep, RULES, writesAllowed)).decision).toBe("deny");
        // A dynamic command name is asked about with no deny rules, denied when any exists.
        expect(
            await judgeCommand("$TOOL --fix", { allow: ["ls:*"], deny: [], ask: [] }, writesAllowed)
        ).toMatchObject({
            decision: "ask",
        });
        expect(await judgeCommand("$TOOL --fix", RULES, writesAllowed)).toMatchObject({
            decision: "deny",
        });
    });
});

describe("suggestPrefixRule", () => {
    it("offers the command's prefix for plain commands", async () => {
        expect(await suggestPrefixRule("npm test -- --watch")).toBe("npm test:*");
        expect(await suggestPrefixRule("npm run build --prod")).toBe("npm run build:*");
        expect(await suggestPrefixRule("git diff HEAD~1")).toBe("git diff:*");
        expect(await suggestPrefixRule("ls -la src")).toBe("ls:*");
        expect(await suggestPrefixRule("cargo test")).toBe("cargo test:*");
    });

    it("offers nothing for compound, dynamic, wrapped or unreadable commands", async () => {
        for (const command of [
            "npm test && rm x",
            "npm test $X",
            "sudo npm test",
            "timeout 5 npm test",
            "npm test > out.txt",
            "f() { ls; }",
            "echo $(ls",
            "ls\r",
            "",
        ]) {
            expect(await suggestPrefixRule(command), command).toBeNull();
        }
    });
});

describe("suggestPrefixRule never offers a prefix that runs any code", () => {
    it("keeps an interpreter's project script in the prefix, and offers no bare interpreter", async () => {
        expect(await suggestPrefixRule("python3 tools/gen.py --out x")).toBe(
            "python3 tools/gen.py:*"
        );
        expect(await suggestPrefixRule("node build.js")).toBe("node build.js:*");
        expect(await suggestPrefixRule("bash scripts/a.sh one")).toBe("bash scripts/a.sh:*");
        expect(await suggestPrefixRule("./scripts/test.sh unit")).toBe("./scripts/test.sh:*");
    });

    it("offers nothing for interpreters without a project script, launchers and code-running subcommands", async () => {
        for (const command of [
            "python3 -c 'print(1)'",
            "python3 -m pytest",
            "python3 /tmp/evil.py",
            "python3 ../outside.py",
            "node -e 1",
            "node --require ./x.js build.js",
            "sh -c 'ls'",
            "zsh",
            "perl -e 1",
            "ruby -e 1",
            "php -r 1",
            "deno run -A x.ts",
            "bun x cowsay",
            "make",
            "make build",
            "npx prettier --write .",
            "pnpx tsc",
            "bunx eslint .",
            "uvx ruff check",
            "uv run pytest",
            "poetry run pytest",
            "npm exec eslint .",
            "npm run",
            "env FOO=1 ls",
            "xargs ls",
            "awk '{print}' f",
            "git -c core.pager=less log",
            "git config core.fsmonitor x",
            "git",
            "go run main.go",
            "docker run alpine",
            "/usr/bin/python3 x.py",
        ]) {
            expect(await suggestPrefixRule(command), command).toBeNull();
        }
    });

    it("a rule it offers does not allow code the command did not run", async () => {
        const escapes = [
            "python3 -c 'import os'",
            "node -e 1",
            "bash -c id",
            "sh -c id",
            "make -f /tmp/evil",
            "npx prettier --plugin=./evil.js .",
            "git -c core.fsmonitor=x status",
            "perl -e 1",
        ];
        for (const command of [
            "python3 tools/gen.py",
            "node build.js",
            "bash scripts/a.sh",
            "make",
            "npx prettier --write .",
            "git status",
            "npm test",
            "perl tools/x.pl",
        ]) {
            const rule = await suggestPrefixRule(command);
            if (rule === null) continue;
            for (const escape of escapes) {
                const verdict = await judgeCommand(
                    escape,
                    { allow: [rule], deny: [], ask: [] },
                    writesAllowed
                );
                expect(verdict.decision, `${rule} then ${escape}`).not.toBe("allow");
            }
        }
    });
});
