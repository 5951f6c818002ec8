/**
 * The project's files for @ mentions: built lazily on first use with the
 * same ignore rules and listing as find_files (.gitignore and friends; tracked
 * files and symbolic links as git lists them), capped, and kept for the session.
 */
import { collectFiles } from "../util/ignore-walk";
import { createFuzzyMatcher } from "./fuzzy";

/** Large monorepos included; the spec's 5,000 cap is far too small for them. */
export const FILE_INDEX_CAP = 200_000;

export interface FileIndex {
    /** The files, once built; null before (the first call starts the build). */
    files(): readonly string[] | null;
    /** Builds the index (once) and resolves with it. */
    ready(): Promise<readonly string[]>;
    /** The best matches, or null while the index is still being built. */
    search(query: string, limit?: number): string[] | null;
}

export function createFileIndex(root: string, maxFiles = FILE_INDEX_CAP): FileIndex {
    let built: string[] | null = null;
    let matcher: ReturnType<typeof createFuzzyMatcher> | null = null;
    let building: Promise<readonly string[]> | null = null;
    const ready = (): Promise<readonly string[]> => {
        building ??= (async () => {
            let files: string[] = [];
            try {
                files = await collectFiles(root, { maxFiles, tracked: true, symlinks: true });
            } catch {
                // An unreadable tree gives an empty index, not a crash.
            }
            built = files;
            matcher = createFuzzyMatcher(files);
            return files;
        })();
        return building;
    };
    return {
        files() {
            if (!built) void ready();
            return built;
        },
        ready,
        search(query, limit = 10) {
            this.files();
            return matcher ? matcher.search(query, limit) : null;
        },
    };
}
