import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
    protectedConfigFor,
    resolveSafePath,
    resolveWritablePath,
} from "../../src/tools/path-guard";
import { PROTECTED_CONFIG, protectedConfigOf } from "../../src/tools/protected-paths";
import { type TempRepo, expectError, expectOk, makeOutsideDir, makeRepo } from "./fixtures";

let repo: TempRepo;
let outside: { dir: string; cleanup: () => Promise<void> };

beforeEach(async () => {
    repo = await makeRepo({ "src/a.ts": "export {};\n", "README.md": "# hi\n" });
    outside = await makeOutsideDir();
    await fs.writeFile(path.join(outside.dir, "secret.txt"), "secret\n");
    await fs.symlink(path.join(outside.dir, "secret.txt"), path.join(repo.root, "secret-link"));
    await fs.symlink(outside.dir, path.join(repo.root, "out-dir"));
    await fs.symlink(path.join(repo.root, "src"), path.join(repo.root, "src-link"));
    await fs.symlink(path.join(outside.dir, "missing"), path.join(repo.root, "dangling"));
});
afterEach(async () => {
    await repo.cleanup();
    await outside.cleanup();
});

describe("resolveSafePath", () => {
    it("resolves relative and absolute paths inside the project", async () => {
        const rel = expectOk(
            await resolveSafePath(repo.root, "src/../src/a.ts", { mustExist: true })
        );
        expect(rel).toMatchObject({ relPath: "src/a.ts", exists: true });
        expect(rel.realPath).toBe(path.join(repo.root, "src", "a.ts"));
        const abs = expectOk(
            await resolveSafePath(repo.root, path.join(repo.root, "README.md"), { mustExist: true })
        );
        expect(abs.relPath).toBe("README.md");
        expect(expectOk(await resolveSafePath(repo.root, ".", { mustExist: true })).relPath).toBe(
            "."
        );
        const viaLink = expectOk(
            await resolveSafePath(repo.root, "src-link/a.ts", { mustExist: true })
        );
        expect(viaLink.realPath).toBe(path.join(repo.root, "src", "a.ts"));
    });

    it("rejects traversal and absolute paths outside the project", async () => {
        for (const p of ["../../etc/passwd", "../outside.txt", "/etc/passwd", outside.dir]) {
            const error = expectError(await resolveSafePath(repo.root, p, { mustExist: false }));
            expect(error.code).toBe("path_outside_repo");
            expect(error.message).toContain(p);
            expect(error.message).toMatch(/inside the project/);
        }
    });

    it("rejects symlinks (file and directory) that point outside, existing or not", async () => {
        for (const p of ["secret-link", "out-dir", "out-dir/secret.txt", "out-dir/new/file.txt"]) {
            const error = expectError(await resolveSafePath(repo.root, p, { mustExist: false }));
            expect(error.code).toBe("path_outside_repo");
            expect(error.message).toMatch(/symbolic link/);
        }
        expect(
            expectError(await resolveSafePath(repo.root, "dangling", { mustExist: false })).code
        ).toBe("path_outside_repo");
    });

    it("rejects NUL bytes and empty paths as invalid_path", async () => {
        expect(
            expectError(await resolveSafePath(repo.root, "src/a.ts\0.png", { mustExist: false }))
                .code
        ).toBe("invalid_path");
        expect(expectError(await resolveSafePath(repo.root, "", { mustExist: false })).code).toBe(
            "invalid_path"
        );
        expect(
            expectError(await resolveSafePath(repo.root, "   ", { mustExist: false })).code
        ).toBe("invalid_path");
    });

    it("handles missing paths: not_found with a hint, or the would-be location", async () => {
        const missing = expectError(
            await resolveSafePath(repo.root, "src/nope.ts", { mustExist: true })
        );
        expect(missing.code).toBe("not_found");
        expect(missing.message).toMatch(/find_files/);
        const deep = expectOk(
            await resolveSafePath(repo.root, "deep/nested/dir/file.txt", { mustExist: false })
        );
        expect(deep).toMatchObject({ exists: false, relPath: "deep/nested/dir/file.txt" });
        expect(deep.realPath).toBe(path.join(repo.root, "deep", "nested", "dir", "file.txt"));
        const underFile = expectError(
            await resolveSafePath(repo.root, "README.md/x", { mustExist: true })
        );
        expect(underFile.code).toBe("not_found");
    });
});

