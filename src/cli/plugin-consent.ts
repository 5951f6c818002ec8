/**
 * The terminal's yes before a plugin is installed or updated: everything the
 * plugin can run (each hook command, each MCP and language server's launch
 * line, `npx …` included), its commands, agents, skills and styles, what North
 * does not support of it, and for an update what changed since the copy the
 * user approved. The answer defaults to no; Ctrl+C and end of input are no.
 * Without a terminal nobody can answer, so only `--yes` says yes.
 */
import { createInterface } from "node:readline";
import type { PreparedPlugin } from "../agent/plugins/operations";
import { formatInventory } from "../project/plugins/inventory";
import type { PluginInventory } from "../project/plugins/types";
import { terminalSafeText } from "../util/terminal-text";

/**
 * What the question needs of B's `PreparedPlugin`; `previousInventory` (when
 * the preparation has it) lets an update say what changed part by part.
 */
export type PluginChange = Pick<PreparedPlugin, "id" | "inventory" | "needsApproval"> & {
    previous?: Pick<NonNullable<PreparedPlugin["previous"]>, "version" | "commit">;
    previousInventory?: PluginInventory;
};

export interface PluginConsentOptions {
    /** `--yes`: approved without a question (scripts, CI). */
    yes: boolean;
    input?: NodeJS.ReadableStream;
    output?: NodeJS.WritableStream;
}

/** Each part of an inventory as one comparable line per thing it names. */
function partLines(inventory: PluginInventory): string[] {
    return [
        ...inventory.hooks.map(
            (h) => `hook ${h.event}${h.matcher ? ` ${h.matcher}` : ""}: runs ${h.command}`
        ),
        ...inventory.mcpServers.map((s) => `MCP server ${s.name}: ${s.launch}`),
        ...inventory.lspServers.map((s) => `language server ${s.name}: ${s.launch}`),
        ...inventory.commands.map((c) => `command ${c}`),
        ...inventory.agents.map((a) => `agent ${a}`),
        ...inventory.skills.map((s) => `skill ${s}`),
        ...inventory.outputStyles.map((s) => `output style ${s}`),
    ];
}

/** What an update adds and removes, one line each; empty when the parts read the same. */
export function describePluginChanges(before: PluginInventory, after: PluginInventory): string[] {
    const old = new Set(partLines(before));
    const now = new Set(partLines(after));
    return [
        ...[...now].filter((line) => !old.has(line)).map((line) => `  + ${line}`),
        ...[...old].filter((line) => !now.has(line)).map((line) => `  - ${line}`),
    ];
}

function versionText(v: { version?: string; commit?: string } | undefined): string {
    if (!v) return "?";
    if (v.version && v.commit) return `${v.version} (${v.commit.slice(0, 12)})`;
    return v.version ?? v.commit?.slice(0, 12) ?? "?";
}

/** The lines shown before the question (exported for the chat, which asks its own way). */
export function pluginChangeLines(change: PluginChange): string[] {
    const lines = formatInventory(change.inventory);
    if (!change.previous) return lines;
    const to = versionText({ version: change.inventory.version });
    lines.push("", `Update from ${versionText(change.previous)} to ${to}.`);
    if (change.previousInventory) {
        const changes = describePluginChanges(change.previousInventory, change.inventory);
        lines.push(
            ...(changes.length > 0
                ? ["What changed:", ...changes]
                : ["Its files changed since you approved it (the parts above read the same)."])
        );
    } else lines.push("Its files changed since you approved it.");
    return lines;
}

export function pluginQuestion(change: PluginChange): string {
    const verb = change.previous ? "Update" : "Install";
    return `${verb} ${change.id}? It can run the programs above in your projects. [y/N] `;
}

/** Reads one answer: true only for y/yes; Ctrl+C and end of input are no. */
function askYesNo(
    input: NodeJS.ReadableStream,
    output: NodeJS.WritableStream,
    question: string
): Promise<boolean> {
    return new Promise((resolve) => {
        const rl = createInterface({ input, output, terminal: true });
        let settled = false;
        const settle = (answer: boolean): void => {
            if (settled) return;
            settled = true;
            rl.close();
            resolve(answer);
        };
        rl.on("SIGINT", () => {
            output.write("\n");
            settle(false);
        });
        rl.on("close", () => settle(false));
        rl.question(question, (text) => settle(/^\s*y(es)?\s*$/i.test(text)));
    });
}

/**
 * Shows what installing (or updating) `change` lets the plugin do and asks
 * y/N. True: the caller commits the prepared copy; false: it discards it.
 */
export async function confirmPluginChange(
    change: PluginChange,
    o: PluginConsentOptions
): Promise<boolean> {
    const input = o.input ?? process.stdin;
    const output = o.output ?? process.stderr;
    // Nothing new to approve: the files are the ones the user said yes to.
    if (!change.needsApproval) return true;
    const shown = pluginChangeLines(change)
        .map((line) => terminalSafeText(line))
        .join("\n");
    output.write(`${shown}\n`);
    if (o.yes) {
        output.write(`${change.previous ? "Updating" : "Installing"} ${change.id} (--yes).\n`);
        return true;
    }
    if ((input as { isTTY?: boolean }).isTTY !== true) {
        const verb = change.previous ? "updating" : "installing";
        output.write(
            `north: ${verb} ${change.id} needs a yes: run it in a terminal or pass --yes\n`
        );
        return false;
    }
    return askYesNo(input, output, pluginQuestion(change));
}
