import { describe, expect, it, vi } from "vitest";
import type { McpServerSpec } from "../../../src/tools/mcp/config";
import { lazyMcpManager } from "../../../src/tools/mcp/lazy-manager";
import type { McpManager } from "../../../src/tools/mcp/manager";

/** A manager that records what it was asked, as the real one would start and stop servers. */
function recordingManager() {
    const calls: string[] = [];
    const listeners = new Set<() => void>();
    const servers: string[] = [];
    const manager: McpManager = {
        status: () => servers.map((name) => ({ name, state: "ready" }) as never),
        tools: () => servers.map((name) => ({ name: `mcp__${name}__echo` }) as never),
        settled: async () => undefined,
        subscribe(listener) {
            listeners.add(listener);
            return () => listeners.delete(listener);
        },
        restart: async (name) => void calls.push(`restart ${name}`),
        add(specs) {
            for (const spec of specs) servers.push(spec.name);
            calls.push(`add ${specs.map((s) => s.name).join(",")}`);
            for (const listener of listeners) listener();
        },
        remove: async (names) => {
            calls.push(`remove ${names.join(",")}`);
            servers.splice(0, servers.length, ...servers.filter((s) => !names.includes(s)));
        },
        close: async () => void calls.push("close"),
    };
    return { manager, calls };
}

const spec = (name: string) => ({ name, transport: "stdio" }) as McpServerSpec;

describe("lazyMcpManager", () => {
    it("loads nothing until a server is added, then forwards to the real manager", async () => {
        const real = recordingManager();
        const create = vi.fn(async () => real.manager);
        const lazy = lazyMcpManager(create);
        const changed = vi.fn();
        lazy.subscribe(changed);
        expect(lazy.tools()).toEqual([]);
        expect(lazy.status()).toEqual([]);
        lazy.add([]);
        await lazy.settled();
        await lazy.remove(["x"]);
        expect(create).not.toHaveBeenCalled();

        lazy.add([spec("plugin:beta:echo")]);
        await vi.waitFor(() => expect(lazy.tools()).toHaveLength(1));
        expect(create).toHaveBeenCalledTimes(1);
        expect(changed).toHaveBeenCalled();
        lazy.add([spec("other")]);
        await vi.waitFor(() => expect(real.calls).toContain("add other"));
        expect(create).toHaveBeenCalledTimes(1);
        await lazy.remove(["other"]);
        await lazy.close();
        expect(real.calls).toEqual(["add plugin:beta:echo", "add other", "remove other", "close"]);
    });

    it("a manager still loading when the session closes is closed once it exists", async () => {
        const real = recordingManager();
        let release: () => void = () => undefined;
        const lazy = lazyMcpManager(
            () => new Promise<McpManager>((resolve) => (release = () => resolve(real.manager)))
        );
        lazy.add([spec("late")]);
        const closing = lazy.close();
        release();
        await closing;
        await vi.waitFor(() => expect(real.calls).toContain("close"));
        expect(real.calls).not.toContain("add late");
    });
});
