// Preloaded into the chat by launch-first-frame.test.ts (NODE_OPTIONS=--import):
// when the status line (the default model's name) first reaches the terminal, records which of Node's own
// modules had loaded by then and whether `fetch` is usable.
import { writeFileSync } from "node:fs";

const write = process.stdout.write.bind(process.stdout);
let recorded = false;
process.stdout.write = (chunk, ...rest) => {
    if (!recorded && /opus 5\.5/i.test(String(chunk))) {
        recorded = true;
        writeFileSync(
            process.env.NORTH_FIRST_FRAME_PROBE,
            JSON.stringify({
                modules: process.moduleLoadList,
                fetch: typeof globalThis.fetch,
            })
        );
    }
    return write(chunk, ...rest);
};
