/**
 * What a conversation's runs need of its background processes (issue 35):
 * the table, a detach signal for each running command the user may move to
 * the background (Ctrl+B), and a way to ask the user for a password a
 * process prompts for. The engine host provides it (agent/host/processes.ts).
 */
import type { ProcessInfo, ProcessTable } from "../tools/processes/types";

export interface ProcessPort {
    readonly table: ProcessTable;
    /**
     * A signal `background_command` fires for the running call `callId`;
     * `release` when the call ends.
     */
    detachable(callId: string): { signal: AbortSignal; release(): void };
    /** The user's answer goes straight to the process; "declined" when they refused or nobody can answer. */
    requestSecret(process: ProcessInfo, prompt: string): Promise<"sent" | "declined">;
}
