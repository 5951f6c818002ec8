/**
 * The host's side of the background processes: it forwards the process
 * table's events as engine events at any time (also while idle), answers the
 * process ops, moves running commands to the background (Ctrl+B) and carries
 * password prompts to the user and their answers to the process only.
 */
import type { ProcessInfo, ProcessTable, ReadRequest } from "../../tools/processes/types";
import { ProcessError } from "../../tools/processes/types";
import type { EngineEvent } from "../events";
import type { ProcessPort } from "../process-port";
import type { OpReplies, Outcome } from "../protocol";

interface DetachableCall {
    controller: AbortController;
    /** Settles when the call's tool execution ended (or returned once detached). */
    ended: Promise<void>;
}

interface WaitingSecret {
    processId: string;
    /** Set when a tool call (process_send with askUser) waits for the answer. */
    settle?: (outcome: "sent" | "declined") => void;
}

export class HostProcesses implements ProcessPort {
    private readonly calls = new Map<string, DetachableCall>();
    private readonly secrets = new Map<string, WaitingSecret>();
    private nextSecret = 1;
    private readonly unsubscribe: () => void;

    constructor(
        readonly table: ProcessTable,
        private readonly emit: (event: EngineEvent) => void,
        /** Told after each notice is announced (the host may start a turn with it). */
        private readonly onNotice: () => void = () => undefined
    ) {
        this.unsubscribe = table.subscribe((event) => {
            switch (event.type) {
                case "started":
                case "exited":
                    this.emit({ type: "process", change: event.type, process: event.process });
                    return;
                case "notice":
                    this.emit({ type: "process_notice", notice: event.notice });
                    this.onNotice();
                    return;
                case "secret_prompt":
                    this.openSecret(event.process, event.prompt);
                    return;
                default:
                    event satisfies never;
            }
        });
    }

    counts(): { running: number; notices: number } {
        return { running: this.table.running(), notices: this.table.pendingNotices() };
    }

    list(): ProcessInfo[] {
        return this.table.list();
    }

    output(id: string, request: ReadRequest | undefined): OpReplies["process_output"] {
        try {
            const result = this.table.read(id, { mode: "tail", ...request, reader: "view" });
            return { ok: true, result };
        } catch (error) {
            return { ok: false, error: messageOf(error) };
        }
    }

    async stop(id: string): Promise<Outcome> {
        try {
            const info = await this.table.stop(id);
            return { message: `Stopped ${info.id} (${info.command}).` };
        } catch (error) {
            return { message: messageOf(error), isError: true };
        }
    }

    detachable(callId: string): { signal: AbortSignal; release(): void } {
        const controller = new AbortController();
        let release = (): void => undefined;
        const ended = new Promise<void>((resolve) => (release = resolve));
        this.calls.set(callId, { controller, ended });
        return {
            signal: controller.signal,
            release: () => {
                if (this.calls.get(callId)?.controller === controller) this.calls.delete(callId);
                release();
            },
        };
    }

    /** Ctrl+B: every running command moves to the background; answers once their calls returned. */
    async background(): Promise<OpReplies["background_command"]> {
        const fired = [...this.calls.entries()].filter(([, c]) => !c.controller.signal.aborted);
        for (const [, call] of fired) call.controller.abort();
        await Promise.all(fired.map(([, call]) => call.ended));
        const ids = new Set(fired.map(([callId]) => callId));
        return {
            moved: this.table
                .list()
                .filter((p) => ids.has(p.origin))
                .map((p) => p.id),
        };
    }

    requestSecret(process: ProcessInfo, prompt: string): Promise<"sent" | "declined"> {
        return new Promise((settle) => this.openSecret(process, prompt, settle));
    }

    private openSecret(
        process: ProcessInfo,
        prompt: string,
        settle?: (outcome: "sent" | "declined") => void
    ): void {
        // One masked field per process at a time: a tool's request and the program's own prompt are one question.
        for (const waiting of this.secrets.values()) {
            if (waiting.processId !== process.id) continue;
            if (settle) {
                const earlier = waiting.settle;
                waiting.settle = (outcome) => {
                    earlier?.(outcome);
                    settle(outcome);
                };
            }
            return;
        }
        const requestId = `secret-${this.nextSecret++}`;
        this.secrets.set(requestId, { processId: process.id, settle });
        this.emit({ type: "secret_request", requestId, process, prompt });
    }

    /** The secret goes to the process and nowhere else: not logged, not in any event or result. */
    async answerSecret(
        requestId: string,
        secret: string | null
    ): Promise<OpReplies["secret_answer"]> {
        const waiting = this.secrets.get(requestId);
        if (!waiting) return { ok: false, error: `no password request ${requestId} is waiting` };
        this.secrets.delete(requestId);
        if (secret === null) {
            waiting.settle?.("declined");
            return { ok: true };
        }
        try {
            await this.table.sendSecret(waiting.processId, secret);
            waiting.settle?.("sent");
            return { ok: true };
        } catch (error) {
            waiting.settle?.("declined");
            return { ok: false, error: messageOf(error) };
        }
    }

    /** Waiting password requests are declined (the conversation or North is closing). */
    close(): void {
        this.unsubscribe();
        for (const waiting of this.secrets.values()) waiting.settle?.("declined");
        this.secrets.clear();
    }
}

function messageOf(error: unknown): string {
    return error instanceof ProcessError || error instanceof Error ? error.message : String(error);
}
