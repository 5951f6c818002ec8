/**
 * The plugin runtime of a session that started with no plugin installed:
 * empty, and nothing of the plugin code loaded (print mode's first request
 * stays as fast), until `reload()` after an install brings the real one.
 */
import type { PluginRuntime } from "./runtime";

export function lazyPluginRuntime(create: () => Promise<PluginRuntime>): PluginRuntime {
    let real: PluginRuntime | undefined;
    const listeners = new Set<() => void>();
    return {
        list: () => real?.list() ?? [],
        loaded: () => real?.loaded() ?? [],
        commands: () => real?.commands() ?? [],
        agents: () => real?.agents() ?? [],
        subscribe(listener) {
            listeners.add(listener);
            const unsubscribe = real?.subscribe(listener);
            return () => {
                listeners.delete(listener);
                unsubscribe?.();
            };
        },
        async reload() {
            if (!real) {
                real = await create();
                for (const listener of listeners) real.subscribe(listener);
            }
            return real.reload();
        },
    };
}
