/**
 * `npm run bench -- acp`: what speaking ACP costs, and how much of the
 * protocol North speaks.
 *
 * Time: from spawning `north acp` to the first `agent_message_chunk` of a
 * prompt (initialize, session/new, session/prompt through the SDK's client
 * side, as an editor sends them), against spawning `north -p` to its first
 * text on stdout, for the same prompt and the same instant fake server; runs
 * interleaved, median and p95, ratio acp / print (target ≤ 1.10); and a
 * second prompt in the same session, sent → first chunk. Then the
 * CPU time each spends up to its model request (a preloaded mark), which a
 * busy machine stretches less than wall time.
 *
 * Coverage: the SDK's agent methods North answers (probed on a running
 * `north acp`: -32601 means not implemented), the client methods it calls and
 * the session update kinds it sends (read from src/cli/acp/, plus the update
 * kinds seen in this run, which adds an untimed turn with a read and a to-do
 * list), each against the SDK's own lists.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import {
    AGENT_METHODS,
    CLIENT_METHODS,
    PROTOCOL_VERSION,
    client,
    ndJsonStream,
} from "@agentclientprotocol/sdk";
import { startFakeLlmServer } from "../test/kit/fake-llm-server";
import { median, northEnv } from "./measure";

const NORTH = fileURLToPath(new URL("../bin/north.js", import.meta.url));
const ACP_SOURCE = fileURLToPath(new URL("../src/cli/acp/", import.meta.url));
const SCHEMA = fileURLToPath(
    new URL("../node_modules/@agentclientprotocol/sdk/schema/v1/schema.json", import.meta.url)
);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const PROMPT = "where is the retry logic?";
const ANSWER = "The retry logic lives in src/retry.ts.";
/** No single run may hang the bench. */
const RUN_TIMEOUT_MS = 30_000;

/** Why North leaves out a part of the protocol, for those it leaves out on purpose. */
const LEFT_OUT_BECAUSE: Record<string, string> = {
    logout: "North keeps no login: keys come from the environment or config",
    "session/delete": "North has no way to delete a conversation",
    "elicitation/create":
        "North asks the editor only for approvals; an MCP server's form (elicitation) is declined here, as in print mode",
    "elicitation/complete":
        "North asks the editor only for approvals; an MCP server's form (elicitation) is declined here, as in print mode",
    notice: "North's warnings and notices reach the editor as agent_message_chunk lines",
    compaction_update: "a summary of the conversation is reported as one agent_message_chunk line",
    compaction_summary_chunk:
        "a summary of the conversation is reported as one agent_message_chunk line",
};

function makeRepo(root: string): string {
    const repo = join(root, "repo");
    mkdirSync(join(repo, "src"), { recursive: true });
    mkdirSync(join(repo, ".git"));
    writeFileSync(join(repo, "src", "retry.ts"), "export const retries = 3;\n");
    return repo;
}

/** Resolves with `child`'s exit, rejecting (and killing it) after RUN_TIMEOUT_MS. */
function exitOf(child: ChildProcess, label: string): Promise<number | null> {
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
            child.kill("SIGKILL");
            reject(new Error(`${label}: no exit within ${RUN_TIMEOUT_MS} ms`));
        }, RUN_TIMEOUT_MS);
        child.on("error", reject);
        child.on("close", (code) => {
            clearTimeout(timer);
            resolve(code);
        });
    });
}

/** One run: wall milliseconds to the first text, and the CPU milliseconds to the first model request when measured. */
interface FirstText {
    wallMs: number;
    requestCpuMs: number | null;
    /** North acp with `again`: sending a second prompt in the same session → its first chunk. */
    nextPromptMs?: number;
}

const CPU_MARK = "__NORTH_ACP_BENCH__";

// Preloaded into the CPU runs: the process's CPU time when its first HTTP request starts (the
// model request). CPU time is the steadier figure on a busy machine: others stretch wall time.
const CPU_TIMELINE = `import dc from "node:diagnostics_channel";
import { writeSync } from "node:fs";
let sent = false;
dc.subscribe("http.client.request.start", () => {
    if (sent) return;
    sent = true;
    const cpu = process.cpuUsage();
    writeSync(2, "${CPU_MARK} " + (cpu.user + cpu.system) / 1000 + "\\n");
});
`;

