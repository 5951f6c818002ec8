/**
 * Lets the editor handover (outside React) ask Ink for a full redraw: Ink's
 * `write` erases what it believes is on screen, writes, and draws the whole
 * last frame again, which is what a screen the editor took over needs.
 */
import { useStdout } from "ink";
import { useEffect } from "react";

export interface RedrawPort {
    /** Draws the whole frame again; nothing before the app is mounted. */
    request(): void;
    /** Called by the mounted app; returns the unbinding. */
    bind(redraw: () => void): () => void;
}

export function createRedrawPort(): RedrawPort {
    let redraw: (() => void) | null = null;
    return {
        request: () => redraw?.(),
        bind(next) {
            redraw = next;
            return () => {
                if (redraw === next) redraw = null;
            };
        },
    };
}

/** Renders nothing; binds the port to this Ink instance. */
export function RedrawBinder(props: { port: RedrawPort }): null {
    const { write } = useStdout();
    useEffect(() => props.port.bind(() => write("")), [props.port, write]);
    return null;
}
