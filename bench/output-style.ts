/**
 * Output styles and the prompt cache: the 20-turn tool loop of
 * bench/context.ts run twice in one go, without a style and with a user's
 * style (keep-coding-instructions false, ~2 KB of instructions, selected by
 * the `outputStyle` setting), each priced by the same simulated Anthropic
 * prefix cache. The style sits in the system prompt, fixed for the
 * conversation, so the cached share must stay ≥ 85 %.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { laterCacheShare, recordToolLoop, simulatePrefixCache } from "./context";

const TURNS = Number(process.env.BENCH_TURNS ?? 20);

const STYLE = [
    "---",
    "name: reviewer-notes",
    "description: Answers as review notes",
    "keep-coding-instructions: false",
    "---",
    "",
    ...Array.from(
        { length: 30 },
        (_, i) => `${i + 1}. Write each finding as a review note: file, line, what, why, and a fix.`
    ),
].join("\n");

export async function benchOutputStyle(): Promise<void> {
    const plain = simulatePrefixCache(await recordToolLoop({ turns: TURNS }));
    const styledBodies = await recordToolLoop({
        turns: TURNS,
        setup: ({ configDir, dataDir }) => {
            mkdirSync(join(dataDir, "output-styles"), { recursive: true });
            writeFileSync(join(dataDir, "output-styles", "reviewer-notes.md"), STYLE);
            mkdirSync(configDir, { recursive: true });
            writeFileSync(
                join(configDir, "config.json"),
                JSON.stringify({ outputStyle: "reviewer-notes" })
            );
        },
    });
    const system = JSON.stringify((styledBodies[0] as { system?: unknown }).system);
    if (!system.includes("reviewer-notes"))
        throw new Error("the style is not in the system prompt");
    const systems = new Set(
        styledBodies.map((b) => JSON.stringify((b as { system?: unknown }).system))
    );
    const styled = simulatePrefixCache(styledBodies);
    console.log(`\n## Output style and the prompt cache (${TURNS}-turn tool loop, same run)`);
    console.log(
        `without a style: ${laterCacheShare(plain).toFixed(1)} % read from cache after request 1 (${plain.requests} requests)`
    );
    console.log(
        `with a style:    ${laterCacheShare(styled).toFixed(1)} % read from cache after request 1 (${styled.requests} requests; target ≥ 85 %)`
    );
    console.log(`distinct system prompts across the styled requests: ${systems.size} (must be 1)`);
}
