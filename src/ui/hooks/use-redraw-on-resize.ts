import { useEffect } from "react";
import { useStdout } from "ink";

const CLEAR_SCREEN = "\x1b[2J\x1b[H";

/**
 * In the alternate screen, a resize reflows whatever the terminal holds; the
 * screen is cleared and the frame drawn again in full, so nothing stale stays.
 */
export function useRedrawOnResize(enabled: boolean): void {
    const { stdout, write } = useStdout();
    useEffect(() => {
        if (!enabled) return;
        const onResize = (): void => write(CLEAR_SCREEN);
        stdout.on("resize", onResize);
        return () => {
            stdout.off("resize", onResize);
        };
    }, [enabled, stdout, write]);
}
