/**
 * The limit for `npm run bench -- stream20k`: a bare Node client that sends
 * North's own first request (a JSON file, argv[2]) with `fetch` to the
 * Anthropic-style server at BARE_BASE_URL, consumes the SSE stream as it
 * arrives (split events, JSON-parse each, concatenate the text) and prints
 * the text. No SDK, no agent. Run with plain node after bundling (run.ts).
 */
import { readFileSync } from "node:fs";

interface StreamEvent {
    type: string;
    delta?: { type: string; text?: string };
}

const body = readFileSync(process.argv[2]!, "utf8");
const response = await fetch(`${process.env.BARE_BASE_URL}/v1/messages`, {
    method: "POST",
    headers: {
        "content-type": "application/json",
        "x-api-key": "bench-key",
        "anthropic-version": "2023-06-01",
    },
    body,
});
if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
const decoder = new TextDecoder();
let buffered = "";
let text = "";
for await (const chunk of response.body) {
    buffered += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffered.indexOf("\n\n")) >= 0) {
        const frame = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const dataAt = frame.indexOf("data: ");
        if (dataAt < 0) continue;
        const event = JSON.parse(frame.slice(dataAt + 6)) as StreamEvent;
        if (event.type === "content_block_delta" && event.delta?.type === "text_delta") {
            text += event.delta.text;
        }
    }
}
process.stdout.write(`${text}\n`);
