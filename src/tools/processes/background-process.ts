/**
 * One background process: its program (ProcessIo), its latest output in a
 * bounded ring with a capped spill file beyond it, a read cursor per reader,
 * its lines for waits and watches, and its stop (SIGTERM to the group,
 * SIGKILL after a grace period, then whatever still carries its owner mark).
 * A tty process's reads show its screen when it has one.
 */
import { linearRegExp } from "../../util/linear-regexp";
import { StringDecoder } from "node:string_decoder";
import { reapOwned } from "../child-reaper";
import {
    PROCESS_LINE_MAX_CHARS,
    PROCESS_READ_MAX_BYTES,
    PROCESS_READ_MAX_LINES,
    PROCESS_RING_BYTES,
    PROCESS_SPILL_CAP_BYTES,
    PROCESS_STOP_GRACE_MS,
    PROCESS_TAIL_DEFAULT_LINES,
} from "../limits";
import { cleanText, completeUtf8End, firstUtf8Start } from "../shell-output";
import { OutputGrep } from "./output-grep";
import { OutputRing } from "./output-ring";
import { keysToBytes } from "./keys";
import { secretPrompt, terminalEchoes } from "./password-prompt";
import { pipeKeyAction } from "./pipe-input";
import { foldScreenRows } from "./screen-rows";
import { SpillFile } from "./spill-file";
import type { HeadlessTerminalScreen } from "./terminal-screen";
import {
    type ProcessId,
    type ProcessInfo,
    type ProcessInput,
    type ProcessIo,
    type ReadRequest,
    type ReadResult,
    ProcessError,
} from "./types";

export interface BackgroundProcessOptions {
    id: ProcessId;
    command: string;
    cwd: string;
    origin: string;
    sandboxed: boolean;
    io: ProcessIo;
    /** Where output beyond the ring goes (created when the ring first overflows). */
    spillPath: string;
    /** The mark its processes carry, reaped when it is stopped; absent: the group kill only. */
    ownerTag?: string;
    /** The screen a tty process's output is drawn on. */
    screen?: HeadlessTerminalScreen;
    /** Output printed before it became a background process (Ctrl+B): raw bytes and how many were printed. */
    earlier?: { bytes: Buffer; total: number };
    ringBytes?: number;
    spillCapBytes?: number;
    /** After SIGTERM, how long before SIGKILL. */
    graceMs?: number;
    now?: () => number;
}

export type Reader = NonNullable<ReadRequest["reader"]>;

/** A line of output as reads and patterns see it: no escapes, a carriage return's overwrite applied. */
function plainLine(raw: string): string {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    const cr = line.lastIndexOf("\r");
    return cleanText(cr === -1 ? line : line.slice(cr + 1));
}

function plainLines(text: string): string[] {
    const lines = text.split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    return lines.map(plainLine);
}

/** Compiles a model's pattern; a ProcessError "invalid" names what is wrong. */
export function compilePattern(pattern: string): RegExp {
    try {
        // Matched against every line a process prints: linear time, so no pattern can freeze North.
        return linearRegExp(pattern);
    } catch (error) {
        throw new ProcessError(
            "invalid",
            `invalid pattern ${pattern}: ${(error as Error).message}`
        );
    }
}

/** The last lines of `lines` that fit `maxBytes` together. */
function lastWithin(lines: string[], maxBytes: number): { lines: string[]; cut: boolean } {
    let bytes = 0;
    let i = lines.length;
    while (i > 0 && bytes + Buffer.byteLength(lines[i - 1]!) + 1 <= maxBytes) {
        bytes += Buffer.byteLength(lines[i - 1]!) + 1;
        i--;
    }
    return { lines: lines.slice(i), cut: i > 0 };
}

