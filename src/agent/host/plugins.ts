/**
 * The host's plugin ops (`/plugin` in the chat, print mode and ACP): they
 * call the plugin operations (agent/plugins/operations.ts) that the CLI
 * calls too, hold the one plugin prepared for the user's yes under a random
 * token, and after anything that changes what runs (install, update,
 * enable, disable, remove) ask the session's plugin runtime to reload and
 * tell its notes. The operations are loaded on the first plugin op: a chat
 * that never opens `/plugin` never loads them.
 */
import { randomUUID } from "node:crypto";
import type { PluginInventory } from "../../project/plugins/types";
import type { InstalledPluginRecord } from "../../storage/plugins/store";
import type { PreparedPlugin } from "../plugins/install-operations";
import type * as Operations from "../plugins/operations";
import type { HostEvent, OpOf, OpReplies, Outcome, PluginsListing } from "../protocol";

/** The plugin operations the CLI uses too, with what the listing and the inventory need. */
export type PluginOperations = typeof Operations & {
    readInstalled(dataDir: string): Record<string, InstalledPluginRecord>;
    formatInventory(inventory: PluginInventory): string[];
};

type PluginContextLike = { dataDir: string; projectDir: string };
type PreparedLike = PreparedPlugin;

/**
 * The session's plugin runtime as the ops need it (agent/plugins/runtime.ts's
 * `PluginRuntime` fits as it is: cli/ passes `extensions.plugins`).
 */
export interface PluginRuntimePort {
    /** After install/enable/disable/remove: servers stop or start, commands leave or join. */
    reload(): Promise<{ notes: string[] }>;
    /** Each plugin's state; `held` says why an enabled one does not run. */
    list?(): ReadonlyArray<{ id: string; held?: string }>;
}

export interface HostPluginsOptions {
    /** North's data folder (`~/.north`). */
    dataDir: string;
    projectDir: string;
    runtime?: PluginRuntimePort;
    /**
     * Loads agent/host/plugin-operations.ts. cli/ brings it through the
     * subcommands split point (as `north plugin` does), so the lazy chunks
     * stay as they were; absent, the plugin ops say plugins are not set up.
     */
    operations?: () => Promise<PluginOperations>;
    emit(event: HostEvent): void;
}

export type PluginOp = OpOf<
    | "plugins"
    | "plugin_prepare"
    | "plugin_commit"
    | "plugin_discard"
    | "plugin_set_enabled"
    | "plugin_remove"
    | "marketplace_add"
    | "marketplace_update"
    | "marketplace_remove"
>;

export function isPluginOp(op: { type: string }): op is PluginOp {
    return PLUGIN_OPS.has(op.type);
}

const PLUGIN_OPS = new Set<string>([
    "plugins",
    "plugin_prepare",
    "plugin_commit",
    "plugin_discard",
    "plugin_set_enabled",
    "plugin_remove",
    "marketplace_add",
    "marketplace_update",
    "marketplace_remove",
]);

const short = (commit: string | undefined): string => (commit ? commit.slice(0, 12) : "");

export class HostPlugins {
    private prepared: { token: string; prepared: PreparedLike; update: boolean } | null = null;
    private closed = false;

    constructor(private readonly o: HostPluginsOptions) {}

    private ctx(): PluginContextLike {
        return { dataDir: this.o.dataDir, projectDir: this.o.projectDir };
    }

    /** Runs one plugin op; a failure is its reply, never a throw. */
    async handle(op: PluginOp): Promise<OpReplies[PluginOp["type"]]> {
        try {
            return await this.run(op);
        } catch (error) {
            const message = (error as Error).message;
            if (op.type === "plugin_prepare") return { ok: false, error: message };
            if (op.type === "plugins") {
                return { marketplaces: [], available: [], installed: [], errors: [message] };
            }
            return { message, isError: true };
        }
    }

    private async run(op: PluginOp): Promise<OpReplies[PluginOp["type"]]> {
        if (!this.o.operations) throw new Error("Plugins are not set up in this session.");
        const ops = await this.o.operations();
        const ctx = this.ctx();
        switch (op.type) {
            case "plugins":
                return this.listing(ops);
            case "plugin_prepare": {
                const update = op.update === true;
                const id = update
                    ? ops.resolveInstalledId(ctx, op.id.trim())
                    : await ops.resolveAvailableId(ctx, op.id.trim());
                return this.prepare(ops, id, update);
            }
            case "plugin_commit":
                return this.commit(ops, op.token);
            case "plugin_discard": {
                if (this.prepared?.token !== op.token)
                    return { message: "Nothing prepared under that token.", isError: true };
                const { prepared } = this.prepared;
                await this.discard(ops);
                return { message: `${prepared.id}: nothing installed.` };
            }
            case "plugin_set_enabled": {
                const id = ops.resolveInstalledId(ctx, op.id.trim());
                const record = ops.setPluginEnabled(ctx, id, op.enabled);
                return this.changed(`${record.id} ${op.enabled ? "enabled" : "disabled"}.`);
            }
            case "plugin_remove": {
                const id = ops.resolveInstalledId(ctx, op.id.trim());
                await ops.removePlugin(ctx, id);
                return this.changed(`${id} removed.`);
            }
            case "marketplace_add": {
                const text = op.source.trim();
                if (text === "")
                    return {
                        message: "Name a marketplace: owner/repo, a git URL or a path.",
                        isError: true,
                    };
                const record = await ops.addMarketplace(
                    ctx,
                    ops.parsePluginSourceText(text, ctx.projectDir)
                );
                const count = (await ops.listAvailablePlugins(ctx, record.name)).length;
                const at = record.commit ? ` at ${short(record.commit)}` : "";
                return {
                    message: `Marketplace ${record.name} added${at}: ${count} plugin${count === 1 ? "" : "s"}. Install one with /plugin install NAME@${record.name}.`,
                };
            }
            case "marketplace_update": {
                const records = await ops.updateMarketplaces(ctx, op.name?.trim() || undefined);
                if (records.length === 0) return { message: "No marketplaces to update." };
                return {
                    message: records
                        .map(
                            (r) => `${r.name}: ${r.commit ? `at ${short(r.commit)}` : "read again"}`
                        )
                        .join("\n"),
                };
            }
            case "marketplace_remove": {
                const { removedPlugins } = await ops.removeMarketplace(ctx, op.name.trim());
                const also =
                    removedPlugins.length > 0
                        ? ` and its plugins ${removedPlugins.join(", ")}`
                        : "";
                if (removedPlugins.length > 0)
                    return this.changed(`Marketplace ${op.name} removed${also}.`);
                return { message: `Marketplace ${op.name} removed.` };
            }
        }
    }

