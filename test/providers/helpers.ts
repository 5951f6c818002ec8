import type { Provider, StreamEvent, StreamRequest } from "../../src/providers/types";

export interface Collected {
    events: StreamEvent[];
    last: StreamEvent;
    text: string;
    thinking: string;
}

/** Drains one provider stream; asserts nothing, so tests stay readable. */
export async function collect(
    provider: Provider,
    request: StreamRequest,
    signal: AbortSignal = new AbortController().signal
): Promise<Collected> {
    const events: StreamEvent[] = [];
    for await (const event of provider.stream(request, signal)) events.push(event);
    const last = events[events.length - 1];
    if (!last) throw new Error("provider stream produced no events");
    let text = "";
    let thinking = "";
    for (const event of events) {
        if (event.type === "text_delta") text += event.text;
        if (event.type === "thinking_delta") thinking += event.text;
    }
    return { events, last, text, thinking };
}

export function doneOf(c: Collected): Extract<StreamEvent, { type: "done" }> {
    if (c.last.type !== "done") throw new Error(`expected done, got ${JSON.stringify(c.last)}`);
    return c.last;
}

export function errorOf(c: Collected): Extract<StreamEvent, { type: "error" }> {
    if (c.last.type !== "error") throw new Error(`expected error, got ${JSON.stringify(c.last)}`);
    return c.last;
}

export function request(overrides: Partial<StreamRequest> = {}): StreamRequest {
    return {
        apiModelId: "test-model",
        system: "You are a test.",
        messages: [{ role: "user", content: "Hi" }],
        tools: [],
        maxOutputTokens: 1024,
        ...overrides,
    };
}

export const READ_TOOL = {
    name: "read_file",
    description: "Read a file",
    inputSchema: {
        type: "object",
        properties: { path: { type: "string" } },
        required: ["path"],
    },
};
