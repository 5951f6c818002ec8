import { PassThrough, Writable } from "node:stream";
import { stripVTControlCharacters } from "node:util";
import type { ReactElement } from "react";
import { render } from "ink";
import { expect, vi } from "vitest";

/** Generous: a loaded machine only makes the waits slower. */
const WAIT = { timeout: 10_000, interval: 5 };

/** Renders an Ink tree to a fake terminal: every frame is kept, keys are typed into stdin. */
export function renderToFakeTerminal(node: ReactElement, size = { columns: 80, rows: 24 }) {
    const frames: string[] = [];
    const stdout = new Writable({
        write(chunk, _encoding, done) {
            frames.push(String(chunk));
            done();
        },
    }) as unknown as NodeJS.WriteStream;
    Object.assign(stdout, { columns: size.columns, rows: size.rows, isTTY: false });
    const stdin = new PassThrough() as unknown as NodeJS.ReadStream;
    Object.assign(stdin, {
        isTTY: true,
        setRawMode: () => stdin,
        ref: () => stdin,
        unref: () => stdin,
    });
    const instance = render(node, {
        stdout,
        stdin,
        debug: true,
        exitOnCtrlC: false,
        patchConsole: false,
    });
    const input = stdin as unknown as PassThrough;
    const lastFrame = (): string => frames.at(-1) ?? "";
    return {
        instance,
        /** The last full frame written. */
        lastFrame,
        /** How many frames were written so far. */
        frameCount: (): number => frames.length,
        /** Types `keys` and resolves once the app read them (one read: type again for another). */
        async type(keys: string) {
            input.write(keys);
            await vi.waitFor(() => expect(input.readableLength).toBe(0), WAIT);
        },
        /** Resolves once the last frame shows `text` (escape sequences left out). */
        async shows(text: string) {
            await vi.waitFor(
                () => expect(stripVTControlCharacters(lastFrame())).toContain(text),
                WAIT
            );
        },
    };
}
