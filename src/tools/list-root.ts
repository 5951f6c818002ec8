/**
 * list_root: the entries at the top of the project, ignored ones left out,
 * directories first (marked with a trailing "/").
 */
import { type InputOf, toolInput } from "./tool-input";
import { listDirectoryEntries } from "../util/ignore-walk";
import { isReadableRel } from "./read-denial";
import { type ToolDefinition, type ToolResult, toolOk } from "./types";
import { asRecord, plural } from "./display-text";
import { ROOT_MAX_ENTRIES } from "./limits";

export const MAX_ROOT_ENTRIES = ROOT_MAX_ENTRIES;

const input = toolInput((z) => z.object({}));

export type ListRootInput = InputOf<typeof input>;

export interface ListRootResult {
    /** Directories first ("src/"), then files; symbolic links end in "@". */
    entries: string[];
    totalEntries: number;
    truncated: boolean;
    note?: string;
}

const DESCRIPTION = `The project root: directories (ending in "/"), then files; no .gitignore'd entries, node_modules or VCS folders. At most ${MAX_ROOT_ENTRIES}; find_files goes deeper.`;

export function createListRootTool(): ToolDefinition<ListRootInput, ListRootResult> {
    return {
        name: "list_root",
        description: DESCRIPTION,
        input,
        approvalPolicy: "none",
        readOnly: true,
        display: {
            title: () => "Listing project files",
            resultSuffix: (details) => {
                const { totalEntries } = asRecord(details);
                return typeof totalEntries === "number"
                    ? ` - ${plural(totalEntries, "entry", "entries")}`
                    : "";
            },
        },
        hookAliases: ["LS"],
        async execute(_args, ctx): Promise<ToolResult<ListRootResult>> {
            const listed = (await listDirectoryEntries(ctx.repoRoot)).filter((e) =>
                isReadableRel(ctx, e.name)
            );
            const dirs = listed.filter((e) => e.isDir && !e.isSymlink).map((e) => `${e.name}/`);
            const files = listed.filter((e) => !e.isDir && !e.isSymlink).map((e) => e.name);
            const links = listed.filter((e) => e.isSymlink).map((e) => `${e.name}@`);
            const all = [...dirs, ...files, ...links];
            const entries = all.slice(0, MAX_ROOT_ENTRIES);
            const result: ListRootResult = {
                entries,
                totalEntries: all.length,
                truncated: all.length > entries.length,
            };
            const notes: string[] = [];
            if (result.truncated) {
                notes.push(
                    `Showing ${entries.length} of ${all.length} entries; use find_files to search.`
                );
            }
            if (links.length > 0) {
                notes.push(
                    'Entries ending in "@" are symbolic links; find_files and search_text do not follow them.'
                );
            }
            if (all.length === 0)
                notes.push("The project root is empty (or everything in it is ignored).");
            if (notes.length > 0) result.note = notes.join(" ");
            return toolOk(result);
        },
    };
}
