import type { FakeTurn } from "../test/kit/fake-llm-server";

/**
 * One provider path for `npm run bench -- providers`: each file in
 * bench/paths/ default-exports one. `start` runs that path's instant fake
 * and says how `north -p` reaches it.
 */
export interface BenchPath {
    name: string;
    start(): Promise<RunningBenchPath>;
}

export interface RunningBenchPath {
    /** Variables that point North at the fake (keys, base URLs, region…). */
    env: Record<string, string>;
    /** The `--model` that selects this path. */
    model: string;
    /** Scripts the fake's next answer, in its own wire. */
    enqueue(turn: FakeTurn): void;
    close(): Promise<void>;
}
