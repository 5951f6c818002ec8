/**
 * The background processes of one shell service: numbered p1, p2, ...; at
 * most `max` running (the next start is refused naming them); finished ones
 * kept for reads until more than `keepFinished` ended, the oldest forgotten
 * first; notices for exits and watched lines waiting for the next request;
 * every one killed, and its spill file removed, at dispose and at North's
 * exit.
 */
import { removeQuietly } from "../../util/remove-quietly";
import path from "node:path";
import { atProcessExit } from "../../util/process-exit";
import {
    PROCESS_FINISHED_KEPT,
    PROCESS_NOTICE_LINE_CHARS,
    PROCESS_NOTICE_LINES,
    PROCESS_STOP_GRACE_MS,
    PROCESS_ANSWER_MAX_MS,
    PROCESS_ANSWER_QUIET_MS,
} from "../limits";
import {
    BackgroundProcess,
    type BackgroundProcessOptions,
    compilePattern,
} from "./background-process";
import {
    DEFAULT_MAX_PROCESSES,
    type ProcessEvent,
    type ProcessId,
    type ProcessInfo,
    type ProcessInput,
    type ProcessNotice,
    type ProcessTable,
    type ReadRequest,
    type ReadResult,
    type WaitRequest,
    type WaitResult,
    ProcessError,
} from "./types";

export interface ProcessTableOptions {
    /** Running processes at most; default DEFAULT_MAX_PROCESSES. */
    max?: number;
    /** Folder of the spill files (created, 0700, when a ring first overflows; removed at dispose). */
    spillDir: string;
    /** Finished processes remembered; default PROCESS_FINISHED_KEPT. */
    keepFinished?: number;
    /** After SIGTERM, how long a stopped process gets before SIGKILL. */
    stopGraceMs?: number;
    ringBytes?: number;
    spillCapBytes?: number;
    now?: () => number;
}

/** What the table needs to add one process; the rest it fills in. */
export type NewProcess = Omit<
    BackgroundProcessOptions,
    "id" | "spillPath" | "graceMs" | "ringBytes" | "spillCapBytes" | "now"
>;

function cut(line: string): string {
    return line.length > PROCESS_NOTICE_LINE_CHARS
        ? `${line.slice(0, PROCESS_NOTICE_LINE_CHARS)}…`
        : line;
}

/** "p1 `npm run dev`": how messages name a process. */
export function processLabel(info: Pick<ProcessInfo, "id" | "command">): string {
    const command = info.command.length > 80 ? `${info.command.slice(0, 80)}…` : info.command;
    return `${info.id} \`${command.replace(/\s+/g, " ")}\``;
}

export class BackgroundProcessTable implements ProcessTable {
    readonly max: number;
    private readonly processes = new Map<ProcessId, BackgroundProcess>();
    private readonly listeners = new Set<(event: ProcessEvent) => void>();
    private notices: ProcessNotice[] = [];
    /** Exits a wait already reported: no notice for them. */
    private readonly exitSeen = new Set<ProcessId>();
    /** Waits going on per process: an exit they report needs no notice. */
    private readonly waiting = new Map<ProcessId, number>();
    private readonly watches = new Map<ProcessId, { pattern: string; stop: () => void }[]>();
    /** The password prompt each tty process was last announced waiting at (one event per prompt). */
    private readonly announcedPrompts = new Map<ProcessId, string>();
    private next = 1;
    private disposed = false;
    private forgetExitHook: (() => void) | undefined;

    constructor(private readonly options: ProcessTableOptions) {
        this.max = options.max ?? DEFAULT_MAX_PROCESSES;
    }

    /** Refuses when `max` are running: the error names them. */
    assertRoom(): void {
        if (this.disposed) throw new ProcessError("unsupported", "the session has ended");
        const running = [...this.processes.values()].filter((p) => p.running);
        if (running.length < this.max) return;
        const names = running.map((p) => processLabel(p.info)).join(", ");
        throw new ProcessError(
            "limit",
            `${running.length} background processes are running (the limit): ${names}. Stop one with process_stop before starting another.`
        );
    }

    /** A new id, never given again (a start that then fails leaves a gap). */
    reserveId(): ProcessId {
        return `p${this.next++}`;
    }

