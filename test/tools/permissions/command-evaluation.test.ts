import { describe, expect, it } from "vitest";
import { judgeCommand } from "../../../src/tools/permissions/command-judge";
import type { CommandRules, WriteTargetJudge } from "../../../src/tools/permissions/types";

/** Rules that allow the builtins and package managers outright, so only the analysis can ask. */
const RULES: CommandRules = {
    allow: [
        "printf:*",
        "read:*",
        "wait:*",
        "unset:*",
        "let:*",
        "test:*",
        "declare:*",
        "local:*",
        "typeset:*",
        "builtin:*",
        "tee:*",
        "cp:*",
        "sed:*",
        "find:*",
        "grep:*",
        "rg:*",
        "command:*",
        "exec:*",
        "ls:*",
        "echo:*",
        "sh:*",
        "npm test:*",
        "npx vitest:*",
        "pnpm test:*",
        "yarn test:*",
    ],
    deny: [],
    ask: [],
};
const writesAllowed: WriteTargetJudge = () => "allow";
const PAYLOAD = "'a[$(touch /tmp/x)]'";

async function decide(command: string): Promise<string> {
    return (await judgeCommand(command, RULES, writesAllowed, { cwd: "/work/project" })).decision;
}

describe("commands bash evaluates as arithmetic or expands again", () => {
    it("asks when an allowed builtin assigns to or tests a name whose subscript bash evaluates", async () => {
        for (const command of [
            `printf -v ${PAYLOAD} x`,
            `printf -v"a[x]" x`,
            `read ${PAYLOAD} <<< x`,
            `read -r -a ${PAYLOAD} <<< x`,
            `read "$NAME" <<< x`,
            `sleep 1 & wait -n -p ${PAYLOAD}`,
            `unset ${PAYLOAD}`,
            `unset "$NAME"`,
            `test -v ${PAYLOAD}`,
            "let x=LANG",
            "let '1 + LANG'",
            `declare -i n=${PAYLOAD}`,
            "declare -n ref=x",
            "f() { local -i n; }; f",
            `typeset ${PAYLOAD}`,
            `sleep 1 & wait -np ${PAYLOAD}`,
            "builtin declare -i TZ; TZ=x",
            "command declare -n TZ=PATH",
            "command export -n TZ",
            "echo hi {a[x]}>/dev/null",
        ]) {
            expect(await decide(command), command).toBe("ask");
        }
    });

    it("still allows the same builtins with plain names and numbers", async () => {
        for (const command of [
            "printf -v out '%s' x",
            "read -r -p 'name? ' -t 5 line <<< x",
            "read -a parts <<< 'a b'",
            "wait -n -p pid",
            "unset -v a 'b[2]'",
            "test -v HOME",
            "let '1 + 2'",
            "declare -r NODE_ENV=test",
            "declare -a list",
            "printf '%d\\n' \"$N\"",
        ]) {
            expect(await decide(command), command).toBe("allow");
        }
    });

    it("asks for package-manager options that change what runs, however they are spelled", async () => {
        for (const command of [
            "npx --node-options=--require=./x.js vitest",
            "npx -c 'touch /tmp/x'",
            "pnpm test --config.node-options=--require=./x.js",
            "pnpm test -C ../other",
            "pnpm test --dir ../other",
            "yarn test --cwd ../other",
            "yarn test --use-yarnrc ./evil",
            "npm test --NODE_OPTIONS=--require=./x.js",
            "npm test --script-sh=./x.sh",
        ]) {
            expect(await decide(command), command).toBe("ask");
        }
        // npx hands everything after the package to it: vitest's own --dir is not npm's.
        expect(await decide("npx vitest --dir src")).toBe("allow");
        expect(await decide("npx vitest -c vitest.config.ts")).toBe("allow");
        expect(await decide("pnpm test -- --dir src")).toBe("allow");
    });

    it("treats every word holding xargs' replacement string as unknown", async () => {
        expect(await decide("xargs -i sh -c 'echo {}'")).toBe("ask");
        expect(await decide("xargs --replace=X sh -c 'ls X'")).toBe("ask");
        expect(await decide("xargs -I X sh -c 'ls' X")).toBe("allow");
        expect(await decide("xargs -I X echo X")).toBe("allow");
    });
});

describe("commands naming files in git's internals or protected configuration", () => {
    it("asks whatever the allow rules say, as the edit tools do", async () => {
        for (const command of [
            "echo x | tee .git/config",
            "echo x | tee -a sub/.git/config",
            "cp hook.sh .git/hooks/pre-commit",
            "sed -i s/a/b/ .git/config",
            "cp x ./.north/settings.json",
            "echo '{}' | tee .mcp.json",
            "cp --target-directory=.git/hooks hook.sh",
        ]) {
            expect(await decide(command), command).toBe("ask");
        }
    });

    it("still allows commands that only name .git to leave it out, and ordinary files", async () => {
        for (const command of [
            "find . -path ./.git -prune -o -name '*.ts' -print",
            "grep -rn foo --exclude-dir=.git .",
            "rg -g '!.git' foo",
            "cp a.ts b.ts",
            "echo x | tee out.log",
            "ls .gitignore",
        ]) {
            expect(await decide(command), command).toBe("allow");
        }
    });
});
