import type { PluginPrepared, PluginsListing } from "../../agent/protocol";
import { type CommandDefinition, type CommandPlan, failure, result, shown, submit } from "../types";

const USAGE =
    "/plugin [list | install NAME@MARKET | update ID | enable ID | disable ID | remove ID | marketplace add SOURCE|list|update [NAME]|remove NAME]";

/** Print mode and ACP cannot show the inventory and take a yes: the CLI can. */
const CONFIRM_ELSEWHERE = (id: string, update: boolean): string =>
    `/plugin ${update ? "update" : "install"} needs your yes after you read what ${id} may run, and this front-end cannot ask: use /plugin in North's chat, or run \`north plugin ${update ? "update" : "install"} ${id}\` in a terminal (it lists what the plugin may run and asks; \`--yes\` answers for you).`;

export const INSTALL_CHOICE = "install";
export const CANCEL_CHOICE = "cancel";

/** The plugins as lines: installed (with their state), then what the marketplaces offer. */
export function pluginsText(listing: PluginsListing): string {
    const lines: string[] = [];
    if (listing.installed.length > 0) {
        lines.push("Installed:");
        for (const p of listing.installed) {
            const state = p.held ? `held: ${p.held}` : p.enabled ? "enabled" : "disabled";
            lines.push(`  ${p.id}${p.version ? ` ${p.version}` : ""}  ${state}`);
        }
    }
    const offered = listing.available.filter((a) => !a.installed);
    if (offered.length > 0) {
        lines.push("Available:");
        for (const a of offered) {
            lines.push(`  ${a.id}${a.description ? `  ${a.description}` : ""}`);
        }
    }
    if (listing.marketplaces.length > 0) {
        lines.push("Marketplaces:");
        for (const m of listing.marketplaces) {
            lines.push(`  ${m.name}  ${m.source}${m.commit ? ` @ ${m.commit.slice(0, 12)}` : ""}`);
        }
    } else
        lines.push(
            "No marketplaces. Add one: /plugin marketplace add owner/repo (or a git URL, a path)."
        );
    for (const error of listing.errors) lines.push(`warning: ${error}`);
    return lines.join("\n");
}

/** The chat's yes or no on a prepared plugin: its inventory, Cancel first. */
function confirmPrepared(prepared: PluginPrepared): CommandPlan {
    if (!prepared.ok) return failure(prepared.error);
    if ("upToDate" in prepared) return result(prepared.message);
    const { token } = prepared;
    if (!prepared.needsApproval) return submit({ type: "plugin_commit", token }, shown);
    const verb = prepared.update ? "Update" : "Install";
    return {
        kind: "choose",
        title: `${verb} ${prepared.id}? It may run:`,
        note: prepared.lines.join("\n"),
        options: [
            { id: CANCEL_CHOICE, label: "Cancel", hint: "nothing is installed" },
            { id: INSTALL_CHOICE, label: verb, hint: "its hooks and servers run in your sessions" },
        ],
        onChoice: (choice) =>
            choice === INSTALL_CHOICE
                ? submit({ type: "plugin_commit", token }, shown)
                : submit({ type: "plugin_discard", token }, shown),
    };
}

function installOrUpdate(id: string | undefined, update: boolean, chat: boolean): CommandPlan {
    if (!id) return failure(`usage: /plugin ${update ? "update ID" : "install NAME@MARKET"}`);
    if (!chat) return failure(CONFIRM_ELSEWHERE(id, update));
    return submit({ type: "plugin_prepare", id, update }, confirmPrepared);
}

function marketplace(words: string[]): CommandPlan {
    const [action, arg] = words;
    switch (action) {
        case "add":
            if (!arg) return failure("usage: /plugin marketplace add owner/repo | GIT-URL | PATH");
            return submit({ type: "marketplace_add", source: arg }, shown);
        case "update":
            return submit({ type: "marketplace_update", ...(arg ? { name: arg } : {}) }, shown);
        case "remove":
        case "rm":
            if (!arg) return failure("usage: /plugin marketplace remove NAME");
            return submit({ type: "marketplace_remove", name: arg }, shown);
        case undefined:
        case "list":
            return submit({ type: "plugins" }, (listing) => {
                if (listing.marketplaces.length === 0) return result(pluginsText(listing));
                return result(
                    listing.marketplaces
                        .map(
                            (m) =>
                                `${m.name}  ${m.source}${m.commit ? ` @ ${m.commit.slice(0, 12)}` : ""}`
                        )
                        .join("\n")
                );
            });
        default:
            return failure(
                `unknown /plugin marketplace action "${action}": add, list, update or remove`
            );
    }
}

export const pluginCommand: CommandDefinition = {
    name: "plugin",
    aliases: ["plugins"],
    description: "Browse, install, enable and remove plugins and their marketplaces",
    usage: USAGE,
    maxPositional: 3,
    plan: (args, view) => {
        const [action, ...rest] = args.positional;
        const id = rest[0];
        switch (action) {
            case undefined:
                // The chat opens its picker; elsewhere the list.
                return submit({ type: "plugins" }, (listing) =>
                    view.chat ? { kind: "plugins", listing } : result(pluginsText(listing))
                );
            case "list":
            case "ls":
                return submit({ type: "plugins" }, (listing) => result(pluginsText(listing)));
            case "install":
            case "i":
                return installOrUpdate(id, false, view.chat);
            case "update":
                return installOrUpdate(id, true, view.chat);
            case "enable":
            case "disable":
                if (!id) return failure(`usage: /plugin ${action} NAME@MARKET`);
                return submit(
                    { type: "plugin_set_enabled", id, enabled: action === "enable" },
                    shown
                );
            case "remove":
            case "uninstall":
                if (!id) return failure("usage: /plugin remove NAME@MARKET");
                return submit({ type: "plugin_remove", id }, shown);
            case "marketplace":
            case "market":
                return marketplace(rest);
            default:
                return failure(`unknown /plugin action "${action}"; usage: ${USAGE}`);
        }
    },
};
