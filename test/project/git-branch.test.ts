import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
    branchOfHead,
    findGitDir,
    readGitBranch,
    watchGitBranch,
} from "../../src/project/git-branch";

let dir: string | undefined;
afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
});

describe("the git branch", () => {
    it("reads a branch, a detached HEAD as a short id, and nothing from junk", () => {
        expect(branchOfHead("ref: refs/heads/main\n")).toBe("main");
        expect(branchOfHead("ref: refs/heads/feature/x\n")).toBe("feature/x");
        expect(branchOfHead("1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b\n")).toBe("1a2b3c4");
        expect(branchOfHead("hello")).toBeNull();
    });

    it("finds .git above the project and follows a worktree's gitdir file", () => {
        dir = mkdtempSync(join(tmpdir(), "north-branch-"));
        mkdirSync(join(dir, "repo", ".git"), { recursive: true });
        writeFileSync(join(dir, "repo", ".git", "HEAD"), "ref: refs/heads/main\n");
        mkdirSync(join(dir, "repo", "packages", "a"), { recursive: true });
        expect(findGitDir(join(dir, "repo", "packages", "a"))).toBe(join(dir, "repo", ".git"));

        const worktreeGit = join(dir, "repo", ".git", "worktrees", "wt");
        mkdirSync(worktreeGit, { recursive: true });
        writeFileSync(join(worktreeGit, "HEAD"), "ref: refs/heads/topic\n");
        mkdirSync(join(dir, "wt"));
        writeFileSync(join(dir, "wt", ".git"), "gitdir: ../repo/.git/worktrees/wt\n");
        const found = findGitDir(join(dir, "wt"));
        expect(found).toBe(worktreeGit);
        expect(readGitBranch(found!)).toBe("topic");
    });

    it("tells a HEAD replaced the way git does it (a lock file renamed over it)", async () => {
        dir = mkdtempSync(join(tmpdir(), "north-branch-"));
        const gitDir = join(dir, ".git");
        mkdirSync(gitDir);
        writeFileSync(join(gitDir, "HEAD"), "ref: refs/heads/main\n");
        const seen: Array<string | null> = [];
        let changed: () => void = () => undefined;
        const next = new Promise<void>((done) => (changed = done));
        const stop = watchGitBranch(gitDir, (branch) => {
            seen.push(branch);
            changed();
        });
        try {
            writeFileSync(join(gitDir, "HEAD.lock"), "ref: refs/heads/topic\n");
            renameSync(join(gitDir, "HEAD.lock"), join(gitDir, "HEAD"));
            await next;
            expect(seen).toEqual(["topic"]);
        } finally {
            stop();
        }
    });
});
