import { PassThrough, Writable } from "node:stream";
import type { ReactElement } from "react";
import { render } from "ink";

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
    const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
    return {
        instance,
        /** The last full frame written. */
        lastFrame: () => frames.at(-1) ?? "",
        async type(input: string) {
            (stdin as unknown as PassThrough).write(input);
            await settle();
        },
        settle,
    };
}