function requestCpuMs(stderr: string): number | null {
    const match = new RegExp(`${CPU_MARK} ([\\d.]+)`).exec(stderr);
    return match ? Number(match[1]) : null;
}

/** Milliseconds from spawning `north -p` to the first text on its stdout. */
async function printToFirstText(
    repo: string,
    env: NodeJS.ProcessEnv,
    nodeArgs: string[] = []
): Promise<FirstText> {
    const started = performance.now();
    const child = spawn(process.execPath, [...nodeArgs, NORTH, "-p", PROMPT, "--path", repo], {
        env,
        cwd: repo,
        stdio: ["ignore", "pipe", "pipe"],
    });
    let firstText: number | undefined;
    let stderr = "";
    child.stdout!.on("data", () => (firstText ??= performance.now() - started));
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const code = await exitOf(child, "north -p");
    if (code !== 0 || firstText === undefined) {
        throw new Error(`north -p: exit ${code}, no text\n${stderr.slice(0, 2000)}`);
    }
    return { wallMs: firstText, requestCpuMs: requestCpuMs(stderr) };
}

/**
 * Milliseconds from spawning `north acp` to the first agent_message_chunk of
 * a prompt; `seen` collects the update kinds of the whole turn.
 */
async function acpToFirstChunk(
    repo: string,
    env: NodeJS.ProcessEnv,
    seen: Set<string>,
    options: { nodeArgs?: string[]; again?: boolean } = {}
): Promise<FirstText> {
    const nodeArgs = options.nodeArgs ?? [];
    const started = performance.now();
    const child = spawn(process.execPath, [...nodeArgs, NORTH, "acp"], {
        env,
        cwd: repo,
        stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const exited = exitOf(child, "north acp");
    let firstChunk: number | undefined;
    let againSent: number | undefined;
    let nextPromptMs: number | undefined;
    const editor = client({ name: "north-bench" }).onNotification(
        "session/update",
        ({ params }) => {
            seen.add(params.update.sessionUpdate);
            if (params.update.sessionUpdate !== "agent_message_chunk") return;
            firstChunk ??= performance.now() - started;
            if (againSent !== undefined) nextPromptMs ??= performance.now() - againSent;
        }
    );
    const stream = ndJsonStream(
        Writable.toWeb(child.stdin!),
        Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>
    );
    try {
        const stopReason = await editor.connectWith(stream, async (agent) => {
            await agent.request("initialize", {
                protocolVersion: PROTOCOL_VERSION,
                clientCapabilities: {},
            });
            const { sessionId } = await agent.request("session/new", {
                cwd: repo,
                mcpServers: [],
            });
            const answer = await agent.request("session/prompt", {
                sessionId,
                prompt: [{ type: "text", text: PROMPT }],
            });
            if (!options.again || answer.stopReason !== "end_turn") return answer.stopReason;
            againSent = performance.now();
            const next = await agent.request("session/prompt", {
                sessionId,
                prompt: [{ type: "text", text: PROMPT }],
            });
            return next.stopReason;
        });
        if (stopReason !== "end_turn") throw new Error(`stop reason ${stopReason}`);
    } catch (error) {
        child.kill("SIGKILL");
        throw new Error(`north acp: ${(error as Error).message}\n${stderr.slice(0, 2000)}`);
    }
    child.stdin!.end();
    const code = await exited;
    if (code !== 0 || firstChunk === undefined) {
        throw new Error(
            `north acp: exit ${code}, no agent_message_chunk\n${stderr.slice(0, 2000)}`
        );
    }
    if (options.again && nextPromptMs === undefined) {
        throw new Error("north acp: no agent_message_chunk for the second prompt");
    }
    return { wallMs: firstChunk, requestCpuMs: requestCpuMs(stderr), nextPromptMs };
}

function percentile(values: number[], p: number): number {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * The agent methods a running `north acp` answers: each is sent with empty
 * params after initialize; -32601 (method not found) means North does not
 * implement it. `session/cancel` is a notification, which gets no answer.
 */
async function probeAgentMethods(
    repo: string,
    env: NodeJS.ProcessEnv
): Promise<Map<string, boolean>> {
    const requests = Object.values(AGENT_METHODS).filter((m) => m !== "session/cancel");
    const child = spawn(process.execPath, [NORTH, "acp"], {
        env,
        cwd: repo,
        stdio: ["pipe", "pipe", "pipe"],
    });
    const exited = exitOf(child, "north acp (probe)");
    const answers = new Map<number, { error?: { code: number } }>();
    let rest = "";
    const allAnswered = new Promise<void>((resolve) => {
        child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
            rest += chunk;
            const lines = rest.split("\n");
            rest = lines.pop()!;
            for (const line of lines) {
                let message: { id?: unknown; error?: { code: number } };
                try {
                    message = JSON.parse(line) as typeof message;
                } catch {
                    throw new Error(`probe: stdout line is not JSON: ${line.slice(0, 200)}`);
                }
                if (typeof message.id === "number") answers.set(message.id, message);
            }
            if (answers.size === requests.length) resolve();
        });
    });
    const send = (id: number, method: string, params: object) =>
        child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    // initialize first, as a client must; the others after it.
    send(0, "initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    requests.forEach((method, i) => {
        if (method !== "initialize") send(i + 1, method, {});
    });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(
            () => reject(new Error(`probe: ${answers.size} of ${requests.length} answered`)),
            RUN_TIMEOUT_MS
        );
    });
    try {
        await Promise.race([allAnswered, timedOut]);
    } finally {
        clearTimeout(timer);
    }
    child.stdin!.end();
    await exited;
    const implemented = new Map<string, boolean>();
    requests.forEach((method, i) => {
        const answer = answers.get(method === "initialize" ? 0 : i + 1);
        implemented.set(method, answer !== undefined && answer.error?.code !== -32601);
    });
    return implemented;
}

