import type { MemoryListing, MemoryScope } from "../../agent/protocol";
import {
    type CommandDefinition,
    type CommandPlan,
    type CommandView,
    failure,
    result,
    shown,
    submit,
} from "../types";

function size(bytes: number): string {
    return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}

function listingText(listing: MemoryListing): string {
    const lines: string[] = [];
    for (const dir of listing.dirs) {
        const files = listing.files.filter((f) => f.scope === dir.scope);
        lines.push(`${dir.scope === "user" ? "User" : "Project"} memory (${dir.dir}):`);
        if (files.length === 0) lines.push("  (none)");
        for (const file of files) {
            const state =
                file.loadedBytes === 0
                    ? "not loaded"
                    : file.loadedBytes < file.bytes
                      ? `first ${size(file.loadedBytes)} loaded (memory cap)`
                      : "loaded";
            lines.push(
                `  ${file.label.slice(dir.label.length + 1)}  ${size(file.bytes)}, ${state}`
            );
        }
    }
    lines.push(...listing.warnings.map((w) => `warning: ${w}`));
    lines.push(
        "Save a note: start a chat line with # (project memory), /memory add --user NOTE (yours, every project), or ask North to remember it. /memory edit [--user] opens MEMORY.md in $VISUAL or $EDITOR; topic files are *.md beside it."
    );
    return lines.join("\n");
}

/** The scope's `MEMORY.md` in the user's editor (the chat), then memory reloaded. */
function editMemory(scope: MemoryScope, view: CommandView): CommandPlan {
    if (!view.chat) {
        return failure(
            "/memory edit works in the chat (north); in print mode edit the MEMORY.md that /memory lists"
        );
    }
    return submit({ type: "memory_file", scope }, (file) => {
        if (!file.ok) return failure(`Cannot edit memory: ${file.error}`);
        return {
            kind: "edit",
            path: file.path,
            onEdited: (edited) =>
                edited.ok ? submit({ type: "reload_memory" }, shown) : failure(edited.error),
        };
    });
}

export const memoryCommand: CommandDefinition = {
    name: "memory",
    description: "Show or edit the memory North loads (yours and the project's)",
    usage: "/memory [add [--user] NOTE | edit [--user]]",
    maxPositional: Number.POSITIVE_INFINITY,
    flags: { user: { takesValue: false } },
    plan(args, view) {
        const [action, ...rest] = args.positional;
        if (action === undefined) {
            return submit({ type: "memory" }, (listing) => result(listingText(listing)));
        }
        const scope = args.flags.user === true ? "user" : "project";
        if (action === "edit") {
            if (rest.length > 0) {
                return failure(
                    `/memory edit takes no note (got "${rest.join(" ")}"); it opens MEMORY.md in your editor`
                );
            }
            return editMemory(scope, view);
        }
        if (action !== "add") {
            return failure(
                `unknown /memory action "${action}"; try /memory, /memory add NOTE or /memory edit`
            );
        }
        return submit({ type: "remember", note: rest.join(" "), scope }, shown);
    },
};