    /** Adds a started program under a reserved id. Call `assertRoom()` before starting it. */
    add(id: ProcessId, options: NewProcess): BackgroundProcess {
        if (this.disposed) {
            // The session ended while the program was starting: it must not outlive it.
            options.io.kill("SIGKILL");
            throw new ProcessError("unsupported", "the session has ended; nothing was started");
        }
        const process = new BackgroundProcess({
            ...options,
            id,
            spillPath: path.join(this.options.spillDir, `${id}.log`),
            graceMs: this.options.stopGraceMs ?? PROCESS_STOP_GRACE_MS,
            ringBytes: this.options.ringBytes,
            spillCapBytes: this.options.spillCapBytes,
            now: this.options.now,
        });
        this.processes.set(id, process);
        this.forgetExitHook ??= atProcessExit(() => this.dispose());
        this.emit({ type: "started", process: process.snapshot() });
        if (process.hasScreen) this.announceSecretPrompts(process);
        void process.exited.then((info) => this.onExit(process, info));
        return process;
    }

    /**
     * A tty program that stops at a password prompt (echo off) is announced
     * ("secret_prompt"), so the user can answer it in a masked field without
     * waiting for the model to ask; once per prompt, again after an answer.
     */
    private announceSecretPrompts(process: BackgroundProcess): void {
        const id = process.info.id;
        let checking = false;
        /** Output came during a check: the screen is looked at again after it. */
        let again = false;
        const check = (): void => {
            if (checking) return void (again = true);
            checking = true;
            void process.secretPrompt().then((prompt) => {
                checking = false;
                if (prompt === undefined) this.announcedPrompts.delete(id);
                else if (this.announcedPrompts.get(id) !== prompt && process.running) {
                    this.announcedPrompts.set(id, prompt);
                    this.emit({ type: "secret_prompt", process: process.snapshot(), prompt });
                }
                if (again) {
                    again = false;
                    check();
                }
            });
        };
        const stop = process.onScreen(check);
        // What it printed before this listener (a prompt at once) is looked at too.
        check();
        void process.exited.then(() => {
            stop();
            this.announcedPrompts.delete(id);
        });
    }

    list(): ProcessInfo[] {
        const all = [...this.processes.values()];
        const running = all.filter((p) => p.running).map((p) => p.snapshot());
        const finished = all
            .filter((p) => !p.running)
            .map((p) => p.snapshot())
            .sort((a, b) => (b.endedAt ?? 0) - (a.endedAt ?? 0));
        return [...running, ...finished];
    }

    get(id: ProcessId): ProcessInfo | undefined {
        return this.processes.get(id)?.snapshot();
    }

    running(): number {
        let count = 0;
        for (const process of this.processes.values()) if (process.running) count++;
        return count;
    }

    read(id: ProcessId, request: ReadRequest): ReadResult {
        return this.find(id).read(request);
    }

    async wait(id: ProcessId, request: WaitRequest, signal: AbortSignal): Promise<WaitResult> {
        const process = this.find(id);
        const reader = "model";
        let matchedLine: string | undefined;
        let pattern: RegExp | undefined;
        if (request.until !== "exit") {
            pattern = compilePattern(request.until.pattern);
            // A tty draws rows, not lines (a full-screen program moves the cursor): its wait
            // is for a row of the screen that matches, and the screen may show one already.
            const rows = await process.screenRows();
            matchedLine = (rows ?? process.unreadLines(reader)).find((line) => pattern!.test(line));
        }
        let stopsWaiting = false;
        let outcome: WaitResult["outcome"] =
            matchedLine !== undefined ? "matched" : process.running ? "timeout" : "exited";
        if (matchedLine === undefined && process.running) {
            this.waiting.set(id, (this.waiting.get(id) ?? 0) + 1);
            stopsWaiting = true;
            outcome = await new Promise<WaitResult["outcome"]>((resolve, reject) => {
                const stops: (() => void)[] = [];
                const finish = (value: WaitResult["outcome"] | Error): void => {
                    for (const stop of stops) stop();
                    if (value instanceof Error) reject(value);
                    else resolve(value);
                };
                if (pattern) {
                    const matched = (line: string | undefined): void => {
                        if (matchedLine !== undefined || line === undefined) return;
                        matchedLine = line;
                        finish("matched");
                    };
                    stops.push(
                        process.hasScreen
                            ? process.onScreen((rows) =>
                                  matched(rows.find((row) => pattern.test(row)))
                              )
                            : process.onLine((line) =>
                                  matched(pattern.test(line) ? line : undefined)
                              )
                    );
                }
                let exited = false;
                void process.exited.then(() => {
                    if (!exited) finish("exited");
                });
                stops.push(() => void (exited = true));
                const timer = setTimeout(() => finish("timeout"), request.timeoutMs);
                stops.push(() => clearTimeout(timer));
                const onAbort = (): void =>
                    finish(new ProcessError("invalid", "the wait was cancelled"));
                if (signal.aborted) return onAbort();
                signal.addEventListener("abort", onAbort, { once: true });
                stops.push(() => signal.removeEventListener("abort", onAbort));
            }).finally(() => {
                if (stopsWaiting) this.waiting.set(id, (this.waiting.get(id) ?? 1) - 1);
            });
        }
        if (outcome === "exited") this.seeExit(id);
        await process.settled();
        const result: WaitResult = { ...process.read({ mode: "new", reader }), outcome };
        if (matchedLine !== undefined) result.matchedLine = matchedLine;
        return result;
    }

