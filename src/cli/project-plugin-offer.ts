/**
 * After the user trusts a project that expects plugins it does not have: the
 * offer to install them, a question of its own (all, one, or not now), and
 * for each plugin chosen its inventory and a yes before anything is kept.
 * Trusting alone clones nothing; saying no to a plugin discards its staged copy.
 */
import * as ops from "../agent/plugins/operations";
import type { ApprovalBridge } from "../ui/approval-bridge";
import { type PluginChange, pluginChangeLines } from "./plugin-consent";
import { type DeclaredPlugins, marketplaceAddArgument } from "./project-declared-plugins";

export interface PluginOfferAsker {
    /** One of `options`' ids, or null when cancelled. */
    choose(
        title: string,
        options: Array<{ id: string; label: string }>,
        note?: string
    ): Promise<string | null>;
    /** Shows what the plugin can run and asks yes or no (no by default). */
    confirm(change: PluginChange): Promise<boolean>;
    note(message: string): void;
}

export interface PluginOfferContext {
    dataDir: string;
    projectDir: string;
}

/** Offers the project's missing plugins; returns the ids installed. */
export async function offerDeclaredPlugins(
    declared: DeclaredPlugins,
    ask: PluginOfferAsker,
    ctx: PluginOfferContext
): Promise<string[]> {
    const missing = declared.plugins.filter((p) => p.state === "not installed");
    if (missing.length === 0) return [];
    const choice = await ask.choose(
        `This project expects ${missing.length === 1 ? "a plugin" : `${missing.length} plugins`} you do not have. Install?`,
        [
            ...(missing.length > 1
                ? [{ id: "*", label: `Install all ${missing.length}, each asked on its own` }]
                : []),
            ...missing.map((p) => ({ id: p.id, label: `Install ${p.id}` })),
            { id: "", label: "Not now" },
        ],
        "Each install shows every program the plugin can run and asks before it is kept."
    );
    if (!choice) return [];
    const chosen = choice === "*" ? missing : missing.filter((p) => p.id === choice);
    const context = { dataDir: ctx.dataDir, projectDir: ctx.projectDir };
    const installed: string[] = [];
    for (const plugin of chosen) {
        try {
            if (!plugin.marketplaceKnown) {
                const argument =
                    plugin.declaredMarketplace &&
                    marketplaceAddArgument(plugin.declaredMarketplace.source);
                if (!argument) {
                    ask.note(
                        `${plugin.id}: the project does not say where marketplace ${plugin.marketplace} is in a form North can add`
                    );
                    continue;
                }
                if (!ops.listMarketplaces(context).some((m) => m.name === plugin.marketplace))
                    await ops.addMarketplace(
                        context,
                        ops.parsePluginSourceText(argument, ctx.projectDir)
                    );
            }
            const prepared = await ops.prepareInstall(context, plugin.id);
            if (await ask.confirm(prepared)) {
                await ops.commitPrepared(context, prepared);
                installed.push(plugin.id);
                ask.note(`installed ${plugin.id}`);
            } else {
                await ops.discardPrepared(prepared);
                ask.note(`${plugin.id} not installed`);
            }
        } catch (error) {
            ask.note(`${plugin.id}: ${error instanceof Error ? error.message : String(error)}`);
        }
    }
    return installed;
}

/** The chat's way of asking: pickers in the review area, notes as warnings. */
export function chatPluginAsker(
    bridge: Pick<ApprovalBridge, "pick">,
    warn: (message: string) => void
): PluginOfferAsker {
    return {
        choose: (title, options, note) => bridge.pick(title, options, note),
        confirm: async (change) =>
            (await bridge.pick(
                `Install ${change.id}? It can run the programs below in your projects.`,
                [
                    { id: "no", label: "Don't install" },
                    { id: "yes", label: `Install ${change.id}` },
                ],
                pluginChangeLines(change).join("\n")
            )) === "yes",
        note: warn,
    };
}
