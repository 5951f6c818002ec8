/**
 * `north plugin …`: Claude Code marketplaces and plugins from the shell.
 * Install and update show what the plugin may run and take the user's yes
 * (`--yes` without a terminal); nothing of a plugin runs here.
 */
import { parseArgs } from "node:util";
import {
    type PluginContext,
    PluginError,
    type PreparedPlugin,
    addMarketplace,
    commitPrepared,
    describeSource,
    discardPrepared,
    listAvailablePlugins,
    listMarketplaces,
    parsePluginSourceText,
    prepareInstall,
    prepareUpdate,
    removeMarketplace,
    removePlugin,
    resolveAvailableId,
    resolveInstalledId,
    setPluginEnabled,
    updateMarketplaces,
} from "../agent/plugins/operations";
import { detectRepoRoot } from "../project/repo-root";
import { dataDir } from "../storage/paths";
import { readInstalledPlugins } from "../storage/plugins/store";
import { closestMatches } from "../util/levenshtein";
import { printError, printWarning, writeStdout } from "../util/terminal-text";
import { confirmPluginChange } from "./plugin-consent";

export const PLUGIN_HELP_TEXT = `Usage:
  north plugin marketplace add SOURCE        clone a marketplace and pin it to its current commit
  north plugin marketplace list [--json]     the added marketplaces, their sources and commits
  north plugin marketplace update [NAME]     fetch one marketplace (or all) and move the pin
  north plugin marketplace remove NAME       remove it and every plugin installed from it
  north plugin install NAME[@MARKET] [--yes] show what the plugin may run, then install it
  north plugin list [--json] [--available]   installed plugins (--available: every listed plugin)
  north plugin update [ID | --all] [--yes]   update from the marketplace; asks again when any file changed
  north plugin enable ID                     switch an installed plugin on
  north plugin disable ID                    switch it off (its hooks and servers stop)
  north plugin remove ID [--keep-data]       uninstall (aliases: uninstall, rm); --keep-data keeps its data folder

SOURCE: owner/repo[@ref] (GitHub), a git URL (https, ssh, git@host:path, file://) with an
optional #ref, or a local git repository's path. ID: name@marketplace, or the bare name when
only one marketplace has it.
`;

const SUBCOMMANDS = [
    "marketplace",
    "install",
    "list",
    "update",
    "enable",
    "disable",
    "remove",
    "uninstall",
    "rm",
    "help",
];
const MARKETPLACE_SUBCOMMANDS = ["add", "list", "update", "remove", "rm"];

class UsageError extends Error {}

type Flags = Record<string, { type: "boolean" | "string"; short?: string }>;

function parse(
    argv: string[],
    command: string,
    flags: Flags
): { values: Record<string, unknown>; positionals: string[] } {
    try {
        const parsed = parseArgs({
            args: argv,
            options: flags,
            allowPositionals: true,
            strict: true,
        });
        return {
            values: parsed.values as Record<string, unknown>,
            positionals: parsed.positionals,
        };
    } catch (error) {
        const unknown = /Unknown option '([^']+)'/.exec((error as Error).message)?.[1];
        if (unknown !== undefined) {
            const close = closestMatches(
                unknown,
                Object.keys(flags).map((flag) => `--${flag}`),
                1
            );
            throw new UsageError(
                `north plugin ${command}: unknown option ${unknown}` +
                    (close.length ? ` (did you mean ${close[0]}?)` : "")
            );
        }
        throw new UsageError(`north plugin ${command}: ${(error as Error).message}`);
    }
}

function positionals(
    parsed: { positionals: string[] },
    command: string,
    min: number,
    max: number,
    what: string
): string[] {
    const list = parsed.positionals;
    if (list.length < min || list.length > max)
        throw new UsageError(`north plugin ${command} ${what}`);
    return list;
}

function unknownCommand(word: string, candidates: string[], prefix: string): never {
    const close = closestMatches(word, candidates, 1);
    throw new UsageError(
        `unknown command ${prefix}${word}` +
            (close.length ? ` (did you mean ${prefix}${close[0]}?)` : "") +
            " (see north plugin --help)"
    );
}

