/**
 * Two parallel read-only subagents against the instant fake server: the wall
 * time of a run with one `task` call, with two in one turn (parallel), and
 * with two in successive turns (what running them one by one costs).
 * Target: two parallel ≤ 1.3× one. The fake server runs in a process of its
 * own (bench/subagents-server.ts), so serving turns does not share the
 * engine's thread; measured in process (the engine alone) and through
 * `north -p` (start-up included).
 */
import { type ChildProcess, fork } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AgentSession } from "../src/agent/session";
import { createSubagents } from "../src/agent/subagent-tool";
import { createConversationToolset } from "../src/cli/toolset";
import { BUILTIN_MODELS } from "../src/providers/catalogue";
import { createProvider } from "../src/providers/index";
import { type ProcessSample, interleavedSeries, printTable, runOnce } from "./measure";
import {
    CHILD_READS,
    type ServerReply,
    type ServerRequest,
    type SubagentScript,
} from "./subagents-scripts";

const NORTH = fileURLToPath(new URL("../bin/north.js", import.meta.url));
const SERVER = fileURLToPath(new URL("./subagents-server.ts", import.meta.url));

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const sonnet = BUILTIN_MODELS.find((m) => m.provider === "anthropic")!;

/** The fake server's process: `enqueue` a script, ask how many turns are `remaining`. */
interface ServerProcess {
    baseUrl: string;
    enqueue(script: SubagentScript): Promise<void>;
    remaining(): Promise<number>;
    close(): void;
}

async function startServerProcess(): Promise<ServerProcess> {
    // Same loader flags as this process (tsx), so the server's TypeScript runs.
    const child: ChildProcess = fork(SERVER, [], {
        stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const waiting = new Map<number, (remaining: number) => void>();
    let nextId = 0;
    const baseUrl = await new Promise<string>((resolve, reject) => {
        child.once("error", reject);
        child.once("exit", (code) => reject(new Error(`fake server process exited (${code})`)));
        child.on("message", (message: ServerReply) => {
            if ("ready" in message) resolve(message.ready);
            else waiting.get(message.id)?.(message.remaining);
        });
    });
    const ask = (request: Omit<ServerRequest, "id">): Promise<number> =>
        new Promise((resolve) => {
            const id = nextId++;
            waiting.set(id, (remaining) => {
                waiting.delete(id);
                resolve(remaining);
            });
            child.send({ ...request, id });
        });
    return {
        baseUrl,
        enqueue: async (script) => {
            await ask({ enqueue: script });
        },
        remaining: () => ask({ remaining: true }),
        close: () => child.disconnect(),
    };
}

export async function benchSubagents(): Promise<void> {
    const server = await startServerProcess();
    const repo = mkdtempSync(join(tmpdir(), "north-bench-tasks-"));
    const lines = Array.from({ length: 300 }, (_, i) => `export const value${i} = ${i};`);
    mkdirSync(join(repo, "src"));
    writeFileSync(join(repo, "src", "retry.ts"), lines.join("\n") + "\n");
    const provider = await createProvider({
        api: "anthropic",
        apiKey: "bench-key",
        baseUrl: server.baseUrl,
    });

    const once = async (script: SubagentScript): Promise<ProcessSample> => {
        await server.enqueue(script);
        const subagents = createSubagents({ agents: [] });
        const toolset = createConversationToolset(repo, [subagents.tool]);
        const session = new AgentSession({
            sessionId: "bench",
            repoRoot: repo,
            model: sonnet,
            providerFor: async () => provider,
            tools: toolset.registry,
            approver: async () => ({ outcome: "deny" }),
            subagents,
        });
        const started = performance.now();
        const result = await session.run("go", { mode: "agent" });
        const wallMs = performance.now() - started;
        toolset.dispose();
        const left = await server.remaining();
        return {
            wallMs,
            peakRssMb: null,
            code: result.subtype === "success" && left === 0 ? 0 : 1,
            stdout: "",
            stderr: `${result.subtype} ${result.error ?? ""}; ${left} scripted turns left`,
        };
    };

    const home = mkdtempSync(join(tmpdir(), "north-bench-home-"));
    try {
        // Interleaved, so load on the shared machine falls on all three alike.
        const [one, parallel, sequential] = await interleavedSeries(
            [
                { label: "one subagent", make: () => once("one") },
                { label: "two subagents in one turn (parallel)", make: () => once("parallel") },
                {
                    label: "two subagents in two turns (one by one)",
                    make: () => once("sequential"),
                },
            ],
            RUNS
        );
        printTable(
            `Subagents in process, fake server in its own process, ${CHILD_READS + 1} model turns each (target: parallel ≤ 1.3× one)`,
            [one!, parallel!, sequential!],
            one!
        );
        const env = {
            PATH: process.env.PATH,
            HOME: home,
            ANTHROPIC_API_KEY: "bench-key",
            ANTHROPIC_BASE_URL: server.baseUrl,
            NORTH_CONFIG_DIR: join(home, "config"),
            NORTH_DATA_DIR: join(home, "data"),
            XDG_STATE_HOME: join(home, "state"),
        };
        const printRun = (script: SubagentScript) => async (): Promise<ProcessSample> => {
            await server.enqueue(script);
            const sample = await runOnce(process.execPath, [NORTH, "-p", "go", "--path", repo], {
                env,
            });
            const left = await server.remaining();
            return left === 0 ? sample : { ...sample, code: 1, stderr: `${left} turns left` };
        };
        const rows = await interleavedSeries(
            [
                { label: "north -p, one subagent", make: printRun("one") },
                { label: "north -p, two in one turn (parallel)", make: printRun("parallel") },
                { label: "north -p, two in two turns", make: printRun("sequential") },
            ],
            RUNS
        );
        printTable("The same in print mode (whole run, start-up included)", rows, rows[0]!);
    } finally {
        server.close();
        rmSync(home, { recursive: true, force: true });
        rmSync(repo, { recursive: true, force: true });
    }
}
