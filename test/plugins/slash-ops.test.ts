/**
 * `/plugin`'s engine ops through a real engine host, with the real plugin
 * operations (a real git clone of the test kit's marketplace, copies into
 * North's data folder) and a runtime whose reloads are counted: list,
 * prepare (nothing of the plugin runs; the inventory names its hook
 * command), discard, commit, enable and disable, update to a commit that
 * changes the hook (asks again), remove; then the `/plugin` command as the
 * chat runs it (Cancel installs nothing, Install installs) and as print mode
 * and ACP do (install refused, naming the CLI).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { HostEvent, PluginsListing } from "../../src/agent/protocol";
import { runSlashCommands } from "../../src/cli/acp/slash-commands";
import { createCommandRegistryWithAllCommands } from "../../src/commands/index";
import type { CommandFront } from "../../src/commands/runner";
import type { CommandView } from "../../src/commands/types";
import { readInstalledPlugins } from "../../src/storage/plugins/store";
import { FakeProcessTable } from "../agent/fake-process-table";
import { type ProcessHost, startProcessHost } from "../agent/process-host-kit";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import {
    PLUGIN_MARKER_ENV,
    type TestMarketplace,
    makeTestMarketplace,
} from "../kit/plugin-marketplace";

let root = "";
let server: FakeLlmServer;
let kit: ProcessHost;
let market: TestMarketplace;
let reloads = 0;
let marker = "";

beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), "north-plugin-slash-"));
    marker = join(root, "marker.txt");
    vi.stubEnv("NORTH_DATA_DIR", join(root, "data"));
    vi.stubEnv("NORTH_CONFIG_DIR", join(root, "config"));
    vi.stubEnv(PLUGIN_MARKER_ENV, marker);
    vi.stubEnv("GIT_TERMINAL_PROMPT", "0");
    market = makeTestMarketplace(root);
    server = await startFakeLlmServer();
    reloads = 0;
    mkdirSync(join(root, "project"));
    kit = startProcessHost(server, {
        table: new FakeProcessTable(),
        dir: join(root, "project"),
        pluginRuntime: {
            reload: async () => {
                reloads++;
                return { notes: [`plugins reloaded (${reloads})`] };
            },
        },
    });
});

afterEach(async () => {
    kit.close();
    await server.close();
    vi.unstubAllEnvs();
    rmSync(root, { recursive: true, force: true });
});

const notices = (events: HostEvent[]): string[] =>
    events.flatMap((e) => (e.type === "notice" ? [e.text] : []));

async function listing(): Promise<PluginsListing> {
    return kit.host.submit({ type: "plugins" });
}

describe("the plugin ops", () => {
    it("add a marketplace, list it, install after prepare, switch, update on a changed hook, remove", async () => {
        const host = kit.host;
        const added = await host.submit({ type: "marketplace_add", source: market.dir });
        expect(added.isError, added.message).toBeFalsy();
        expect(added.message).toContain("north-test");

        let list = await listing();
        expect(list.marketplaces.map((m) => m.name)).toEqual(["north-test"]);
        expect(list.marketplaces[0]!.commit).toBe(market.commit());
        expect(list.available.map((a) => a.id).sort()).toEqual([
            "alpha@north-test",
            "beta@north-test",
        ]);
        expect(list.installed).toEqual([]);

        // Prepare: the inventory names the hook's command line; nothing ran.
        const prepared = await host.submit({ type: "plugin_prepare", id: "alpha@north-test" });
        if (!prepared.ok || "upToDate" in prepared) throw new Error(JSON.stringify(prepared));
        expect(prepared.needsApproval).toBe(true);
        expect(prepared.lines.join("\n")).toContain("hooks/mark.mjs");
        expect(prepared.inventory.hooks.map((h) => h.event).sort()).toEqual([
            "PostToolUse",
            "SessionStart",
        ]);
        expect(existsSync(marker)).toBe(false);

        // Discard: nothing installed; the token is spent.
        const discarded = await host.submit({ type: "plugin_discard", token: prepared.token });
        expect(discarded.isError).toBeFalsy();
        expect(readInstalledPlugins(join(root, "data"))).toEqual({});
        const stale = await host.submit({ type: "plugin_commit", token: prepared.token });
        expect(stale.isError).toBe(true);

        // A new prepare replaces an unanswered one: the first token no longer commits.
        const first = await host.submit({ type: "plugin_prepare", id: "alpha@north-test" });
        const second = await host.submit({ type: "plugin_prepare", id: "alpha@north-test" });
        if (!first.ok || "upToDate" in first || !second.ok || "upToDate" in second)
            throw new Error("prepare failed");
        expect((await host.submit({ type: "plugin_commit", token: first.token })).isError).toBe(
            true
        );
        const committed = await host.submit({ type: "plugin_commit", token: second.token });
        expect(committed.isError, committed.message).toBeFalsy();
        expect(committed.message).toContain("alpha@north-test");
        expect(reloads).toBe(1);
        expect(notices(kit.events)).toContain("plugins reloaded (1)");
        expect(existsSync(marker)).toBe(false);

        list = await listing();
        expect(list.installed).toMatchObject([{ id: "alpha@north-test", enabled: true }]);
        expect(list.available.find((a) => a.id === "alpha@north-test")?.installed).toBe(true);

        // Disable, enable: the store's switch, and a reload each.
        const off = await host.submit({
            type: "plugin_set_enabled",
            id: "alpha@north-test",
            enabled: false,
        });
        expect(off.isError, off.message).toBeFalsy();
        expect((await listing()).installed[0]!.enabled).toBe(false);
        await host.submit({ type: "plugin_set_enabled", id: "alpha@north-test", enabled: true });
        expect(readInstalledPlugins(join(root, "data"))["alpha@north-test"]!.enabled).toBe(true);
        expect(reloads).toBe(3);

        // Nothing new: up to date. A commit that changes the hook asks again.
        const same = await host.submit({
            type: "plugin_prepare",
            id: "alpha@north-test",
            update: true,
        });
        expect(same).toMatchObject({ ok: true, upToDate: true });
        const hooks = JSON.parse(
            readFileSync(join(market.dir, "plugins/alpha/hooks/hooks.json"), "utf8")
        ) as { hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>> };
        hooks.hooks.SessionStart![0]!.hooks[0]!.command += " changed";
        market.change("plugins/alpha/hooks/hooks.json", JSON.stringify(hooks, null, 4));
        const update = await host.submit({
            type: "plugin_prepare",
            id: "alpha@north-test",
            update: true,
        });
        if (!update.ok || "upToDate" in update) throw new Error(JSON.stringify(update));
        expect(update.update).toBe(true);
        expect(update.needsApproval).toBe(true);
        expect(update.lines.join("\n")).toContain("changed");
        const updated = await host.submit({ type: "plugin_commit", token: update.token });
        expect(updated.isError, updated.message).toBeFalsy();
        expect(updated.message).toContain("updated");

        const removed = await host.submit({ type: "plugin_remove", id: "alpha@north-test" });
        expect(removed.isError, removed.message).toBeFalsy();
        expect((await listing()).installed).toEqual([]);
        expect(existsSync(marker)).toBe(false);

        const gone = await host.submit({ type: "marketplace_remove", name: "north-test" });
        expect(gone.isError, gone.message).toBeFalsy();
        expect((await listing()).marketplaces).toEqual([]);
    }, 60_000);

    it("answers a bad input with its error, never a throw", async () => {
        const host = kit.host;
        const notGit = await host.submit({
            type: "marketplace_add",
            source: join(root, "nowhere"),
        });
        expect(notGit.isError).toBe(true);
        const unknown = await host.submit({ type: "plugin_prepare", id: "ghost@north-test" });
        expect(unknown.ok).toBe(false);
        const off = await host.submit({ type: "plugin_set_enabled", id: "ghost@x", enabled: true });
        expect(off.isError).toBe(true);
        expect(reloads).toBe(0);
    });
});

describe("/plugin", () => {
    const registry = createCommandRegistryWithAllCommands();
    const view = (chat: boolean): CommandView => ({
        chat,
        state: kit.host.state(),
        commands: registry.list(),
    });
    const run = async (
        words: string[],
        chat: boolean,
        choose?: CommandFront["choose"]
    ): Promise<{ message: string; isError?: boolean }> => {
        const front: CommandFront = { submit: (op) => kit.host.submit(op), choose };
        const outcome = await registry.execute(
            "plugin",
            { positional: words, flags: {} },
            view(chat),
            front
        );
        return outcome.result;
    };

    it("lists, refuses install where it cannot ask, and in the chat installs only on Install", async () => {
        expect((await run(["marketplace", "add", market.dir], false)).isError).toBeFalsy();
        const listed = await run(["list"], false);
        expect(listed.message).toContain("alpha@north-test");
        expect(listed.message).toContain("Marketplaces:");

        const refused = await run(["install", "alpha@north-test"], false);
        expect(refused.isError).toBe(true);
        expect(refused.message).toContain("north plugin install alpha@north-test");
        expect(readInstalledPlugins(join(root, "data"))).toEqual({});

        const asked: Array<{ title: string; options: string[]; note?: string }> = [];
        const cancel: CommandFront["choose"] = async (title, options, note) => {
            asked.push({ title, options: options.map((o) => o.label), note });
            return options[0]!.id;
        };
        const cancelled = await run(["install", "alpha@north-test"], true, cancel);
        expect(cancelled.isError).toBeFalsy();
        expect(asked[0]!.options).toEqual(["Cancel", "Install"]);
        expect(asked[0]!.note).toContain("hooks/mark.mjs");
        expect(readInstalledPlugins(join(root, "data"))).toEqual({});

        const install: CommandFront["choose"] = async (_title, options) => options[1]!.id;
        const installed = await run(["install", "alpha@north-test"], true, install);
        expect(installed.isError, installed.message).toBeFalsy();
        expect(Object.keys(readInstalledPlugins(join(root, "data")))).toEqual(["alpha@north-test"]);

        const disabled = await run(["disable", "alpha@north-test"], false);
        expect(disabled.isError, disabled.message).toBeFalsy();
        expect((await run(["list"], false)).message).toMatch(/alpha@north-test.*disabled/);
        expect((await run(["frobnicate"], false)).isError).toBe(true);
        expect(existsSync(marker)).toBe(false);
    }, 60_000);

    it("in an editor over ACP: lists, refuses to install without a yes", async () => {
        await kit.host.submit({ type: "marketplace_add", source: market.dir });
        const listed = await runSlashCommands("/plugin list", kit.host, []);
        expect(listed.failed).toBe(false);
        expect(listed.said.join("\n")).toContain("beta@north-test");
        const install = await runSlashCommands("/plugin install beta", kit.host, []);
        expect(install.failed).toBe(true);
        expect(install.said.join("\n")).toContain("north plugin install beta");
        expect(readInstalledPlugins(join(root, "data"))).toEqual({});
        expect(server.requests).toHaveLength(0);
    });
});
