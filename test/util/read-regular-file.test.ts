import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
    UnsafeFileError,
    readRegularFileSync,
    readRegularTextSync,
} from "../../src/util/read-regular-file";
import { type GuardedFifo, guardedFifo } from "../kit/fifo-guard";

let base: string;
let repo: string;
let outside: string;
const guards: GuardedFifo[] = [];
beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), "north-regular-")));
    repo = join(base, "repo");
    outside = join(base, "outside");
    mkdirSync(repo);
    mkdirSync(outside);
    writeFileSync(join(outside, "secret.txt"), "TOP-SECRET");
    writeFileSync(join(repo, "notes.md"), "in the repo");
});
afterEach(() => {
    for (const guard of guards.splice(0)) guard.stop();
    rmSync(base, { recursive: true, force: true });
});

function refusal(read: () => unknown): UnsafeFileError {
    try {
        read();
    } catch (error) {
        if (error instanceof UnsafeFileError) return error;
        throw error;
    }
    throw new Error("the read was not refused");
}

describe("readRegularFileSync", () => {
    it("reads a regular file whole, or its first bytes under a cap", () => {
        expect(readRegularTextSync(join(repo, "notes.md"))).toBe("in the repo");
        const capped = readRegularFileSync(join(repo, "notes.md"), { cap: 2 });
        expect(capped).toMatchObject({ size: 11, truncated: true });
        expect(capped.bytes.toString()).toBe("in");
    });

    it("refuses a FIFO with no writer at once instead of blocking", () => {
        const path = join(repo, "settings.json");
        const guard = guardedFifo(path);
        guards.push(guard);
        const error = refusal(() => readRegularFileSync(path, { label: "settings.json" }));
        expect(guard.fired()).toBe(false);
        expect(error.reason).toBe("not_regular");
        expect(error.message).toBe("settings.json is a FIFO; not read");
    });

    it("refuses a character device such as /dev/zero", () => {
        expect(refusal(() => readRegularFileSync("/dev/zero")).message).toBe(
            "/dev/zero is a character device; not read"
        );
    });

    it("with insideRoot, refuses a symlink that leads out of the root and says why", () => {
        symlinkSync(join(outside, "secret.txt"), join(repo, "CLAUDE.md"));
        const error = refusal(() =>
            readRegularTextSync(join(repo, "CLAUDE.md"), { insideRoot: repo, label: "CLAUDE.md" })
        );
        expect(error.reason).toBe("outside_root");
        expect(error.message).toBe(
            "CLAUDE.md is a symlink to a file outside the repository; not read (copy the file in to use it)"
        );
        // A symlinked folder on the way out is refused the same way.
        symlinkSync(outside, join(repo, "linked"));
        expect(
            refusal(() =>
                readRegularTextSync(join(repo, "linked", "secret.txt"), { insideRoot: repo })
            ).reason
        ).toBe("outside_root");
    });

    it("with insideRoot, follows a symlink that stays inside the root", () => {
        symlinkSync("notes.md", join(repo, "AGENTS.md"));
        expect(readRegularTextSync(join(repo, "AGENTS.md"), { insideRoot: repo })).toBe(
            "in the repo"
        );
    });

    it("without insideRoot (the user's own dotfiles), follows a symlink anywhere", () => {
        symlinkSync(join(outside, "secret.txt"), join(repo, "dotfile.md"));
        expect(readRegularTextSync(join(repo, "dotfile.md"))).toBe("TOP-SECRET");
    });

    it("keeps the system's error for a missing file", () => {
        expect(() => readRegularTextSync(join(repo, "missing.md"), { insideRoot: repo })).toThrow(
            expect.objectContaining({ code: "ENOENT" })
        );
    });
});