export class BackgroundProcess {
    readonly info: ProcessInfo;
    /** Resolves once the program has exited (and the info says how). */
    readonly exited: Promise<ProcessInfo>;
    private readonly io: ProcessIo;
    private readonly ring: OutputRing;
    private readonly spill: SpillFile;
    private spilling = false;
    /** A write to the spill file failed (a full disk): it misses some output. */
    private spillGap = false;
    private readonly cursors = new Map<Reader, number>();
    private readonly lineListeners = new Set<(line: string) => void>();
    private readonly screenListeners = new Set<(rows: string[]) => void>();
    /** A screen check is waiting for the parse of the latest output. */
    private screenCheckPending = false;
    private readonly decoder = new StringDecoder("utf8");
    private partial = "";
    private readonly screen: HeadlessTerminalScreen | undefined;
    private readonly graceMs: number;
    private readonly now: () => number;
    private readonly ownerTag: string | undefined;
    private killTimer: NodeJS.Timeout | undefined;
    private firstOutput: (() => void) | undefined;
    /** Told of each chunk and of the exit (a send waiting for the program's answer). */
    private readonly outputListeners = new Set<() => void>();

    constructor(options: BackgroundProcessOptions) {
        this.now = options.now ?? Date.now;
        this.io = options.io;
        this.screen = options.screen;
        this.ownerTag = options.ownerTag;
        this.graceMs = options.graceMs ?? PROCESS_STOP_GRACE_MS;
        this.ring = new OutputRing(options.ringBytes ?? PROCESS_RING_BYTES);
        this.spill = new SpillFile(
            options.spillPath,
            options.spillCapBytes ?? PROCESS_SPILL_CAP_BYTES
        );
        this.info = {
            id: options.id,
            command: options.command,
            cwd: options.cwd,
            tty: options.io.tty,
            sandboxed: options.sandboxed,
            state: "running",
            startedAt: this.now(),
            outputBytes: 0,
            origin: options.origin,
        };
        if (options.io.pid !== undefined) this.info.pid = options.io.pid;
        if (options.io.terminalId !== undefined) this.info.terminalId = options.io.terminalId;
        if (options.earlier) {
            this.take(options.earlier.bytes);
            // Bytes the foreground buffer dropped still count as printed.
            this.info.outputBytes = options.earlier.total;
        }
        this.exited = new Promise((resolve) => {
            this.io.onExit((exitCode, signal) => {
                this.finishLine();
                clearTimeout(this.killTimer);
                this.info.state = "exited";
                this.info.exitCode = exitCode;
                this.info.signal = signal;
                this.info.endedAt = this.now();
                this.firstOutput?.();
                for (const listener of [...this.outputListeners]) listener();
                // What the program left in its group goes with it.
                if (this.info.pid !== undefined) this.io.kill("SIGKILL");
                // A tty's last output shows on its screen before the exit is reported.
                void this.settled().then(() => resolve(this.snapshot()));
            });
        });
        this.io.onData((chunk) => this.take(chunk));
    }

    get running(): boolean {
        return this.info.state === "running";
    }

    /** The info as plain data, safe to hand out. */
    snapshot(): ProcessInfo {
        return { ...this.info };
    }

    /** Resolves at the first output, the exit, or after `ms`, whichever comes first. */
    untilFirstOutput(ms: number): Promise<void> {
        if (this.ring.total > 0 || !this.running) return Promise.resolve();
        return new Promise((resolve) => {
            const done = (): void => {
                clearTimeout(timer);
                this.firstOutput = undefined;
                resolve();
            };
            const timer = setTimeout(done, ms);
            this.firstOutput = done;
        });
    }

    /** Every byte received so far (a mark for `settle`). */
    get received(): number {
        return this.ring.total;
    }

