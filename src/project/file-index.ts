/**
 * The project's files for @ mentions: built lazily on first use with the
 * same ignore rules as the tools (.gitignore and friends), capped, and kept
 * for the session.
 */
import { walkFiles } from "../util/ignore-walk";
import { fuzzyFilter } from "./fuzzy";

export const FILE_INDEX_CAP = 5000;

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
    let building: Promise<readonly string[]> | null = null;
    const ready = (): Promise<readonly string[]> => {
        building ??= (async () => {
            const files: string[] = [];
            try {
                for await (const file of walkFiles(root, { maxFiles })) files.push(file);
            } catch {
                // An unreadable tree gives what was found so far.
            }
            built = files;
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
            const files = this.files();
            return files ? fuzzyFilter(query, files, limit) : null;
        },
    };
}
