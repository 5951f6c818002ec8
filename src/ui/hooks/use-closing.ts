import { useCallback, useEffect, useLayoutEffect, useState } from "react";
import { useApp } from "ink";

/**
 * Leaving the chat: `exit()` first draws one last frame with `closing` set
 * (the App leaves out its composer and status line: with --no-alt-screen that
 * frame stays in the scrollback, so it must not be a busy hint), then ends
 * Ink. `leave` lets code outside React (a command's `/quit`) ask the same.
 */
export function useClosing(leave?: { subscribe(listener: () => void): () => void }): {
    closing: boolean;
    exit: () => void;
} {
    const { exit: inkExit } = useApp();
    const [closing, setClosing] = useState(false);
    const exit = useCallback(() => setClosing(true), []);
    // A task later, not within this commit: <Static> must first settle what it just wrote
    // (`/quit`'s own entry), or Ink's exit writes it a second time.
    useEffect(() => {
        if (!closing) return;
        const next = setTimeout(inkExit, 0);
        return () => clearTimeout(next);
    }, [closing, inkExit]);
    useLayoutEffect(() => leave?.subscribe(exit), [leave, exit]);
    return { closing, exit };
}
