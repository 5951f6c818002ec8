import { createHash } from "node:crypto";
import { mkdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { writeConfigFileAtomicSync } from "../util/atomic-write";
import { readRegularTextSync } from "../util/read-regular-file";

/** Stable id of a project: the first 16 hex chars of the SHA-256 of its root path. */
export function projectHash(repoRoot: string): string {
    return createHash("sha256").update(repoRoot).digest("hex").slice(0, 16);
}

/**
 * The learned profile of a project, kept outside the repo at
 * `~/.north/projects/<hash>/profile.md` (no generated file to commit), and the
 * marker of a user who declined learning (`declined.json`).
 */
export function createProfileStore(dataDirectory: string, repoRoot: string) {
    const dir = join(dataDirectory, "projects", projectHash(repoRoot));
    const profilePath = join(dir, "profile.md");
    const declinedPath = join(dir, "declined.json");
    const exists = (path: string): boolean => {
        try {
            return statSync(path).isFile();
        } catch {
            return false;
        }
    };
    return {
        dir,
        profilePath,
        hasProfile: (): boolean => exists(profilePath),
        /** The profile text, or null when there is none (or it was deleted meanwhile). */
        loadProfile(): string | null {
            try {
                return readRegularTextSync(profilePath);
            } catch {
                return null;
            }
        },
        saveProfile(markdown: string): void {
            mkdirSync(dir, { recursive: true, mode: 0o700 });
            writeConfigFileAtomicSync(profilePath, markdown);
        },
        hasDeclined: (): boolean => exists(declinedPath),
        markDeclined(): void {
            mkdirSync(dir, { recursive: true, mode: 0o700 });
            writeConfigFileAtomicSync(
                declinedPath,
                JSON.stringify({ declinedAt: new Date().toISOString(), repoRoot }) + "\n"
            );
        },
        clearDeclined(): void {
            rmSync(declinedPath, { force: true });
        },
    };
}

export type ProfileStore = ReturnType<typeof createProfileStore>;