    /**
     * After input: resolves once output came after `mark` and then paused for
     * `quietMs`, or the program exited, or `maxMs` passed.
     */
    settle(mark: number, maxMs: number, quietMs: number): Promise<void> {
        if (!this.running) return Promise.resolve();
        return new Promise((resolve) => {
            let quiet: NodeJS.Timeout | undefined;
            const done = (): void => {
                clearTimeout(limit);
                clearTimeout(quiet);
                this.outputListeners.delete(onOutput);
                resolve();
            };
            // Each chunk restarts the quiet period: the answer is complete once output pauses.
            const onOutput = (): void => {
                if (!this.running) return done();
                clearTimeout(quiet);
                quiet = setTimeout(done, quietMs);
            };
            const limit = setTimeout(done, maxMs);
            this.outputListeners.add(onOutput);
            if (this.ring.total > mark) onOutput();
        });
    }

    /** Whether reads show a screen (a tty): waits for a pattern look at its rows, not at lines. */
    get hasScreen(): boolean {
        return this.screen !== undefined;
    }

    /** A tty's rows as they show once what was printed so far is parsed; none without a screen. */
    async screenRows(): Promise<string[] | undefined> {
        if (!this.screen) return undefined;
        await this.screen.flush();
        return this.screen.text().split("\n");
    }

    /** A tty: calls `listener` with the screen's rows whenever new output shows; the returned function stops it. */
    onScreen(listener: (rows: string[]) => void): () => void {
        this.screenListeners.add(listener);
        return () => void this.screenListeners.delete(listener);
    }

    /** Calls `listener` with each complete line from now on; the returned function stops it. */
    onLine(listener: (line: string) => void): () => void {
        this.lineListeners.add(listener);
        return () => void this.lineListeners.delete(listener);
    }

    /** Moves `reader`'s cursor to the end: it has seen everything so far. */
    markRead(reader: Reader): void {
        this.cursors.set(reader, this.ring.total);
    }

    /** The lines `reader` has not read yet (what a wait for a pattern looks at first). */
    unreadLines(reader: Reader): string[] {
        const { bytes } = this.ring.since(this.cursors.get(reader) ?? 0);
        return plainLines(bytes.toString("utf8"));
    }

    /** The last `count` lines held (an exit notice's). */
    lastLines(count: number): string[] {
        if (this.screen) return this.screen.text().split("\n").slice(-count);
        return plainLines(this.ring.since(this.ring.start).bytes.toString("utf8")).slice(-count);
    }

    read(request: ReadRequest): ReadResult {
        const reader = request.reader ?? "model";
        if (this.screen) return this.readScreen(request);
        const result: ReadResult = { process: this.snapshot(), text: "" };
        if (request.mode === "new") {
            const from = this.cursors.get(reader) ?? 0;
            const { bytes, dropped } = this.ring.since(from);
            // A character cut at the end is read next time, whole.
            const end = completeUtf8End(bytes);
            let shown = bytes.subarray(0, end);
            let skipped = dropped;
            if (shown.length > PROCESS_READ_MAX_BYTES) {
                skipped += shown.length - PROCESS_READ_MAX_BYTES;
                shown = shown.subarray(shown.length - PROCESS_READ_MAX_BYTES);
                result.truncated = true;
            }
            shown = shown.subarray(firstUtf8Start(shown));
            this.cursors.set(reader, from + dropped + end);
            result.text = plainLines(shown.toString("utf8")).join("\n");
            if (skipped > 0) result.droppedBytes = skipped;
            return result;
        }
        const max = Math.min(request.lines ?? PROCESS_TAIL_DEFAULT_LINES, PROCESS_READ_MAX_LINES);
        let lines: string[];
        let dropped = this.ring.start;
        if (request.mode === "grep") {
            ({ lines, dropped } = this.grep(compilePattern(request.pattern ?? ""), max));
        } else {
            const held = plainLines(this.ring.since(this.ring.start).bytes.toString("utf8"));
            lines = held.slice(-max);
        }
        const within = lastWithin(lines, PROCESS_READ_MAX_BYTES);
        if (within.cut) result.truncated = true;
        if (dropped > 0) result.droppedBytes = dropped;
        result.text = within.lines.join("\n");
        return result;
    }