/** The text of src/cli/acp/ (North's ACP front-end), for what it sends. */
function acpSourceText(): string {
    return readdirSync(ACP_SOURCE)
        .filter((file) => file.endsWith(".ts"))
        .map((file) => readFileSync(join(ACP_SOURCE, file), "utf8"))
        .join("\n");
}

/** Whether the ACP source calls (or, for a notification, handles) `method`. */
function sourceUses(source: string, method: string): boolean {
    const [group, name] = method.split("/") as [string, string | undefined];
    const camel = (name ?? group).replace(/_(\w)/g, (_, c: string) => c.toUpperCase());
    if (source.includes(`"${method}"`)) return true;
    if (name !== undefined && new RegExp(`methods\\.\\w+\\.${group}\\.${camel}\\b`).test(source))
        return true;
    // The SDK's terminal handle speaks terminal/* for createTerminal's caller.
    const handle: Record<string, string> = {
        "terminal/create": "createTerminal(",
        "terminal/output": ".currentOutput(",
        "terminal/wait_for_exit": ".waitForExit(",
        "terminal/kill": ".kill(",
        "terminal/release": ".release(",
    };
    return handle[method] !== undefined && source.includes("createTerminal(")
        ? source.includes(handle[method]!)
        : false;
}

function updateKinds(): string[] {
    const schema = JSON.parse(readFileSync(SCHEMA, "utf8")) as {
        $defs: {
            SessionUpdate: { oneOf: Array<{ properties: { sessionUpdate: { const: string } } }> };
        };
    };
    return schema.$defs.SessionUpdate.oneOf.map((v) => v.properties.sessionUpdate.const);
}

function coverageLine(title: string, all: readonly string[], has: (name: string) => boolean): void {
    const done = all.filter(has);
    const left = all.filter((name) => !has(name));
    console.log(`${title}: ${done.length} of ${all.length}`);
    for (const name of left) {
        console.log(`  left out: ${name} — ${LEFT_OUT_BECAUSE[name] ?? "no reason recorded"}`);
    }
}

