/**
 * The one place `north plugin` asks for the user's yes before a plugin is
 * installed or updated: the inventory of what it may run, then y/N on a
 * terminal; without a terminal only `--yes` approves.
 */
import { createInterface } from "node:readline/promises";
import type { PreparedPlugin } from "../agent/plugins/operations";
import { formatInventory } from "../project/plugins/inventory";

export async function approvePluginChange(
    prepared: PreparedPlugin,
    o: { yes: boolean; input?: NodeJS.ReadableStream; output?: NodeJS.WritableStream }
): Promise<boolean> {
    const input = o.input ?? process.stdin;
    const output = o.output ?? process.stderr;
    const verb = prepared.previous ? "Update" : "Install";
    output.write(`${formatInventory(prepared.inventory).join("\n")}\n`);
    if (o.yes) return true;
    if (!(input as NodeJS.ReadStream).isTTY) {
        output.write(
            `north: not a terminal: nothing was ${prepared.previous ? "updated" : "installed"}; ` +
                `pass --yes to approve ${prepared.id} without a prompt\n`
        );
        return false;
    }
    const prompt = createInterface({ input, output });
    try {
        const answer = await prompt.question(
            `${verb} ${prepared.id}? It can run the programs above. [y/N] `
        );
        return /^y(es)?$/i.test(answer.trim());
    } finally {
        prompt.close();
    }
}
