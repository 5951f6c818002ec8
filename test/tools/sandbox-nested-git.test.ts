/**
 * Repositories a sandboxed command makes that the user's git enters: the
 * audit's escape (`git init sub`, a gitlink for it in the project's index, an
 * fsmonitor in `sub/.git/config`, then the user's `git status` outside) and
 * its deeper forms are neutralised after the command and reported; a nested
 * repository or a submodule with no programs keeps its files, and a
 * repository's own programs that the command did not touch stay.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { GIT_ENV, git, initRepo, sandboxTestsBlocked, useSandboxFixture } from "./sandbox-kit";

const blocked = await sandboxTestsBlocked(["git"]);
const fixture = useSandboxFixture();

/** The user's `git status` outside the sandbox: did it run the payload? */
function userGitStatusRuns(dir: string, marker: string): boolean {
    try {
        git(dir, "status", "--short");
    } catch {
        // a broken repository is not an escape
    }
    return existsSync(marker);
}

describe.skipIf(blocked !== null)("a sandboxed command and the repositories git enters", () => {
    it("cannot make the user's git status run a nested repository's fsmonitor (the audit's escape)", async () => {
        initRepo(fixture.root);
        const marker = path.join(fixture.outside, "sb-pwned.txt");
        const attack =
            `mkdir sub && cd sub && git init -q && git commit -q --allow-empty -m s && ` +
            `S=$(git rev-parse HEAD) && cd .. && ` +
            `git update-index --add --cacheinfo 160000,$S,sub && ` +
            `git config -f sub/.git/config core.fsmonitor 'echo PWNED >> ${marker}; false'`;
        const result = await fixture.sandboxed({ env: GIT_ENV }).run(attack);
        expect(result.exitCode).toBe(0);
        expect(result.note).toContain(
            "The sandbox removed core.fsmonitor from sub/.git/config: a sandboxed command may not"
        );
        expect(userGitStatusRuns(fixture.root, marker)).toBe(false);
        // The repository itself is kept: only the program went.
        expect(git(path.join(fixture.root, "sub"), "log", "--format=%s")).toBe("s\n");
        // The same key written unsandboxed does run: the test can fail.
        await fixture
            .plain(GIT_ENV)
            .run(`git config -f sub/.git/config core.fsmonitor 'echo PWNED >> ${marker}; false'`);
        expect(userGitStatusRuns(fixture.root, marker)).toBe(true);
    });

    it("reaches a repository deeper than two folders through the gitlink the command added, and its hooks", async () => {
        initRepo(fixture.root);
        const deep = path.join(fixture.root, "x", "y", "z");
        initRepo(deep);
        const marker = path.join(fixture.outside, "pwned");
        const result = await fixture
            .sandboxed({ env: GIT_ENV })
            .run(
                `S=$(git -C x/y/z rev-parse HEAD) && ` +
                    `printf '[core]\\n\\tpager = "id > ${marker}"\\n[diff "d"]\\n\\ttextconv = "id > ${marker}"\\n' >> x/y/z/.git/config && ` +
                    `printf '#!/bin/sh\\nid > ${marker}\\n' > x/y/z/.git/hooks/post-checkout && ` +
                    `chmod +x x/y/z/.git/hooks/post-checkout && ` +
                    `git update-index --add --cacheinfo 160000,$S,x/y/z`
            );
        expect(result.exitCode).toBe(0);
        expect(result.note).toContain("core.pager, diff.d.textconv from x/y/z/.git/config");
        expect(result.note).toContain("x/y/z/.git/hooks/post-checkout");
        expect(existsSync(path.join(deep, ".git/hooks/post-checkout"))).toBe(false);
        const config = readFileSync(path.join(deep, ".git/config"), "utf8");
        expect(config).not.toContain(marker);
        // What git needs of the config is still there.
        expect(git(deep, "config", "core.repositoryformatversion")).toBe("0\n");
        expect(userGitStatusRuns(fixture.root, marker)).toBe(false);
    });

    it("removes a .git file that leads to a repository outside the project whose config runs a program", async () => {
        initRepo(fixture.root);
        // Stands for one written through a writable folder outside (the `writable` setting).
        const elsewhere = path.join(fixture.outside, "elsewhere");
        initRepo(elsewhere);
        const marker = path.join(fixture.outside, "pwned");
        git(elsewhere, "config", "core.fsmonitor", `echo pwned > ${marker}; false`);
        const head = git(elsewhere, "rev-parse", "HEAD").trim();
        const result = await fixture
            .sandboxed({ env: GIT_ENV })
            .run(
                `mkdir -p deep/er/sub && echo 'gitdir: ${elsewhere}/.git' > deep/er/sub/.git && ` +
                    `git update-index --add --cacheinfo 160000,${head},deep/er/sub`
            );
        expect(result.exitCode).toBe(0);
        expect(result.note).toContain("The sandbox removed deep/er/sub/.git:");
        expect(existsSync(path.join(fixture.root, "deep/er/sub/.git"))).toBe(false);
        // The repository outside is not North's to change.
        expect(git(elsewhere, "config", "core.fsmonitor")).toContain(marker);
        expect(userGitStatusRuns(fixture.root, marker)).toBe(false);
    });

    it("keeps a nested repository, a submodule and a linked worktree with no programs, and programs the command did not touch", async () => {
        initRepo(fixture.root);
        git(fixture.root, "config", "core.pager", "less -F");
        initRepo(path.join(fixture.root, "library"));
        const inner = path.join(fixture.root, "tools", "inner");
        initRepo(inner);
        git(inner, "config", "core.pager", "less -R");
        writeFileSync(path.join(inner, ".git/hooks/pre-commit"), "#!/bin/sh\nexit 0\n", {
            mode: 0o755,
        });
        const result = await fixture
            .sandboxed({ env: GIT_ENV })
            .run(
                `git -c protocol.file.allow=always submodule add -q "$PWD/library" lib && ` +
                    `git commit -qm "add lib" && ` +
                    `mkdir plain && git -C plain init -q && echo two > plain/b.txt && ` +
                    `git -C plain add b.txt && git -C plain commit -qm two && ` +
                    `git -C tools/inner commit -q --no-verify --allow-empty -m more && ` +
                    `git worktree add -q wt`
            );
        expect(result.exitCode).toBe(0);
        // Only the earlier rule's note (.gitmodules is protected configuration); nothing of the repositories.
        expect(result.note ?? "").not.toMatch(/repository git may enter|lib\/|plain\/|tools\//);
        expect(readFileSync(path.join(fixture.root, "lib/a.txt"), "utf8")).toBe("one\n");
        expect(git(path.join(fixture.root, "lib"), "log", "--format=%s")).toBe("one\n");
        expect(git(path.join(fixture.root, "plain"), "log", "--format=%s")).toBe("two\n");
        expect(git(inner, "config", "core.pager")).toBe("less -R\n");
        expect(existsSync(path.join(inner, ".git/hooks/pre-commit"))).toBe(true);
        // A linked worktree of the project shares its config: the user's keys stay.
        expect(git(path.join(fixture.root, "wt"), "log", "--format=%s", "-1")).toBe("add lib\n");
        expect(git(fixture.root, "config", "core.pager")).toBe("less -F\n");
    });
});