describe("resolveWritablePath", () => {
    const writable = (p: string) => resolveWritablePath(repo.root, p, { mustExist: false });

    it("refuses git's internals at any depth, in any case, through symlinks, and the .git file", async () => {
        await repo.write("sub/.git/config", "[core]\n");
        await repo.write("wt/.git", "gitdir: ../.git/worktrees/wt\n");
        await fs.symlink(path.join(repo.root, "sub", ".git"), path.join(repo.root, "git-link"));
        for (const p of [
            ".git/config",
            ".git/hooks/pre-commit",
            "sub/.git/config",
            "sub/.git/hooks/new-hook",
            "a/b/c/.git/config",
            "wt/.git",
            ".GIT/config",
            "sub/.Git/config",
            "sub/.git./config",
            "sub/.g\u200cit/config",
            "git-link/config",
            "git-link/hooks/post-checkout",
        ]) {
            const error = expectError(await writable(p));
            expect(error.code, p).toBe("path_outside_repo");
            expect(error.message).toContain("git's internals");
        }
    });

    it("allows names that only look like .git, and protected configuration (the review decides)", async () => {
        for (const p of [
            ".github/workflows/ci.yml",
            ".gitignore",
            "src/.gitkeep",
            "docs/git/notes.md",
            ".north/settings.json",
            ".mcp.json",
            ".claude/settings.json",
        ]) {
            expect(expectOk(await writable(p)).relPath).toBe(p);
        }
    });

    it("still refuses paths outside the project", async () => {
        expect(expectError(await writable("../x")).code).toBe("path_outside_repo");
        expect(expectError(await writable("out-dir/new.txt")).code).toBe("path_outside_repo");
    });
});

describe("protected configuration", () => {
    it("covers North's, Claude Code's, MCP, editor, direnv, hook-manager and CI files at any depth", () => {
        for (const p of [
            ".north/settings.json",
            ".north/autoaccept.json",
            ".north/allowlist.json",
            ".north/commands/deploy.md",
            ".north/skills/x/SKILL.md",
            ".claude/settings.json",
            ".claude/settings.local.json",
            ".claude/commands/x.md",
            ".mcp.json",
            ".MCP.json",
            "packages/app/.mcp.json",
            ".cursor/mcp.json",
            ".vscode/mcp.json",
            ".vscode/tasks.json",
            ".vscode/settings.json",
            ".vscode/launch.json",
            "app.code-workspace",
            ".devcontainer/devcontainer.json",
            ".devcontainer.json",
            ".envrc",
            "services/api/.envrc",
            ".github/workflows/ci.yml",
            ".husky/pre-commit",
            ".pre-commit-config.yaml",
            "lefthook.yml",
            ".gitmodules",
            ".gitattributes",
            "sub/.gitattributes",
        ]) {
            expect(protectedConfigOf(p), p).not.toBeNull();
        }
    });

    it("leaves ordinary files alone", () => {
        for (const p of [
            "src/app.ts",
            "package.json",
            "README.md",
            ".north",
            "north/settings.json",
            "mcp.json",
            ".mcp.json.md",
            ".vscode/extensions.json",
            ".github/CODEOWNERS",
            ".gitignore",
            ".env.example",
            "docs/claude/settings.json",
        ]) {
            expect(protectedConfigOf(p), p).toBeNull();
        }
    });

    it("documents every entry", () => {
        for (const entry of PROTECTED_CONFIG) {
            expect(entry.patterns.length).toBeGreaterThan(0);
            expect(entry.why.length).toBeGreaterThan(20);
        }
    });

    it("judges the real path too: a link to .mcp.json, or into .north/, is protected", async () => {
        await repo.write(".mcp.json", "{}\n");
        await fs.symlink(path.join(repo.root, ".mcp.json"), path.join(repo.root, "servers.json"));
        await fs.mkdir(path.join(repo.root, ".north"));
        await fs.symlink(path.join(repo.root, ".north"), path.join(repo.root, "settings-dir"));
        for (const p of ["servers.json", "settings-dir/autoaccept.json"]) {
            const safe = expectOk(await resolveWritablePath(repo.root, p, { mustExist: false }));
            expect(protectedConfigFor(repo.root, safe), p).not.toBeNull();
        }
        const plain = expectOk(
            await resolveWritablePath(repo.root, "src/a.ts", { mustExist: false })
        );
        expect(protectedConfigFor(repo.root, plain)).toBeNull();
    });
});