    /**
     * The newest `max` lines matching `pattern` in all the output still kept:
     * the spill file's part before the ring, then the ring. `dropped`: bytes
     * at the start no longer kept (the spill file's rotation), not searched.
     */
    private grep(pattern: RegExp, max: number): { lines: string[]; dropped: number } {
        // A spill file with a gap (a failed write), or smaller than the ring (tests' caps): the ring only.
        const fromSpill = this.spilling && !this.spillGap && this.spill.size >= this.ring.size;
        const start = fromSpill ? this.ring.total - this.spill.size : this.ring.start;
        const grep = new OutputGrep(pattern, max, plainLine, PROCESS_READ_MAX_BYTES, {
            startsMidLine: fromSpill && start > 0,
        });
        if (fromSpill)
            this.spill.scan(this.spill.size - this.ring.size, (chunk) => grep.feed(chunk));
        grep.feed(this.ring.since(this.ring.start).bytes);
        return { lines: grep.finish(), dropped: start };
    }

    /**
     * Resolves once everything printed so far shows in reads: a tty's screen
     * parses output a moment after it arrives.
     */
    async settled(): Promise<void> {
        await this.screen?.flush();
    }

    /**
     * The prompt when the program waits for a secret (a password prompt on
     * the cursor line or the unfinished last line; for a pty, with echo off).
     */
    async secretPrompt(): Promise<string | undefined> {
        if (!this.running) return undefined;
        await this.settled();
        // Without a screen, what follows the last newline (`partial` holds just that).
        const line = this.screen ? this.screen.cursorLine() : plainLine(this.partial);
        return secretPrompt({ line, tty: this.io.tty, pid: this.info.pid });
    }

    async send(input: ProcessInput): Promise<void> {
        this.assertRunning("nothing was sent");
        try {
            if (input.text !== undefined && input.text !== "") this.io.write(input.text);
            // A terminal gets every key as the bytes an xterm sends (all names checked first).
            if (input.keys && this.screen) {
                this.io.write(
                    keysToBytes(input.keys, { tty: true, modes: this.screen.keyModes() })
                );
            } else {
                for (const key of input.keys ?? []) this.sendKey(key);
            }
            if (input.eof) this.io.endInput();
        } catch (error) {
            if (error instanceof ProcessError) throw error;
            throw new ProcessError(
                "unsupported",
                `${this.info.id} cannot take input: ${(error as Error).message}`
            );
        }
    }

    /** A secret for a prompt: to the program only. */
    async sendSecret(secret: string): Promise<void> {
        this.assertRunning("the answer was not sent");
        // A terminal that echoes would put the secret on the screen, which the model reads.
        if (this.io.tty && this.info.pid !== undefined && (await terminalEchoes(this.info.pid))) {
            throw new ProcessError(
                "invalid",
                `${this.info.id}'s terminal shows what is typed (echo is on), so the answer would be on its screen; it was not sent.`
            );
        }
        this.io.write(`${secret}${this.io.tty ? "\r" : "\n"}`);
    }

    /** SIGTERM to the group, SIGKILL after the grace period, then its marked leftovers. */
    async stop(): Promise<ProcessInfo> {
        if (this.running) {
            this.info.stopped = true;
            this.io.kill("SIGTERM");
            this.killTimer = setTimeout(() => this.io.kill("SIGKILL"), this.graceMs);
        }
        const info = await this.exited;
        if (this.ownerTag !== undefined) reapOwned(this.ownerTag);
        return info;
    }

    /** Kills it now (North is exiting, or the table is disposed); synchronous. */
    kill(): void {
        if (this.running) {
            this.info.stopped = true;
            this.io.kill("SIGKILL");
        }
        if (this.ownerTag !== undefined) reapOwned(this.ownerTag);
    }

    /** Deletes its spill file. */
    removeSpill(): void {
        this.spill.remove();
    }

    /** Sizes of what it holds, for limits and tests. */
    held(): { ringBytes: number; spillBytes: number } {
        return { ringBytes: this.ring.size, spillBytes: this.spill.size };
    }

