/**
 * What a tty process's output looks like on a terminal: a headless xterm
 * (`@xterm/headless`, plain JavaScript, bundled) parses the bytes, and reads
 * take the visible rows as text, as a user looking at the terminal would see
 * them (a full-screen program's current screen, not the escape codes that drew
 * it). Reached only through a tty process (its module loads with the first one).
 */
import xtermHeadless from "@xterm/headless";
import type { KeyModes } from "./keys";
import type { TerminalScreen } from "./types";

const { Terminal } = xtermHeadless;

/** Rows kept above the screen: a tty read shows the screen, so little history is needed. */
const SCROLLBACK_ROWS = 200;

export interface TerminalScreenOptions {
    /**
     * What the terminal answers the program (cursor position, device
     * attributes): a program that asks may wait for the answer, so it goes
     * back to the program's input.
     */
    onReply?: (data: string) => void;
}

/** The screen with what a process's reads and key sends also need. */
export interface HeadlessTerminalScreen extends TerminalScreen {
    /** Resolves once every write so far is parsed, so `text()` shows it. */
    flush(): Promise<void>;
    /** Whether a write is still being parsed (`text()` may lag behind the output). */
    pending(): boolean;
    /** The modes keys depend on (application cursor keys). */
    keyModes(): KeyModes;
    /** Where the cursor is on the visible screen, 0-based. */
    cursor(): { row: number; col: number };
}

/**
 * A row as text without its trailing blanks: xterm trims cells never written,
 * and a program that cleared a line or wrote "Password: " leaves spaces too.
 */
function rowText(line: { translateToString(trimRight: boolean): string } | undefined): string {
    return line?.translateToString(true).replace(/ +$/, "") ?? "";
}

/** A `cols`×`rows` screen (the pty's size). */
export function createTerminalScreen(
    cols: number,
    rows: number,
    options: TerminalScreenOptions = {}
): HeadlessTerminalScreen {
    return new XtermScreen(cols, rows, options);
}

class XtermScreen implements HeadlessTerminalScreen {
    private readonly terminal: InstanceType<typeof Terminal>;
    /** Writes handed to xterm and not parsed yet (xterm parses on a timer). */
    private unparsed = 0;
    private idleWaiters: Array<() => void> = [];
    private disposed = false;

    constructor(cols: number, rows: number, options: TerminalScreenOptions) {
        this.terminal = new Terminal({
            cols,
            rows,
            scrollback: SCROLLBACK_ROWS,
            allowProposedApi: true,
            logLevel: "off",
        });
        const onReply = options.onReply;
        if (onReply) this.terminal.onData(onReply);
    }

    write(chunk: Buffer | string): void {
        if (this.disposed) return;
        this.unparsed++;
        const data = typeof chunk === "string" ? chunk : new Uint8Array(chunk);
        this.terminal.write(data, () => {
            this.unparsed--;
            if (this.unparsed === 0) this.wakeIdle();
        });
    }

    flush(): Promise<void> {
        if (this.unparsed === 0 || this.disposed) return Promise.resolve();
        return new Promise((resolve) => this.idleWaiters.push(resolve));
    }

    pending(): boolean {
        return this.unparsed > 0;
    }

    text(): string {
        const buffer = this.terminal.buffer.active;
        const lines: string[] = [];
        for (let row = 0; row < this.terminal.rows; row++) {
            lines.push(rowText(buffer.getLine(buffer.viewportY + row)));
        }
        while (lines.length > 0 && lines.at(-1) === "") lines.pop();
        return lines.join("\n");
    }

    cursorLine(): string {
        const buffer = this.terminal.buffer.active;
        return rowText(buffer.getLine(buffer.baseY + buffer.cursorY));
    }

    cursor(): { row: number; col: number } {
        const buffer = this.terminal.buffer.active;
        return { row: buffer.baseY + buffer.cursorY - buffer.viewportY, col: buffer.cursorX };
    }

    keyModes(): KeyModes {
        return { applicationCursorKeys: this.terminal.modes.applicationCursorKeysMode };
    }

    resize(cols: number, rows: number): void {
        if (!this.disposed) this.terminal.resize(cols, rows);
    }

    dispose(): void {
        if (this.disposed) return;
        this.disposed = true;
        this.terminal.dispose();
        this.wakeIdle();
    }

    private wakeIdle(): void {
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        for (const wake of waiters) wake();
    }
}
