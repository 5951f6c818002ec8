/**
 * An MCP manager that loads the SDK only when a server is added: a session
 * with plugins installed but none of them bringing a server (or none yet:
 * one may be enabled mid-session) does not pay for the SDK before its first
 * request.
 */
import type { McpManager } from "./manager";

export function lazyMcpManager(create: () => Promise<McpManager>): McpManager {
    let real: McpManager | undefined;
    let loading: Promise<McpManager> | undefined;
    let closed = false;
    const listeners = new Set<() => void>();
    const unsubscribers = new Map<() => void, () => void>();
    const load = (): Promise<McpManager> =>
        (loading ??= create().then((manager) => {
            real = manager;
            for (const listener of listeners)
                unsubscribers.set(listener, manager.subscribe(listener));
            if (closed) void manager.close();
            return manager;
        }));
    return {
        status: () => real?.status() ?? [],
        tools: () => real?.tools() ?? [],
        settled: async () => {
            if (loading) await (await loading.catch(() => undefined))?.settled();
        },
        subscribe(listener) {
            listeners.add(listener);
            if (real) unsubscribers.set(listener, real.subscribe(listener));
            return () => {
                listeners.delete(listener);
                unsubscribers.get(listener)?.();
                unsubscribers.delete(listener);
            };
        },
        restart: async (name) => real?.restart(name),
        add(servers) {
            if (servers.length === 0 || closed) return;
            void load().then(
                (manager) => {
                    // Closed while the SDK loaded: close() stops it; nothing starts.
                    if (closed) return;
                    manager.add(servers);
                    for (const listener of listeners) listener();
                },
                () => undefined
            );
        },
        remove: async (names) => {
            if (loading) await (await loading.catch(() => undefined))?.remove(names);
        },
        close: async () => {
            closed = true;
            if (loading) await (await loading.catch(() => undefined))?.close();
        },
    };
}