    /** Resolves once the program answered (its output paused) or exited, or after a second. */
    async send(id: ProcessId, input: ProcessInput): Promise<void> {
        const process = this.find(id);
        const mark = process.received;
        await process.send(input);
        await process.settle(mark, PROCESS_ANSWER_MAX_MS, PROCESS_ANSWER_QUIET_MS);
        await process.settled();
    }

    secretPrompt(id: ProcessId): Promise<string | undefined> {
        return this.find(id).secretPrompt();
    }

    async sendSecret(id: ProcessId, secret: string): Promise<void> {
        await this.find(id).sendSecret(secret);
        // The same prompt again (a wrong password) is a new question.
        this.announcedPrompts.delete(id);
    }

    stop(id: ProcessId): Promise<ProcessInfo> {
        const process = this.find(id);
        // The one who stopped it knows: no notice of its end.
        if (process.running) this.exitSeen.add(id);
        return process.stop();
    }

    watch(id: ProcessId, pattern: string): void {
        const process = this.find(id);
        const regex = compilePattern(pattern);
        const stop = process.onLine((line) => {
            if (!regex.test(line)) return;
            // One notice per burst: none while the last one for this pattern still waits.
            const waiting = this.notices.some(
                (n) => n.kind === "matched" && n.process.id === id && n.pattern === pattern
            );
            if (waiting) return;
            this.notify({
                process: process.snapshot(),
                kind: "matched",
                pattern,
                lines: [cut(line)],
            });
        });
        const list = this.watches.get(id) ?? [];
        list.push({ pattern, stop });
        this.watches.set(id, list);
    }

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
        for (const process of this.processes.values()) process.kill();
        for (const process of this.processes.values()) process.removeSpill();
    }

    /** Kills every process, removes the spill folder; the table refuses new ones after. */
    dispose(): void {
        this.disposed = true;
        this.stopAll();
        removeQuietly(this.options.spillDir);
        this.forgetExitHook?.();
    }

    /** The process itself (for the shell service and tests). */
    process(id: ProcessId): BackgroundProcess | undefined {
        return this.processes.get(id);
    }

    private find(id: ProcessId): BackgroundProcess {
        const process = this.processes.get(id);
        if (process) return process;
        const known = [...this.processes.keys()];
        throw new ProcessError(
            "not_found",
            `no background process ${id}${known.length > 0 ? ` (known: ${known.join(", ")})` : " (none started)"}`
        );
    }

    /** The exit was told already (a start's result said it ended): no notice repeats it. */
    exitReported(id: ProcessId): void {
        this.seeExit(id);
    }

    private seeExit(id: ProcessId): void {
        this.exitSeen.add(id);
        this.notices = this.notices.filter((n) => !(n.kind === "exited" && n.process.id === id));
    }

    private onExit(process: BackgroundProcess, info: ProcessInfo): void {
        for (const watch of this.watches.get(info.id) ?? []) watch.stop();
        this.watches.delete(info.id);
        this.emit({ type: "exited", process: info });
        const reported = this.exitSeen.has(info.id) || (this.waiting.get(info.id) ?? 0) > 0;
        if (!reported && !info.stopped && !this.disposed) {
            this.notify({
                process: info,
                kind: "exited",
                lines: process.lastLines(PROCESS_NOTICE_LINES).map(cut),
            });
        }
        this.forgetFinished();
    }

    private notify(notice: ProcessNotice): void {
        this.notices.push(notice);
        this.emit({ type: "notice", notice });
    }

    /** Beyond `keepFinished` finished ones, the oldest go (their spill files too). */
    private forgetFinished(): void {
        const keep = this.options.keepFinished ?? PROCESS_FINISHED_KEPT;
        const finished = [...this.processes.values()]
            .filter((p) => !p.running)
            .sort((a, b) => (a.info.endedAt ?? 0) - (b.info.endedAt ?? 0));
        for (const process of finished.slice(0, Math.max(0, finished.length - keep))) {
            process.removeSpill();
            this.processes.delete(process.info.id);
            this.exitSeen.delete(process.info.id);
        }
    }

    private emit(event: ProcessEvent): void {
        for (const listener of [...this.listeners]) {
            try {
                listener(event);
            } catch {
                // A front-end's failure must not stop the table.
            }
        }
    }
}