/** Entry point of `north plugin …`; `argv` is what follows `plugin`. */
export async function runPluginCommand(argv: string[], _version: string): Promise<number> {
    const [action, ...rest] = argv;
    if (action === undefined || action === "--help" || action === "-h" || action === "help") {
        writeStdout(PLUGIN_HELP_TEXT);
        return action === undefined ? 2 : 0;
    }
    const repo = detectRepoRoot(process.cwd());
    const ctx: PluginContext = {
        dataDir: dataDir(),
        projectDir: repo.ok ? repo.root : process.cwd(),
    };
    try {
        if (rest.includes("--help") || rest.includes("-h")) {
            writeStdout(PLUGIN_HELP_TEXT);
            return 0;
        }
        switch (action) {
            case "marketplace":
                return await marketplaceCommand(rest, ctx);
            case "install":
                return await installCommand(rest, ctx);
            case "list":
                return await listCommand(rest, ctx);
            case "update":
                return await updateCommand(rest, ctx);
            case "enable":
            case "disable": {
                const [text] = positionals(
                    parse(rest, action, {}),
                    action,
                    1,
                    1,
                    "needs one plugin id (name@marketplace)"
                );
                const id = resolveInstalledId(ctx, text!);
                setPluginEnabled(ctx, id, action === "enable");
                writeStdout(
                    `${id} ${action}d${action === "disable" ? ": its hooks and servers stop in new sessions" : ""}\n`
                );
                return 0;
            }
            case "remove":
            case "uninstall":
            case "rm": {
                const parsed = parse(rest, action, { "keep-data": { type: "boolean" } });
                const [text] = positionals(
                    parsed,
                    action,
                    1,
                    1,
                    "needs one plugin id (name@marketplace)"
                );
                const id = resolveInstalledId(ctx, text!);
                await removePlugin(ctx, id, { keepData: parsed.values["keep-data"] === true });
                writeStdout(
                    `removed ${id}${parsed.values["keep-data"] === true ? " (its data folder kept)" : ""}\n`
                );
                return 0;
            }
            default:
                return unknownCommand(action, SUBCOMMANDS, "");
        }
    } catch (error) {
        if (error instanceof UsageError) {
            printError(error.message);
            return 2;
        }
        if (error instanceof PluginError) {
            printError(error.message);
            return 1;
        }
        printError((error as Error).message ?? String(error));
        return 1;
    }
}

async function marketplaceCommand(argv: string[], ctx: PluginContext): Promise<number> {
    const [action, ...rest] = argv;
    if (action === undefined)
        throw new UsageError(
            "north plugin marketplace needs a command: add, list, update or remove"
        );
    switch (action) {
        case "add": {
            const [text] = positionals(
                parse(rest, "marketplace add", {}),
                "marketplace add",
                1,
                1,
                "needs one SOURCE"
            );
            const record = await addMarketplace(ctx, parsePluginSourceText(text!, process.cwd()));
            const plugins = await listAvailablePlugins(ctx, record.name);
            writeStdout(
                `added marketplace ${record.name} from ${describeSource(record.source)} at ${record.commit?.slice(0, 12) ?? "?"}: ` +
                    `${plugins.length} plugin${plugins.length === 1 ? "" : "s"} (north plugin list --available)\n`
            );
            return 0;
        }
        case "list": {
            const parsed = parse(rest, "marketplace list", { json: { type: "boolean" } });
            positionals(parsed, "marketplace list", 0, 0, "takes no arguments");
            const markets = listMarketplaces(ctx);
            if (parsed.values.json === true) {
                writeStdout(`${JSON.stringify(markets, null, 2)}\n`);
                return 0;
            }
            if (markets.length === 0)
                writeStdout("no marketplaces added (north plugin marketplace add SOURCE)\n");
            for (const market of markets) {
                writeStdout(
                    `${market.name}  ${describeSource(market.source)}  ${market.commit?.slice(0, 12) ?? ""}  updated ${market.updatedAt}\n`
                );
            }
            return 0;
        }
        case "update": {
            const [name] = positionals(
                parse(rest, "marketplace update", {}),
                "marketplace update",
                0,
                1,
                "takes at most one NAME"
            );
            const updated = await updateMarketplaces(ctx, name);
            if (updated.length === 0) writeStdout("no marketplaces added\n");
            for (const market of updated)
                writeStdout(`${market.name} at ${market.commit?.slice(0, 12) ?? "?"}\n`);
            return 0;
        }
        case "remove":
        case "rm": {
            const [name] = positionals(
                parse(rest, "marketplace remove", {}),
                "marketplace remove",
                1,
                1,
                "needs one NAME"
            );
            const { removedPlugins } = await removeMarketplace(ctx, name!);
            writeStdout(
                `removed marketplace ${name}` +
                    (removedPlugins.length ? ` and its plugins ${removedPlugins.join(", ")}` : "") +
                    "\n"
            );
            return 0;
        }
        default:
            return unknownCommand(action, MARKETPLACE_SUBCOMMANDS, "marketplace ");
    }
}

