import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveSafePath } from "../../src/tools/path-guard";
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
