/**
 * The editor's side of ACP's files and terminals, as a test editor does it:
 * files are read from "unsaved buffers" (a Map) before the disk, writes land in
 * the buffer and on disk, and a terminal runs exactly the command line it is
 * given (the editor's own environment plus the env the agent passes, as an
 * editor would) so a test can check what North asked to run.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import type {
    CreateTerminalRequest,
    ReadTextFileRequest,
    TerminalExitStatus,
    TerminalOutputResponse,
    WriteTextFileRequest,
} from "@agentclientprotocol/sdk";

export interface EditorTerminal {
    id: string;
    request: CreateTerminalRequest;
    output: string;
    truncated: boolean;
    exitStatus: TerminalExitStatus | null;
    killed: boolean;
    released: boolean;
}

export class TestEditor {
    /** Unsaved editor buffers by absolute path: what the editor shows, ahead of the disk. */
    readonly buffers = new Map<string, string>();
    readonly reads: ReadTextFileRequest[] = [];
    readonly writes: WriteTextFileRequest[] = [];
    readonly terminals: EditorTerminal[] = [];
    private readonly processes = new Map<string, { child: ChildProcess; exited: Promise<void> }>();

    /** @param env the editor's own environment, which its terminals start from */
    constructor(private readonly env: NodeJS.ProcessEnv) {}

    readTextFile(request: ReadTextFileRequest): { content: string } {
        this.reads.push(request);
        const text = this.buffers.get(request.path) ?? readFileSync(request.path, "utf8");
        if (request.line == null && request.limit == null) return { content: text };
        const lines = text.split("\n");
        const start = Math.max(0, (request.line ?? 1) - 1);
        const end = request.limit == null ? lines.length : start + request.limit;
        return { content: lines.slice(start, end).join("\n") };
    }

    writeTextFile(request: WriteTextFileRequest): Record<string, never> {
        this.writes.push(request);
        this.buffers.set(request.path, request.content);
        writeFileSync(request.path, request.content);
        return {};
    }

    createTerminal(request: CreateTerminalRequest): { terminalId: string } {
        const id = `term-${this.terminals.length + 1}`;
        const terminal: EditorTerminal = {
            id,
            request,
            output: "",
            truncated: false,
            exitStatus: null,
            killed: false,
            released: false,
        };
        this.terminals.push(terminal);
        const env: NodeJS.ProcessEnv = { ...this.env };
        for (const variable of request.env ?? []) env[variable.name] = variable.value;
        const child = spawn(request.command, request.args ?? [], {
            cwd: request.cwd ?? undefined,
            env,
            stdio: ["ignore", "pipe", "pipe"],
        });
        const append = (chunk: Buffer): void => {
            terminal.output += chunk.toString("utf8");
            const limit = request.outputByteLimit;
            if (limit != null && Buffer.byteLength(terminal.output) > limit) {
                // ACP: the client truncates from the beginning, at a character boundary.
                const bytes = Buffer.from(terminal.output);
                terminal.output = bytes
                    .subarray(bytes.length - limit)
                    .toString("utf8")
                    .replace(/^\uFFFD+/, "");
                terminal.truncated = true;
            }
        };
        child.stdout!.on("data", append);
        child.stderr!.on("data", append);
        const exited = new Promise<void>((resolve) => {
            child.on("error", (error) => {
                append(Buffer.from(`${error.message}\n`));
                terminal.exitStatus = { exitCode: 127, signal: null };
                resolve();
            });
            child.on("close", (code, signal) => {
                terminal.exitStatus = { exitCode: code, signal };
                resolve();
            });
        });
        this.processes.set(id, { child, exited });
        return { terminalId: id };
    }

    terminalOutput(terminalId: string): TerminalOutputResponse {
        const terminal = this.terminal(terminalId);
        return {
            output: terminal.output,
            truncated: terminal.truncated,
            exitStatus: terminal.exitStatus,
        };
    }

    async waitForExit(terminalId: string): Promise<TerminalExitStatus> {
        const terminal = this.terminal(terminalId);
        await this.processes.get(terminalId)!.exited;
        return terminal.exitStatus!;
    }

    killTerminal(terminalId: string): Record<string, never> {
        const terminal = this.terminal(terminalId);
        terminal.killed = true;
        this.processes.get(terminalId)!.child.kill("SIGKILL");
        return {};
    }

    releaseTerminal(terminalId: string): Record<string, never> {
        const terminal = this.terminal(terminalId);
        if (terminal.exitStatus === null) this.processes.get(terminalId)!.child.kill("SIGKILL");
        terminal.released = true;
        return {};
    }

    /** Kills whatever the editor still runs (the test is over). */
    closeAll(): void {
        for (const { child } of this.processes.values()) {
            if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
        }
    }

    private terminal(terminalId: string): EditorTerminal {
        const terminal = this.terminals.find((t) => t.id === terminalId);
        if (!terminal || terminal.released) throw new Error(`no terminal ${terminalId}`);
        return terminal;
    }
}