    private assertRunning(what: string): void {
        if (this.running) return;
        const how =
            this.info.exitCode !== null && this.info.exitCode !== undefined
                ? `with code ${this.info.exitCode}`
                : `by ${this.info.signal ?? "a signal"}`;
        throw new ProcessError(
            "exited",
            `${this.info.id} (\`${this.info.command}\`) has exited ${how}; ${what}. Read its output with process_read, or start it again with shell_run.`
        );
    }

    private sendKey(name: string): void {
        const action = pipeKeyAction(name);
        if (action.kind === "bytes") this.io.write(action.bytes);
        else if (action.kind === "eof") this.io.endInput();
        else this.io.kill(action.signal);
    }

    private readScreen(request: ReadRequest): ReadResult {
        const screen = this.screen!;
        const rows = screen.text().split("\n");
        const cursor = screen.cursor();
        let lines = rows;
        if (request.mode === "grep") {
            const pattern = compilePattern(request.pattern ?? "");
            lines = rows.filter((line) => pattern.test(line));
        } else {
            const from =
                request.mode === "tail" && request.lines !== undefined
                    ? Math.max(0, rows.length - request.lines)
                    : 0;
            lines = rows.slice(from);
            // The model's tokens: filler rows fold (a user's view shows the screen as it is).
            if ((request.reader ?? "model") === "model")
                lines = foldScreenRows(lines, cursor.row - from);
        }
        return {
            process: this.snapshot(),
            text: lines.join("\n"),
            screen: true,
            cursor: { row: cursor.row + 1, col: cursor.col + 1 },
        };
    }

    private take(chunk: Buffer): void {
        this.info.outputBytes += chunk.length;
        // Past the ring, everything goes to disk too (from the first byte), so the file holds the latest output whole.
        if (!this.spilling && this.ring.total + chunk.length > this.ring.capacity) {
            this.spilling = true;
            this.info.spillPath = this.spill.filePath;
            if (!this.spill.append(this.ring.since(0).bytes)) this.spillGap = true;
        }
        if (this.spilling && !this.spill.append(chunk)) this.spillGap = true;
        this.ring.push(chunk);
        if (this.screen) this.drawOnScreen(chunk, this.screen);
        this.splitLines(this.decoder.write(chunk));
        this.firstOutput?.();
        for (const listener of [...this.outputListeners]) listener();
    }

    /** Writes to the screen; listeners get its rows once that output is parsed (one check per burst). */
    private drawOnScreen(chunk: Buffer, screen: HeadlessTerminalScreen): void {
        screen.write(chunk);
        if (this.screenListeners.size === 0 || this.screenCheckPending) return;
        this.screenCheckPending = true;
        void screen.flush().then(() => {
            this.screenCheckPending = false;
            const rows = screen.text().split("\n");
            for (const listener of [...this.screenListeners]) listener(rows);
        });
    }

    private splitLines(text: string): void {
        if (this.lineListeners.size === 0) {
            // Nobody waits for lines: keep only what a later listener could still complete.
            const nl = text.lastIndexOf("\n");
            this.partial =
                nl === -1
                    ? (this.partial + text).slice(-PROCESS_LINE_MAX_CHARS)
                    : text.slice(nl + 1);
            return;
        }
        let rest = this.partial + text;
        let nl = rest.indexOf("\n");
        while (nl !== -1) {
            this.emitLine(rest.slice(0, nl));
            rest = rest.slice(nl + 1);
            nl = rest.indexOf("\n");
        }
        if (rest.length > PROCESS_LINE_MAX_CHARS) {
            this.emitLine(rest);
            rest = "";
        }
        this.partial = rest;
    }

    private finishLine(): void {
        const rest = this.partial + this.decoder.end();
        this.partial = "";
        if (rest !== "" && this.lineListeners.size > 0) this.emitLine(rest);
    }

    private emitLine(raw: string): void {
        const line = plainLine(raw);
        for (const listener of [...this.lineListeners]) listener(line);
    }
}
