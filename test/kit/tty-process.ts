/**
 * A program in a pseudo-terminal as a tty background process runs it
 * (src/tools/processes/pty-io.ts), its output on the headless screen the
 * process reads show (terminal-screen.ts), the screen's answers to the
 * program's queries going back to it.
 *
 *     const tty = await startTty("vi", ["notes.txt"], { cwd });
 *     await tty.waitForScreen(/notes\.txt/);
 *     tty.keys(["esc", ":", "q", "enter"]);
 *     await tty.exited;
 *     tty.dispose(); // always, in afterEach
 */
import { keysToBytes } from "../../src/tools/processes/keys";
import { spawnPtyIo } from "../../src/tools/processes/pty-io";
import {
    createTerminalScreen,
    type HeadlessTerminalScreen,
} from "../../src/tools/processes/terminal-screen";
import type { ProcessIo } from "../../src/tools/processes/types";

const DEFAULT_TIMEOUT_MS = 15_000;

export interface TtyProcess {
    readonly io: ProcessIo;
    readonly screen: HeadlessTerminalScreen;
    /** Every byte the program wrote, decoded. */
    output(): string;
    keys(names: string[]): void;
    type(text: string): void;
    /** Resolves once the parsed screen (or `where(screen)`) matches; rejects with the screen on timeout. */
    waitForScreen(
        match: string | RegExp,
        options?: { timeoutMs?: number; where?: (screen: HeadlessTerminalScreen) => string }
    ): Promise<string>;
    readonly exited: Promise<{ exitCode: number | null; signal: string | null }>;
    /** Kills the program's group (SIGKILL) if it still runs and frees the screen. Safe twice. */
    dispose(): void;
}

export async function startTty(
    file: string,
    args: string[],
    options: { cwd: string; env?: NodeJS.ProcessEnv; cols?: number; rows?: number }
): Promise<TtyProcess> {
    const cols = options.cols ?? 120;
    const rows = options.rows ?? 40;
    const io = await spawnPtyIo({
        file,
        args,
        cwd: options.cwd,
        env: options.env ?? process.env,
        tty: true,
        cols,
        rows,
    });
    const screen = createTerminalScreen(cols, rows, { onReply: (data) => io.write(data) });
    let output = "";
    const wakers = new Set<() => void>();
    let running = true;
    io.onData((chunk) => {
        output += chunk.toString("utf8");
        screen.write(chunk);
        void screen.flush().then(() => wakers.forEach((wake) => wake()));
    });
    const exited = new Promise<{ exitCode: number | null; signal: string | null }>((resolve) =>
        io.onExit((exitCode, signal) => {
            running = false;
            resolve({ exitCode, signal });
        })
    );
    return {
        io,
        screen,
        output: () => output,
        keys: (names) => io.write(keysToBytes(names, { tty: true, modes: screen.keyModes() })),
        type: (text) => io.write(text),
        waitForScreen: (match, { timeoutMs = DEFAULT_TIMEOUT_MS, where } = {}) =>
            new Promise((resolve, reject) => {
                const read = (): string => (where ? where(screen) : screen.text());
                const matches = (text: string): boolean =>
                    typeof match === "string" ? text.includes(match) : match.test(text);
                const check = (): void => {
                    if (screen.pending()) return;
                    const text = read();
                    if (!matches(text)) return;
                    done();
                    resolve(text);
                };
                const timer = setTimeout(() => {
                    done();
                    reject(
                        new Error(
                            `the screen never showed ${String(match)} in ${timeoutMs} ms; it shows:\n${read()}`
                        )
                    );
                }, timeoutMs);
                const done = (): void => {
                    clearTimeout(timer);
                    wakers.delete(check);
                };
                wakers.add(check);
                check();
            }),
        exited,
        dispose: () => {
            if (running) io.kill("SIGKILL");
            screen.dispose();
        },
    };
}
