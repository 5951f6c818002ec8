import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
    protectedConfigFor,
    resolveSafePath,
    resolveWritablePath,
} from "../../src/tools/path-guard";
import { createReadTools, createToolRegistry } from "../../src/tools/index";
import { type TempRepo, expectError, expectOk, makeOutsideDir, makeRepo } from "./fixtures";

let repo: TempRepo;
let added: { dir: string; cleanup: () => Promise<void> };
let elsewhere: { dir: string; cleanup: () => Promise<void> };
const read = { mustExist: true };
const write = { mustExist: false };
let withAdded: {
    read: typeof read & { addedRoots: string[] };
    write: typeof write & { addedRoots: string[] };
};

beforeEach(async () => {
    repo = await makeRepo({ "src/a.ts": "export {};\n" });
    added = await makeOutsideDir();
    elsewhere = await makeOutsideDir();
    await fs.writeFile(path.join(added.dir, "notes.md"), "notes\n");
    await fs.writeFile(path.join(elsewhere.dir, "secret.txt"), "secret\n");
    await fs.mkdir(path.join(added.dir, ".git"));
    await fs.symlink(path.join(elsewhere.dir, "secret.txt"), path.join(added.dir, "leak"));
    await fs.symlink(elsewhere.dir, path.join(added.dir, "leak-dir"));
    await fs.symlink(path.join(added.dir, "notes.md"), path.join(repo.root, "notes-link"));
    withAdded = {
        read: { ...read, addedRoots: [added.dir] },
        write: { ...write, addedRoots: [added.dir] },
    };
});
afterEach(async () => {
    await repo.cleanup();
    await added.cleanup();
    await elsewhere.cleanup();
});

describe("paths in a directory added with --add-dir", () => {
    it("are refused until the directory is added", async () => {
        const file = path.join(added.dir, "notes.md");
        const refused = expectError(await resolveSafePath(repo.root, file, read));
        expect(refused.code).toBe("path_outside_repo");
        expect(refused.message).toContain("Paths must stay inside the project;");
        const ok = expectOk(await resolveSafePath(repo.root, file, withAdded.read));
        expect(ok).toMatchObject({ absPath: file, realPath: file, exists: true });
        // A project symlink into an added directory leads somewhere allowed.
        expect(
            expectOk(await resolveSafePath(repo.root, "notes-link", withAdded.read)).realPath
        ).toBe(file);
    });

    it("new files may be created there; the project itself is unchanged", async () => {
        const created = path.join(added.dir, "sub", "new.txt");
        expect(
            expectOk(await resolveWritablePath(repo.root, created, withAdded.write)).exists
        ).toBe(false);
        expect(expectOk(await resolveSafePath(repo.root, "src/a.ts", withAdded.read)).relPath).toBe(
            "src/a.ts"
        );
    });

    it("symlinks out of the added directory are refused, as in the project", async () => {
        for (const target of ["leak", "leak-dir/secret.txt", "leak-dir/new.txt"]) {
            const error = expectError(
                await resolveWritablePath(repo.root, path.join(added.dir, target), withAdded.write)
            );
            expect(error.code).toBe("path_outside_repo");
            expect(error.message).toContain("points outside the project and the added directories");
        }
    });

    it("everything else is still outside, and git internals are never writable", async () => {
        const other = expectError(
            await resolveSafePath(repo.root, path.join(elsewhere.dir, "secret.txt"), withAdded.read)
        );
        expect(other.code).toBe("path_outside_repo");
        expect(other.message).toContain("a directory added with --add-dir");
        const sibling = expectError(
            await resolveSafePath(repo.root, `${added.dir}-x/a`, withAdded.write)
        );
        expect(sibling.code).toBe("path_outside_repo");
        const git = expectError(
            await resolveWritablePath(
                repo.root,
                path.join(added.dir, ".git", "config"),
                withAdded.write
            )
        );
        expect(git.code).toBe("path_outside_repo");
    });

    it("protected configuration in an added directory is recognised", async () => {
        const safe = expectOk(
            await resolveWritablePath(repo.root, path.join(added.dir, ".mcp.json"), withAdded.write)
        );
        expect(protectedConfigFor(repo.root, safe)).not.toBeNull();
    });
});

describe("two sessions in one process", () => {
    it("each sees only its own added directories, even for the same project", async () => {
        // Two tool sets as two sessions build them; the calls interleave.
        const first = createToolRegistry(createReadTools());
        const second = createToolRegistry(createReadTools());
        const signal = new AbortController().signal;
        const file = path.join(added.dir, "notes.md");
        const [withDir, withoutDir] = await Promise.all([
            first.execute(
                "read_file",
                { path: file },
                { repoRoot: repo.root, addedRoots: [added.dir], signal }
            ),
            second.execute("read_file", { path: file }, { repoRoot: repo.root, signal }),
        ]);
        expect(withDir.ok).toBe(true);
        expect(JSON.stringify(withDir)).toContain("notes");
        expect(expectError(withoutDir).code).toBe("path_outside_repo");
        // The first session's roots did not linger for a later call of the second.
        const later = await second.execute(
            "read_file",
            { path: file },
            { repoRoot: repo.root, signal }
        );
        expect(expectError(later).code).toBe("path_outside_repo");
    });
});
