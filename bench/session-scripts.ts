/**
 * The scripted sessions several benches run through `north -p`: a small repo
 * to read, the 4-turn read session and the 20,000-token answer.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FakeTurn } from "../test/kit/fake-llm-server";

export const SESSION_PROMPT = "where is the retry logic?";

export function makeRepo(): string {
    const dir = mkdtempSync(join(tmpdir(), "north-bench-repo-"));
    mkdirSync(join(dir, "src"));
    const lines = Array.from(
        { length: 300 },
        (_, i) => `export const value${i} = ${i}; // retry logic line ${i}`
    );
    writeFileSync(join(dir, "src", "retry.ts"), lines.join("\n") + "\n");
    writeFileSync(join(dir, "README.md"), "# bench repo\n");
    return dir;
}

export function fourTurnSession(): FakeTurn[] {
    return [
        { toolCalls: [{ name: "find_files", input: { pattern: "*.ts" } }], text: "Let me look." },
        { toolCalls: [{ name: "search_text", input: { query: "retry logic" } }] },
        {
            toolCalls: [
                {
                    name: "read_file",
                    input: { path: "src/retry.ts", range: { start: 1, end: 40 } },
                },
            ],
        },
        { text: "The retry logic lives in src/retry.ts, lines 1-300." },
    ];
}

/** One answer of 20,000 tokens, one token per stream event. */
export function stream20kTurns(): FakeTurn[] {
    return [{ text: Array.from({ length: 20_000 }, (_, i) => `tok${i} `) }];
}
