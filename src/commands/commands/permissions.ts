import type { CommandDefinition, PermissionListing } from "../types";

const HEADINGS = { deny: "Deny", ask: "Ask", allow: "Allow" } as const;

/** The rules grouped deny / ask / allow (the order they are applied in), each with its source. */
export function formatPermissions(listing: PermissionListing): string {
    const lines: string[] = [];
    for (const kind of ["deny", "ask", "allow"] as const) {
        const rules = listing.rules.filter((r) => r.kind === kind);
        if (rules.length === 0) continue;
        lines.push(`${HEADINGS[kind]}:`);
        for (const rule of rules) {
            const notes = [rule.note, rule.inForce ? undefined : "not in force"].filter(Boolean);
            const suffix = notes.length > 0 ? ` (${notes.join("; ")})` : "";
            lines.push(`  ${rule.text}${suffix} - ${rule.source}`);
        }
    }
    if (lines.length === 0) {
        lines.push(
            'No permission rules. Add them under "permissions" ({ "allow": [], "deny": [], "ask": [] }) in .north/settings.json, .north/settings.local.json or ~/.config/north/config.json.'
        );
    }
    lines.push(...listing.notes);
    return lines.join("\n");
}

export const permissionsCommand: CommandDefinition = {
    name: "permissions",
    description: "List the permission rules in force and where each comes from",
    usage: "/permissions",
    maxPositional: 0,
    async execute(ctx) {
        return { message: formatPermissions(ctx.permissions()) };
    },
};
