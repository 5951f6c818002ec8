import type { PermissionEntry, PermissionListing } from "../../agent/protocol";
import { type CommandDefinition, type CommandPlan, failure, result, shown, submit } from "../types";

const HEADINGS = { deny: "Deny", ask: "Ask", allow: "Allow" } as const;

/** The picker's id for the accept-edits mode (removing it switches back to agent). */
const MODE_ID = "mode";

const ACCEPT_EDITS_LINE =
    "Mode: accept edits on - every edit is applied without review (this session; Shift+Tab or /mode agent switches back)";

/** `mcp__plugin_<plugin>_<server>__…`: a rule about a plugin's MCP server's tool (`plugin:<plugin>:<server>`). */
function pluginOf(rule: string): string | undefined {
    const match = /^mcp__plugin_([A-Za-z0-9_-]+?)__/.exec(rule);
    return match ? `a tool of a plugin's MCP server (plugin_${match[1]})` : undefined;
}

function entryLine(entry: PermissionEntry): string {
    const notes = [
        entry.note,
        pluginOf(entry.text),
        entry.inForce ? undefined : "not in force",
    ].filter(Boolean);
    const suffix = notes.length > 0 ? ` (${notes.join("; ")})` : "";
    return `${entry.text}${suffix} - ${entry.source}`;
}

/**
 * The entries grouped deny / ask / allow (the order they are applied in and
 * the listing's order), numbered for `/permissions remove <n>`, each with its
 * file; the accept-edits mode first when it is on.
 */
export function formatPermissions(listing: PermissionListing): string {
    const lines: string[] = [];
    if (listing.mode === "accept-edits") lines.push(ACCEPT_EDITS_LINE);
    let number = 0;
    for (const kind of ["deny", "ask", "allow"] as const) {
        const entries = listing.rules.filter((r) => r.kind === kind);
        if (entries.length === 0) continue;
        lines.push(`${HEADINGS[kind]}:`);
        for (const entry of entries) lines.push(`  ${++number}. ${entryLine(entry)}`);
    }
    if (lines.length === 0) {
        lines.push(
            'No permission rules. Add them under "permissions" ({ "allow": [], "deny": [], "ask": [] }) in .north/settings.json, .north/settings.local.json or ~/.config/north/config.json.'
        );
    } else if (number > 0) {
        lines.push("Remove one with /permissions remove <number>.");
    }
    lines.push(...listing.notes);
    return lines.join("\n");
}

/** The entry `arg` names: its number as listed, or its text when exactly one entry has it. */
function entryNumber(listing: PermissionListing, arg: string): number | string {
    if (/^\d+$/.test(arg)) return Number(arg);
    const matches = listing.rules.flatMap((r, i) => (r.text === arg ? [i + 1] : []));
    if (matches.length === 1) return matches[0]!;
    return matches.length === 0
        ? `no entry is "${arg}"; /permissions lists them with their numbers`
        : `${matches.length} entries are "${arg}" (numbers ${matches.join(", ")}): name one by its number`;
}

/** The chat's picker: choosing an entry removes it (one that cannot be removed says why). */
function pickToRemove(listing: PermissionListing): CommandPlan {
    const options = listing.rules.map((entry, i) => ({
        id: String(i + 1),
        label: `${entry.kind} ${entryLine(entry)}`,
        hint: entry.fixed ?? "Enter removes it",
    }));
    if (listing.mode === "accept-edits") {
        options.unshift({
            id: MODE_ID,
            label: "mode: accept edits on (every edit without review) - this session",
            hint: "Enter switches back to agent",
        });
    }
    if (options.length === 0) return result(formatPermissions(listing));
    return {
        kind: "choose",
        title: "Permissions: choose one to remove (Esc keeps them all)",
        options,
        note: listing.notes.join(" ") || undefined,
        onChoice(chosen) {
            if (chosen === null) return result(formatPermissions(listing));
            if (chosen === MODE_ID) {
                return submit({ type: "set_mode", mode: "agent" }, () =>
                    result("Mode: agent. Edits are reviewed again.")
                );
            }
            return submit({ type: "remove_permission", number: Number(chosen) }, shown);
        },
    };
}

export const permissionsCommand: CommandDefinition = {
    name: "permissions",
    description:
        "List the permission rules and standing approvals in force and where each is kept; remove one",
    usage: "/permissions [remove <number|rule>]",
    maxPositional: 2,
    plan(args, view) {
        const [action, target] = args.positional;
        if (action !== undefined && (action !== "remove" || target === undefined)) {
            return failure(`usage: ${permissionsCommand.usage}`);
        }
        return submit({ type: "permissions" }, (listing) => {
            if (target === undefined) {
                return view.chat ? pickToRemove(listing) : result(formatPermissions(listing));
            }
            const number = entryNumber(listing, target);
            if (typeof number === "string") return failure(number);
            return submit({ type: "remove_permission", number }, shown);
        });
    },
};