/** Shows the inventory and takes the yes; commits or discards. Returns whether it was done. */
async function approveAndCommit(
    prepared: PreparedPlugin,
    ctx: PluginContext,
    yes: boolean
): Promise<boolean> {
    for (const warning of prepared.warnings) printWarning(warning);
    let approved = false;
    try {
        approved = await confirmPluginChange(prepared, { yes });
    } finally {
        if (!approved) await discardPrepared(prepared);
    }
    if (!approved) return false;
    const record = await commitPrepared(ctx, prepared);
    writeStdout(
        `${prepared.previous ? "updated" : "installed"} ${record.id}` +
            (record.version ? ` ${record.version}` : "") +
            (record.enabled ? "" : " (disabled: north plugin enable " + record.id + ")") +
            "\n"
    );
    return true;
}

async function installCommand(argv: string[], ctx: PluginContext): Promise<number> {
    const parsed = parse(argv, "install", { yes: { type: "boolean", short: "y" } });
    const [text] = positionals(parsed, "install", 1, 1, "needs one plugin (name@marketplace)");
    const id = await resolveAvailableId(ctx, text!);
    const prepared = await prepareInstall(ctx, id);
    return (await approveAndCommit(prepared, ctx, parsed.values.yes === true)) ? 0 : 1;
}

async function updateCommand(argv: string[], ctx: PluginContext): Promise<number> {
    const parsed = parse(argv, "update", {
        yes: { type: "boolean", short: "y" },
        all: { type: "boolean", short: "a" },
    });
    const [text] = positionals(parsed, "update", 0, 1, "takes one plugin id or --all");
    const all = parsed.values.all === true;
    if (all === (text !== undefined))
        throw new UsageError("north plugin update needs one plugin id or --all");
    const ids = all
        ? Object.keys(readInstalledPlugins(ctx.dataDir)).sort()
        : [resolveInstalledId(ctx, text!)];
    if (ids.length === 0) writeStdout("no plugins installed\n");
    let failed = false;
    for (const id of ids) {
        const result = await prepareUpdate(ctx, id);
        if ("upToDate" in result) {
            writeStdout(`${id} is up to date\n`);
            continue;
        }
        if (!(await approveAndCommit(result, ctx, parsed.values.yes === true))) failed = true;
    }
    return failed ? 1 : 0;
}

async function listCommand(argv: string[], ctx: PluginContext): Promise<number> {
    const parsed = parse(argv, "list", {
        json: { type: "boolean" },
        available: { type: "boolean" },
    });
    positionals(parsed, "list", 0, 0, "takes no arguments");
    const json = parsed.values.json === true;
    if (parsed.values.available === true) {
        const available = await listAvailablePlugins(ctx);
        if (json) {
            writeStdout(`${JSON.stringify(available, null, 2)}\n`);
            return 0;
        }
        if (available.length === 0)
            writeStdout("no plugins listed (north plugin marketplace add SOURCE)\n");
        for (const plugin of available) {
            const state = plugin.installed
                ? plugin.enabled
                    ? "  [installed]"
                    : "  [installed, disabled]"
                : "";
            writeStdout(
                `${plugin.id}${plugin.version ? ` ${plugin.version}` : ""}${state}${plugin.description ? `  ${plugin.description}` : ""}\n`
            );
        }
        return 0;
    }
    const installed = Object.values(readInstalledPlugins(ctx.dataDir)).sort((a, b) =>
        a.id.localeCompare(b.id)
    );
    if (json) {
        writeStdout(`${JSON.stringify(installed, null, 2)}\n`);
        return 0;
    }
    if (installed.length === 0)
        writeStdout("no plugins installed (north plugin list --available)\n");
    for (const record of installed) {
        writeStdout(
            `${record.id}${record.version ? ` ${record.version}` : ""}  ${record.enabled ? "enabled" : "disabled"}  ${record.path}\n`
        );
    }
    return 0;
}
