/**
 * The limit for `npm run bench -- session4`: a bare Node agent with no UI and
 * no streaming. It sends North's own first request (a JSON file, argv[2])
 * with `fetch` to the Anthropic-style server at BARE_BASE_URL, reads each
 * whole reply, runs the tool calls it asks for (find_files, search_text,
 * read_file, the calls of bench session4) in the repo at argv[3], sends the
 * results back, and prints the final text. Run with plain node after
 * bundling (run.ts).
 */
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";

interface Block {
    type: string;
    text?: string;
    id?: string;
    name?: string;
    input?: Record<string, unknown>;
}

interface Request {
    messages: Array<{ role: string; content: unknown }>;
}

const request = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as Request;
const repo = process.argv[3]!;

function files(dir: string): string[] {
    const out: string[] = [];
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) out.push(...files(path));
        else out.push(relative(repo, path));
    }
    return out;
}

function runTool(name: string, input: Record<string, unknown>): string {
    if (name === "find_files") {
        const suffix = String(input.pattern).replace("*", "");
        return files(repo)
            .filter((file) => file.endsWith(suffix))
            .join("\n");
    }
    if (name === "search_text") {
        const query = String(input.query);
        const hits: string[] = [];
        for (const file of files(repo)) {
            const lines = readFileSync(join(repo, file), "utf8").split("\n");
            lines.forEach((line, i) => {
                if (line.includes(query)) hits.push(`${file}:${i + 1}: ${line}`);
            });
        }
        return hits.join("\n");
    }
    if (name === "read_file") {
        const range = input.range as { start: number; end: number };
        const lines = readFileSync(join(repo, String(input.path)), "utf8").split("\n");
        return lines.slice(range.start - 1, range.end).join("\n");
    }
    return `unknown tool ${name}`;
}

/** The content blocks of one whole SSE reply. */
function replyBlocks(sse: string): Block[] {
    const blocks: Block[] = [];
    const json: string[] = [];
    for (const frame of sse.split("\n\n")) {
        const dataAt = frame.indexOf("data: ");
        if (dataAt < 0) continue;
        const event = JSON.parse(frame.slice(dataAt + 6));
        if (event.type === "content_block_start") {
            blocks[event.index] = { ...event.content_block };
            json[event.index] = "";
        } else if (event.type === "content_block_delta") {
            if (event.delta.type === "text_delta") blocks[event.index]!.text += event.delta.text;
            else if (event.delta.type === "input_json_delta") {
                json[event.index] += event.delta.partial_json;
            }
        } else if (
            event.type === "content_block_stop" &&
            blocks[event.index]!.type === "tool_use"
        ) {
            blocks[event.index]!.input = JSON.parse(json[event.index] || "{}");
        }
    }
    return blocks;
}

let text = "";
for (;;) {
    const response = await fetch(`${process.env.BARE_BASE_URL}/v1/messages`, {
        method: "POST",
        headers: {
            "content-type": "application/json",
            "x-api-key": "bench-key",
            "anthropic-version": "2023-06-01",
        },
        body: JSON.stringify(request),
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
    const blocks = replyBlocks(await response.text());
    text = blocks.map((block) => block.text ?? "").join("");
    const calls = blocks.filter((block) => block.type === "tool_use");
    if (calls.length === 0) break;
    request.messages.push({ role: "assistant", content: blocks });
    request.messages.push({
        role: "user",
        content: calls.map((call) => ({
            type: "tool_result",
            tool_use_id: call.id,
            content: runTool(call.name!, call.input ?? {}),
        })),
    });
}
process.stdout.write(`${text}\n`);
