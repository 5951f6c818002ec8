/**
 * An in-memory ProcessTable for engine tests: processes are plain records the
 * test starts, makes print and ends; notices and password prompts come when
 * the test says. The real table (tools/processes/process-table.ts) has its own tests.
 */
import type {
    ProcessEvent,
    ProcessInfo,
    ProcessInput,
    ProcessNotice,
    ProcessTable,
    ReadRequest,
    ReadResult,
    WaitResult,
} from "../../src/tools/processes/types";
import { ProcessError } from "../../src/tools/processes/types";

export class FakeProcessTable implements ProcessTable {
    private readonly processes = new Map<string, ProcessInfo>();
    private readonly output = new Map<string, string[]>();
    private readonly listeners = new Set<(event: ProcessEvent) => void>();
    private notices: ProcessNotice[] = [];
    private next = 1;
    /** What `sendSecret` received, by process id. */
    readonly secrets: Array<{ id: string; secret: string }> = [];
    readonly sent: Array<{ id: string; input: ProcessInput }> = [];

    start(command: string, origin = "user", startedAt = 1_000): ProcessInfo {
        const info: ProcessInfo = {
            id: `p${this.next++}`,
            command,
            cwd: "/work",
            tty: false,
            sandboxed: false,
            state: "running",
            startedAt,
            outputBytes: 0,
            origin,
        };
        this.processes.set(info.id, info);
        this.output.set(info.id, []);
        this.emit({ type: "started", process: { ...info } });
        return info;
    }

    print(id: string, ...lines: string[]): void {
        this.output.get(id)?.push(...lines);
    }

    /** Ends a process; a notice with its last lines waits for the next request. */
    exit(id: string, exitCode: number): ProcessInfo {
        const info = { ...this.find(id), state: "exited" as const, exitCode, endedAt: 2_000 };
        this.processes.set(id, info);
        this.emit({ type: "exited", process: { ...info } });
        this.notify({
            process: info,
            kind: "exited",
            lines: (this.output.get(id) ?? []).slice(-3),
        });
        return info;
    }

    notify(notice: ProcessNotice): void {
        this.notices.push(notice);
        this.emit({ type: "notice", notice });
    }

    promptForSecret(id: string, prompt: string): void {
        this.emit({ type: "secret_prompt", process: this.find(id), prompt });
    }

    list(): ProcessInfo[] {
        return [...this.processes.values()];
    }
    get(id: string): ProcessInfo | undefined {
        return this.processes.get(id);
    }
    running(): number {
        return this.list().filter((p) => p.state === "running").length;
    }
    read(id: string, request: ReadRequest): ReadResult {
        const lines = this.output.get(id) ?? [];
        const text = request.mode === "tail" ? lines.slice(-(request.lines ?? 20)) : lines;
        return { process: this.find(id), text: text.join("\n") };
    }
    wait(): Promise<WaitResult> {
        return Promise.reject(new ProcessError("unsupported", "the fake table does not wait"));
    }
    async send(id: string, input: ProcessInput): Promise<void> {
        if (this.find(id).state !== "running") throw new ProcessError("exited", `${id} has exited`);
        this.sent.push({ id, input });
    }
    async secretPrompt(): Promise<string | undefined> {
        return undefined;
    }
    async sendSecret(id: string, secret: string): Promise<void> {
        if (this.find(id).state !== "running") throw new ProcessError("exited", `${id} has exited`);
        this.secrets.push({ id, secret });
    }
    async stop(id: string): Promise<ProcessInfo> {
        const info: ProcessInfo = {
            ...this.find(id),
            state: "exited",
            stopped: true,
            signal: "SIGTERM",
        };
        this.processes.set(id, info);
        this.emit({ type: "exited", process: info });
        return info;
    }
    watch(): void {}
    subscribe(listener: (event: ProcessEvent) => void): () => void {
        this.listeners.add(listener);
        return () => void this.listeners.delete(listener);
    }
    takeNotices(): ProcessNotice[] {
        const taken = this.notices;
        this.notices = [];
        return taken;
    }
    pendingNotices(): number {
        return this.notices.length;
    }
    stopAll(): void {
        for (const info of this.list()) {
            if (info.state === "running")
                this.processes.set(info.id, { ...info, state: "exited", stopped: true });
        }
    }

    private find(id: string): ProcessInfo {
        const info = this.processes.get(id);
        if (!info) throw new ProcessError("not_found", `no background process ${id}`);
        return info;
    }

    private emit(event: ProcessEvent): void {
        for (const listener of [...this.listeners]) listener(event);
    }
}