    private async listing(ops: PluginOperations): Promise<PluginsListing> {
        const ctx = this.ctx();
        const errors: string[] = [];
        const marketplaces = ops.listMarketplaces(ctx);
        const available: PluginsListing["available"] = [];
        // One broken catalogue must not hide the others.
        for (const market of marketplaces) {
            try {
                available.push(...(await ops.listAvailablePlugins(ctx, market.name)));
            } catch (error) {
                errors.push(`${market.name}: ${(error as Error).message}`);
            }
        }
        const held = new Map(
            (this.o.runtime?.list?.() ?? []).flatMap((p) => (p.held ? [[p.id, p.held]] : []))
        );
        const installed = Object.values(ops.readInstalled(this.o.dataDir))
            .sort((a, b) => a.id.localeCompare(b.id))
            .map((r) => ({
                id: r.id,
                name: r.name,
                marketplace: r.marketplace,
                ...(r.version ? { version: r.version } : {}),
                enabled: r.enabled,
                ...(held.has(r.id) ? { held: held.get(r.id) } : {}),
            }));
        return {
            marketplaces: marketplaces.map((m) => ({
                name: m.name,
                source: ops.describeSource(m.source),
                ...(m.commit ? { commit: m.commit } : {}),
                updatedAt: m.updatedAt,
            })),
            available: available.map((a) => ({
                id: a.id,
                name: a.name,
                marketplace: a.marketplace,
                ...(a.description ? { description: a.description } : {}),
                ...(a.version ? { version: a.version } : {}),
                ...(a.category ? { category: a.category } : {}),
                installed: a.installed,
            })),
            installed,
            errors,
        };
    }

    private async prepare(
        ops: PluginOperations,
        id: string,
        update: boolean
    ): Promise<OpReplies["plugin_prepare"]> {
        // One at a time: a new question replaces the one left unanswered.
        await this.discard(ops);
        const ctx = this.ctx();
        const prepared = update
            ? await ops.prepareUpdate(ctx, id)
            : await ops.prepareInstall(ctx, id);
        if ("upToDate" in prepared) {
            const { record } = prepared;
            const at = record.version ?? short(record.commit);
            return {
                ok: true,
                upToDate: true,
                id,
                message: `${id} is up to date${at ? ` (${at})` : ""}.`,
            };
        }
        if (this.closed) {
            await ops.discardPrepared(prepared);
            return { ok: false, error: "North is closing." };
        }
        const token = randomUUID();
        this.prepared = { token, prepared, update };
        return {
            ok: true,
            token,
            id: prepared.id,
            update,
            inventory: prepared.inventory,
            lines: ops.formatInventory(prepared.inventory),
            needsApproval: prepared.needsApproval,
        };
    }

    private async commit(ops: PluginOperations, token: string): Promise<Outcome> {
        const held = this.prepared;
        if (held?.token !== token)
            return {
                message: "Nothing prepared under that token: prepare it again.",
                isError: true,
            };
        this.prepared = null;
        const record = await ops.commitPrepared(this.ctx(), held.prepared);
        const version = record.version ? ` ${record.version}` : "";
        return this.changed(`${record.id}${version} ${held.update ? "updated" : "installed"}.`);
    }

    private async discard(ops: PluginOperations): Promise<void> {
        const held = this.prepared;
        this.prepared = null;
        if (held) await ops.discardPrepared(held.prepared);
    }

    /** Something that runs changed: the runtime reloads, and its notes are told. */
    private async changed(message: string): Promise<Outcome> {
        const runtime = this.o.runtime;
        if (!runtime) return { message: `${message} It takes effect in the next session.` };
        try {
            const { notes } = await runtime.reload();
            for (const text of notes) this.o.emit({ type: "notice", level: "info", text });
            return { message };
        } catch (error) {
            return {
                message: `${message} Reloading the session's plugins failed: ${(error as Error).message}`,
                isError: true,
            };
        }
    }

    /** Closing the host discards the plugin still waiting for a yes. */
    async close(): Promise<void> {
        this.closed = true;
        if (!this.prepared || !this.o.operations) return;
        const ops = await this.o.operations().catch(() => null);
        if (ops) await this.discard(ops).catch(() => undefined);
    }
}