export async function benchAcp(): Promise<void> {
    const server = await startFakeLlmServer();
    const work = mkdtempSync(join(tmpdir(), "north-bench-acp-"));
    const repo = makeRepo(work);
    const env = northEnv(server.anthropicBaseUrl, work);
    const seen = new Set<string>();
    try {
        const timeline = join(work, "cpu-timeline.mjs");
        writeFileSync(timeline, CPU_TIMELINE);
        const acp = (options: { nodeArgs?: string[]; again?: boolean } = {}) => {
            server.enqueue({ text: ANSWER });
            if (options.again) server.enqueue({ text: ANSWER });
            return acpToFirstChunk(repo, env, seen, options);
        };
        const print = (nodeArgs: string[] = []) => {
            server.enqueue({ text: ANSWER });
            return printToFirstText(repo, env, nodeArgs);
        };
        // One warm-up each (disk cache), then turns in alternation.
        await acp();
        await print();
        const acpMs: number[] = [];
        const nextMs: number[] = [];
        const printMs: number[] = [];
        for (let i = 0; i < RUNS; i++) {
            const run = await acp({ again: true });
            acpMs.push(run.wallMs);
            nextMs.push(run.nextPromptMs!);
            printMs.push((await print()).wallMs);
        }
        // The same, with the CPU timeline preloaded (its own runs: it adds a little to each).
        const cpu = (run: FirstText): number => {
            if (run.requestCpuMs === null) throw new Error("no CPU mark on stderr");
            return run.requestCpuMs;
        };
        const acpCpu: number[] = [];
        const printCpu: number[] = [];
        for (let i = 0; i < RUNS; i++) {
            acpCpu.push(cpu(await acp({ nodeArgs: ["--import", timeline] })));
            printCpu.push(cpu(await print(["--import", timeline])));
        }
        const row = (label: string, values: number[]) =>
            console.log(
                `${label.padEnd(52)}${`${median(values).toFixed(1)} ms`.padStart(12)}${`${percentile(values, 95).toFixed(1)} ms`.padStart(12)}`
            );
        const ratio = (acpValues: number[], printValues: number[]) =>
            `acp / print: ${(median(acpValues) / median(printValues)).toFixed(2)}× (median), ` +
            `${(percentile(acpValues, 95) / percentile(printValues, 95)).toFixed(2)}× (p95)`;
        console.log(
            `\n## Spawn to first text, instant fake server, ${RUNS} runs interleaved (target acp ≤ 1.10× print)`
        );
        console.log(`${"".padEnd(52)}${"median".padStart(12)}${"p95".padStart(12)}`);
        row("north -p: spawn → first text on stdout", printMs);
        row("north acp: spawn → first agent_message_chunk", acpMs);
        console.log(ratio(acpMs, printMs));
        row("north acp: next prompt, sent → first chunk", nextMs);
        console.log("(an editor starts north acp once: later prompts pay no start-up)");
        console.log(
            `\n## CPU time to the model request, ${RUNS} runs interleaved (steadier under load)`
        );
        console.log(`${"".padEnd(52)}${"median".padStart(12)}${"p95".padStart(12)}`);
        row("north -p", printCpu);
        row("north acp (initialize, session/new, prompt)", acpCpu);
        console.log(ratio(acpCpu, printCpu));

        // One untimed turn with tool calls (a read, a to-do list), so "seen" covers more than text.
        server.enqueue(
            {
                toolCalls: [
                    { name: "read_file", input: { path: "src/retry.ts" } },
                    {
                        name: "todo_write",
                        input: {
                            items: [{ content: "find the retry logic", status: "done" }],
                        },
                    },
                ],
            },
            { text: ANSWER }
        );
        await acpToFirstChunk(repo, env, seen);

        console.log("\n## Protocol coverage (ACP v1, @agentclientprotocol/sdk)");
        const probed = await probeAgentMethods(repo, env);
        const source = acpSourceText();
        coverageLine("agent methods North answers (probed)", Object.values(AGENT_METHODS), (m) =>
            m === "session/cancel" ? sourceUses(source, m) : probed.get(m) === true
        );
        console.log("  (session/cancel is a notification: read from src/cli/acp/, not probed)");
        coverageLine(
            "client methods North calls (src/cli/acp/)",
            Object.values(CLIENT_METHODS),
            (m) => sourceUses(source, m)
        );
        // `sessionUpdate: "kind"` builds one; a two-word kind's name is distinctive enough that
        // any string literal of it does (replay builds its chunks by kind). One-word kinds
        // ("plan", "notice") are also words of North's own events, so they need the first form.
        const inSource = (kind: string) =>
            source.includes(`sessionUpdate: "${kind}"`) ||
            (kind.includes("_") && source.includes(`"${kind}"`));
        coverageLine(
            "session update kinds North sends (src/cli/acp/ or seen)",
            updateKinds(),
            (k) => inSource(k) || seen.has(k)
        );
        console.log(`  seen in this run: ${[...seen].sort().join(", ")}`);
    } finally {
        await server.close();
        rmSync(work, { recursive: true, force: true });
    }
}
