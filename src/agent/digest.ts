/**
 * Tool output digesting: the model gets a condensed view of large outputs,
 * the full output stays in a per-turn cache it can fetch with expand_output.
 * What a digest keeps is each tool's own `digest` (tools/).
 */
import { builtinTool } from "../tools/index";
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
 * `tool` is the definition that ran, or a built-in tool's name.
 */
export function digestToolOutput(
    tool: AnyToolDefinition | string,
    input: unknown,
    data: unknown,
    cache: OutputCache
): unknown {
    const definition = typeof tool === "string" ? builtinTool(tool) : tool;
    if (!definition?.digest) return data;
    return definition.digest(data, input, (full) => cache.put(full));
}
