/**
 * Tool output digesting: the model gets a condensed view of large outputs,
 * the full output stays in a per-turn cache it can fetch with expand_output.
 * What a digest keeps is each tool's own `digest` (tools/).
 */
import type { AnyToolDefinition } from "../tools/types";

/** Full outputs of the current user message, by id. Cleared when a new message starts. */
export class OutputCache {
    private readonly outputs = new Map<string, unknown>();
    private counter = 0;

    put(data: unknown): string {
        const id = `out-${++this.counter}`;
        this.outputs.set(id, data);
        return id;
    }

    get(id: string): unknown {
        return this.outputs.get(id);
    }

    clear(): void {
        this.outputs.clear();
    }
}

/**
 * Returns the data to send the model: the original when it is already compact,
 * or a digest carrying `outputId` and `digestNote`, the full data cached.
 * `tool` is the run's definition that ran; undefined for the engine's own
 * tools (propose_plan), whose results are always short.
 */
export function digestToolOutput(
    tool: AnyToolDefinition | undefined,
    input: unknown,
    data: unknown,
    cache: OutputCache
): unknown {
    if (!tool?.digest) return data;
    return tool.digest(data, input, (full) => cache.put(full));
}
